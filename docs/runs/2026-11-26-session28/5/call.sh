#!/usr/bin/env bash
# Session 28 call 5, two GPUs: main 5d1b99d (Z: rsa.Server answers with
# batch.Parallel over several engines) as merged, one GPU and two, every
# form, three rounds.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/n/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cp before/n/call.sh $O/call.sh; cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc-Z bench server --ops x25519,rsa2048 --devices 1,2 --callers 16384 --forms blocking --seconds 0.3 --warmup 0.2 >/dev/null 2>&1
echo "warm $SECONDS" | tee -a $O/info.txt
for round in 1 2 3; do
  echo "== round $round build Z" | tee -a $O/z.txt
  ./gc-Z bench server --ops x25519 --devices 1,2 --callers 262144 --forms async-frames --seconds 1.5 --warmup 0.5 2>/dev/null | grep '^ *x25519' | tee -a $O/z.txt
  ./gc-Z bench server --ops x25519 --devices 1,2 --callers 16384,65536 --forms blocking,async --seconds 1.5 --warmup 0.5 2>/dev/null | grep '^ *x25519' | tee -a $O/z.txt
  ./gc-Z bench server --ops rsa2048 --devices 1,2 --callers 16384,65536 --forms blocking,async --seconds 1.5 --warmup 0.5 2>/dev/null | grep '^ *rsa' | tee -a $O/z.txt
done
echo "all done $SECONDS" | tee -a $O/info.txt
