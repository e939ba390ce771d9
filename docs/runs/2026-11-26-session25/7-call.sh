#!/usr/bin/env bash
# Session 25, call 7 (nvidia-h100-x2 or -h200-x2), main bc7f15f: X25519
# frames at one and two engines with 262,144 and 524,288 calls in flight,
# default options and MaxBatch 65,536; a CPU profile and a 0.3 s trace of
# frames at two engines: what bounds frames over two GPUs.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/c7/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc-N bench server --ops x25519 --devices 1,2 --callers 16384 --forms async-frames --seconds 0.5 --warmup 0.3 >/dev/null 2>&1   # kernels built on both cards
./gc-N bench server --ops x25519 --devices 1,2 --callers 262144,524288 --forms async-frames --seconds 2 --warmup 0.5 2>/dev/null | tail -4 | tee $O/frames.txt
./gc-N bench server --ops x25519 --devices 1,2 --callers 262144,524288 --forms async-frames --max-batch 65536 --seconds 2 --warmup 0.5 2>/dev/null | tail -4 | tee $O/frames-65536.txt
./gc-N bench server --ops x25519 --devices 2 --callers 262144 --forms async-frames --seconds 2 --warmup 0.5 --cpuprofile $O/frames-2.prof 2>/dev/null | tail -1 | tee $O/profiled.txt
./gc-N bench server --ops x25519 --devices 2 --callers 262144 --forms async-frames --seconds 0.3 --warmup 0.5 --trace $O/frames-2.trace 2>/dev/null | tail -1 | tee -a $O/profiled.txt
xz -T0 -3 $O/frames-2.trace
ls -la $O; echo "all done $SECONDS"
