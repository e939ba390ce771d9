#!/usr/bin/env bash
# Session 28 call 7, two GPUs: main 5d1b99d (Z), ecdh.Server with its
# default Pipeline 4 against --pipeline 8, X25519 frames at 262,144,
# blocking and async at 16,384 and 65,536, one and two GPUs; three rounds
# alternating.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/p/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cp before/p/call.sh $O/call.sh; cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc-Z bench server --ops x25519 --devices 1,2 --callers 16384 --forms blocking --seconds 0.3 --warmup 0.2 >/dev/null 2>&1
echo "warm $SECONDS" | tee -a $O/info.txt
for round in 1 2 3; do for p in 0 8; do
  echo "== round $round pipeline $p" | tee -a $O/ab.txt
  ./gc-Z bench server --ops x25519 --devices 1,2 --callers 262144 --forms async-frames --pipeline $p --seconds 1.2 --warmup 0.4 2>/dev/null | grep '^ *x25519' | tee -a $O/ab.txt
  ./gc-Z bench server --ops x25519 --devices 1,2 --callers 16384,65536 --forms blocking,async --pipeline $p --seconds 1.2 --warmup 0.4 2>/dev/null | grep '^ *x25519' | tee -a $O/ab.txt
done; echo "round $round $SECONDS" | tee -a $O/info.txt; done
echo "all done $SECONDS" | tee -a $O/info.txt
