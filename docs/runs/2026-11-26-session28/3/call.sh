#!/usr/bin/env bash
# Session 28 call 3, two GPUs: main 3005ca8 (H), rsa.Server's answering by
# flag: the default (pieces of 128, the worker alongside) against
# --answer-piece -1 (batch.Parallel), RSA-2048 blocking and async at 16,384
# and 65,536 callers over one and two GPUs, three rounds alternating;
# profiles of X25519 blocking and async over two GPUs.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/l/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cp before/l/call.sh $O/call.sh; cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc-H bench server --ops x25519,rsa2048 --devices 1,2 --callers 16384 --forms blocking --seconds 0.3 --warmup 0.2 >/dev/null 2>&1
echo "warm $SECONDS" | tee -a $O/info.txt
for round in 1 2 3; do for p in 0 -1; do
  echo "== round $round answer-piece $p" | tee -a $O/rsa.txt
  ./gc-H bench server --ops rsa2048 --devices 1,2 --callers 16384,65536 --forms blocking,async --answer-piece $p --seconds 1.5 --warmup 0.5 2>/dev/null | grep '^ *rsa' | tee -a $O/rsa.txt
done; done
echo "rsa $SECONDS" | tee -a $O/info.txt
./gc-H bench server --ops x25519 --devices 2 --callers 65536 --forms blocking --seconds 3 --warmup 0.5 --cpuprofile $O/x25519-blocking-2.prof 2>/dev/null | grep '^ *x25519' | tee -a $O/prof.txt
./gc-H bench server --ops x25519 --devices 2 --callers 65536 --forms async --seconds 3 --warmup 0.5 --cpuprofile $O/x25519-async-2.prof 2>/dev/null | grep '^ *x25519' | tee -a $O/prof.txt
echo "all done $SECONDS" | tee -a $O/info.txt
