#!/usr/bin/env bash
# Session 27 call 2: N (main bbc4446) against S (take-spares: a shard
# taken whole is swapped for its spare list, the copy after the taking
# lock, the list given back) on X25519's three forms, three rounds, and
# frames over two GPUs with MaxBatch 32,768; N against R
# (rsa-answer-hybrid) on RSA-2048 again, two rounds; profiles of frames
# over two GPUs.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/c/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cp before/c/call.sh $O/call.sh; cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc-N bench server --ops x25519,rsa2048 --devices 1,2 --callers 16384 --forms blocking --seconds 0.3 --warmup 0.2 >/dev/null 2>&1
echo "warm $SECONDS" | tee -a $O/info.txt
for round in 1 2 3; do for b in N S; do
  echo "== round $round build $b" | tee -a $O/x25519.txt
  ./gc-$b bench server --ops x25519 --devices 1,2 --callers 16384,65536 --forms blocking --seconds 1.2 --warmup 0.4 2>/dev/null | grep '^ *x25519' | tee -a $O/x25519.txt
  ./gc-$b bench server --ops x25519 --devices 1,2 --callers 65536 --forms async --seconds 1.2 --warmup 0.4 2>/dev/null | grep '^ *x25519' | tee -a $O/x25519.txt
  ./gc-$b bench server --ops x25519 --devices 1,2 --callers 262144 --forms async-frames --seconds 1.2 --warmup 0.4 2>/dev/null | grep '^ *x25519' | tee -a $O/x25519.txt
  echo "-- max-batch 32768" | tee -a $O/x25519.txt
  ./gc-$b bench server --ops x25519 --devices 2 --callers 262144 --forms async-frames --max-batch 32768 --seconds 1.2 --warmup 0.4 2>/dev/null | grep '^ *x25519' | tee -a $O/x25519.txt
done; done
echo "x25519 done $SECONDS" | tee -a $O/info.txt
for round in 1 2; do for b in N R; do
  echo "== round $round build $b" | tee -a $O/rsa.txt
  ./gc-$b bench server --ops rsa2048 --devices 1 --callers 16384 --forms blocking --seconds 1.5 --warmup 0.5 2>/dev/null | grep '^ *rsa' | tee -a $O/rsa.txt
  ./gc-$b bench server --ops rsa2048 --devices 2 --callers 65536 --forms blocking --seconds 1.5 --warmup 0.5 2>/dev/null | grep '^ *rsa' | tee -a $O/rsa.txt
done; done
echo "rsa done $SECONDS" | tee -a $O/info.txt
./gc-S bench server --ops x25519 --devices 2 --callers 262144 --forms async-frames --seconds 1.5 --warmup 0.5 --cpuprofile $O/frames-2-S.prof 2>/dev/null | grep '^ *x25519' | tee -a $O/profiled.txt
./gc-N bench server --ops x25519 --devices 2 --callers 262144 --forms async-frames --seconds 1.5 --warmup 0.5 --cpuprofile $O/frames-2-N.prof 2>/dev/null | grep '^ *x25519' | tee -a $O/profiled.txt
echo "all done $SECONDS" | tee -a $O/info.txt
