#!/usr/bin/env bash
# Session 25, call 8 (nvidia-h100-x2 or -h200-x2), main bc7f15f: X25519
# frames at one and two engines, 262,144 and 524,288 in flight, with 4
# (the default), 8 and 16 batches in flight per engine (--pipeline): the
# trace of call 7 showed each worker's batch as host work then device
# wait, one after the other, and the cores mostly idle.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/c8/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc-N bench server --ops x25519 --devices 1,2 --callers 16384 --forms async-frames --seconds 0.5 --warmup 0.3 >/dev/null 2>&1   # kernels built on both cards
for p in 4 8 16; do
  echo "== pipeline $p" | tee -a $O/pipeline.txt
  ./gc-N bench server --ops x25519 --devices 1,2 --callers 262144,524288 --forms async-frames --pipeline $p --seconds 2 --warmup 0.5 2>/dev/null | tail -4 | tee -a $O/pipeline.txt
done
echo "== pipeline 8, async and blocking at 65,536" | tee -a $O/pipeline.txt
./gc-N bench server --ops x25519 --devices 1,2 --callers 65536 --forms blocking,async --pipeline 8 --seconds 1.5 --warmup 0.5 2>/dev/null | tail -4 | tee -a $O/pipeline.txt
ls -la $O; echo "all done $SECONDS"
