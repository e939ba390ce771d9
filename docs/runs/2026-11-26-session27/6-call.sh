#!/usr/bin/env bash
# Session 27 call 6, two GPUs: A (7b26b40: rsa.Server's pieces with the
# worker alongside) against M (3b2d09f: A and a take that starts where the
# last one stopped), RSA-2048 and X25519 through the Servers at one and
# two GPUs, two rounds alternating.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/g/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cp before/g/call.sh $O/call.sh; cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc-A bench server --ops x25519,rsa2048 --devices 1,2 --callers 16384 --forms blocking --seconds 0.3 --warmup 0.2 >/dev/null 2>&1
echo "warm $SECONDS" | tee -a $O/info.txt
for round in 1 2; do for b in A M; do
  echo "== round $round build $b" | tee -a $O/ab.txt
  ./gc-$b bench server --ops rsa2048 --devices 1,2 --callers 16384,65536 --forms blocking --seconds 1.5 --warmup 0.5 2>/dev/null | grep '^ *rsa' | tee -a $O/ab.txt
  ./gc-$b bench server --ops x25519 --devices 1,2 --callers 65536 --forms blocking,async --seconds 1.2 --warmup 0.4 2>/dev/null | grep '^ *x25519' | tee -a $O/ab.txt
  ./gc-$b bench server --ops x25519 --devices 1,2 --callers 262144 --forms async-frames --seconds 1.2 --warmup 0.4 2>/dev/null | grep '^ *x25519' | tee -a $O/ab.txt
done; done
echo "all done $SECONDS" | tee -a $O/info.txt
