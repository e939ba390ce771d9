#!/usr/bin/env bash
# The twentieth session's third machine: M = 82e9641, H = 86ffa31 (main with
# pack-in-turn, batch-match, host-cut, Karatsuba, touchPages), H64 = H with
# batches of 65,536 instead of 131,072 for ed25519 and ecdsa calls.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache
for f in before/b3/*.xz; do b=$(basename $f .xz); xz -dc $f > /tmp/$b; chmod +x /tmp/$b; done
cd /tmp
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/info.txt
(./gc-H bench ecdsa --batch 1024 --seconds 0.05 --no-auto >/dev/null 2>&1; echo "warm ecdsa $SECONDS") &
(./gc-H bench ed25519 --batch 1024 --seconds 0.05 --no-auto >/dev/null 2>&1; echo "warm ed25519 $SECONDS") &
wait
for r in 1 2; do for v in M H H64; do
	echo "== $v $r $SECONDS"
	./gc-$v bench ed25519 --batch 1048576 --no-auto 2>/dev/null | tail -3
	./gc-$v bench ecdsa --batch 1048576 --no-auto 2>/dev/null | tail -4
done; done 2>&1 | tee $OUT/host-ab.txt
for v in M H; do echo "== $v 3 $SECONDS"; ./gc-$v bench ecdsa --ops ecdsa-p256-sign --batch 1048576 --no-auto 2>/dev/null | tail -1; ./gc-$v bench ed25519 --ops ed25519-sign --batch 1048576 --no-auto 2>/dev/null | tail -1; done 2>&1 | tee -a $OUT/host-ab.txt
echo "all done $SECONDS"
