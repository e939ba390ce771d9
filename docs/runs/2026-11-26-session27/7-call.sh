#!/usr/bin/env bash
# Session 27 call 7, two GPUs: main 3b2d09f (M) frames at one and two
# GPUs, three rounds, and CPU profiles of frames at one and two GPUs.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/h/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cp before/h/call.sh $O/call.sh; cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc-M bench server --ops x25519 --devices 1,2 --callers 16384 --forms blocking --seconds 0.3 --warmup 0.2 >/dev/null 2>&1
echo "warm $SECONDS" | tee -a $O/info.txt
for round in 1 2 3; do
  echo "== round $round build M" | tee -a $O/frames.txt
  ./gc-M bench server --ops x25519 --devices 1,2 --callers 262144 --forms async-frames --seconds 1.2 --warmup 0.4 2>/dev/null | grep '^ *x25519' | tee -a $O/frames.txt
done
for d in 1 2; do
  ./gc-M bench server --ops x25519 --devices $d --callers 262144 --forms async-frames --seconds 1.5 --warmup 0.5 --cpuprofile $O/frames-$d-M.prof 2>/dev/null | grep '^ *x25519' | tee -a $O/profiled.txt
done
echo "all done $SECONDS" | tee -a $O/info.txt
