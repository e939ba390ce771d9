#!/usr/bin/env bash
# Session 22, call 10 (one H100): Ed25519 signing with the last batch in two
# halves while alone (L, small-last edeb2dc) against main (M, 840512f), four
# rounds at 1,048,576 and two at 262,144.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for k in M L; do xz -dc before/b/gc-$k.xz > /tmp/gc-$k; chmod +x /tmp/gc-$k; done; cd /tmp
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/info.txt
./gc-M bench ed25519 --ops ed25519-sign --batch 65536 --seconds 0.3 --no-auto >/dev/null 2>&1
for round in 1 2 3 4; do for k in M L; do
  echo "== round $round build $k" | tee -a $O/small-last.txt
  ./gc-$k bench ed25519 --ops ed25519-sign --batch 1048576 --seconds 1 --no-auto 2>/dev/null | grep -E "ed25519-" | tee -a $O/small-last.txt
done; done
for round in 1 2; do for k in M L; do
  echo "== 262144 round $round build $k" | tee -a $O/small-last.txt
  ./gc-$k bench ed25519 --ops ed25519-sign --batch 262144 --seconds 1 --no-auto 2>/dev/null | grep -E "ed25519-" | tee -a $O/small-last.txt
done; done
echo "all done $SECONDS"
