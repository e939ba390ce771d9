#!/usr/bin/env bash
# Session 28 call 6, two GPUs: main 5d1b99d (Z), X25519 frames at one and
# two GPUs by flag: Pipeline 4 (ecdh.Server's default), 6 and 8 batches in
# flight per engine, MaxBatch 8,192 with Pipeline 8, and 524,288 calls in
# flight; three rounds alternating.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/o/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cp before/o/call.sh $O/call.sh; cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc-Z bench server --ops x25519 --devices 1,2 --callers 16384 --forms blocking --seconds 0.3 --warmup 0.2 >/dev/null 2>&1
echo "warm $SECONDS" | tee -a $O/info.txt
F="bench server --ops x25519 --devices 1,2 --forms async-frames --seconds 1.5 --warmup 0.5"
for round in 1 2 3; do
  for v in "p4:--callers 262144" "p6:--callers 262144 --pipeline 6" "p8:--callers 262144 --pipeline 8" "p8b8k:--callers 262144 --pipeline 8 --max-batch 8192" "p4w512k:--callers 524288" "p8w512k:--callers 524288 --pipeline 8"; do
    name=${v%%:*}; args=${v#*:}
    echo "== round $round $name" | tee -a $O/frames.txt
    ./gc-Z $F $args 2>/dev/null | grep '^ *x25519' | tee -a $O/frames.txt
  done
  echo "round $round $SECONDS" | tee -a $O/info.txt
done
echo "all done $SECONDS" | tee -a $O/info.txt
