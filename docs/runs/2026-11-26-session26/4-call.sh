#!/usr/bin/env bash
# Session 26 call 4: do Batcher settings move X25519's two-GPU scaling?
# Frames (262,144 in flight) and blocking (65,536) at 1 and 2 engines
# over MaxBatch x Pipeline, two rounds, same machine.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
xz -dc before/c/gc-N.xz > /tmp/gc-N; chmod +x /tmp/gc-N; cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc-N bench server --ops x25519 --devices 1,2 --callers 16384 --forms blocking,async-frames --seconds 0.5 --warmup 0.3 >/dev/null 2>&1
for round in 1 2; do
  for mb in 0 32768 65536; do for pl in 0 8; do
    echo "== round $round frames max-batch $mb pipeline $pl" | tee -a $O/frames.txt
    ./gc-N bench server --ops x25519 --devices 1,2 --callers 262144 --forms async-frames --max-batch $mb --pipeline $pl --seconds 2 --warmup 0.5 2>/dev/null | tail -2 | tee -a $O/frames.txt
  done; done
  for mb in 4096 0; do for pl in 0 8 16; do
    echo "== round $round blocking max-batch $mb pipeline $pl" | tee -a $O/blocking.txt
    ./gc-N bench server --ops x25519 --devices 1,2 --callers 65536 --forms blocking --max-batch $mb --pipeline $pl --seconds 1.5 --warmup 0.5 2>/dev/null | tail -2 | tee -a $O/blocking.txt
  done; done
done
echo "all done $SECONDS"
