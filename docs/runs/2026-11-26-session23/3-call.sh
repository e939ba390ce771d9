#!/usr/bin/env bash
# Session 23, call 3: Ed25519 signing and verification at 1,048,576, main
# (M, 941214e: cut-after-pack merged) against fused-pack (P: a batch packed
# in one pass), alternating; the ed25519 suite through CUDA (P).
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o; R=$PWD
for f in before/b3/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/info.txt
cd /tmp
./gc-M bench ed25519 --ops ed25519-sign --batch 65536 --seconds 0.3 --no-auto >/dev/null 2>&1   # builds the kernels once (disk cache)
for round in 1 2 3 4; do for b in M P; do
  echo "== round $round build $b" | tee -a $O/ab.txt
  ./gc-$b bench ed25519 --ops ed25519-sign --batch 1048576 --seconds 1 --no-auto 2>/dev/null | grep -E "ed25519-" | tee -a $O/ab.txt
  if [ $round -le 2 ]; then ./gc-$b bench ed25519 --ops ed25519-verify --batch 1048576 --seconds 1 --no-auto 2>/dev/null | grep -E "ed25519-" | tee -a $O/ab.txt; fi
done; done
(cd $R/ed25519 && GPUCRYPTO_REQUIRE_DEVICE=1 GPUCRYPTO_BACKEND=cuda timeout 240 /tmp/ed25519.test -test.count=1 2>&1 | tail -4) | tee $O/tests.txt
echo "all done $SECONDS"
