#!/usr/bin/env bash
# Session 28 call 1, one H100: main 3005ca8 (H: latency buckets of 3–6%)
# RSA-2048 at 16,384 callers (the 910K target, p99 against 2 × p50), with
# the default Pipeline 2 and with 3; the Engine's pipelined rate; a lone
# caller; X25519 for the record; a CPU profile of RSA blocking.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/j/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cp before/j/call.sh $O/call.sh; cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc-H bench server --ops x25519,rsa2048 --callers 16384 --forms blocking --seconds 0.3 --warmup 0.2 >/dev/null 2>&1
echo "warm $SECONDS" | tee -a $O/info.txt
./gc-H bench rsa --ops rsa2048 --batch 8192,16384 2>&1 | tee $O/engine.txt
echo "engine $SECONDS" | tee -a $O/info.txt
for round in 1 2 3 4; do
  echo "== round $round pipeline 2" | tee -a $O/rsa.txt
  ./gc-H bench server --ops rsa2048 --callers 16384 --forms blocking,async --seconds 1.5 --warmup 0.5 2>/dev/null | grep '^ *rsa' | tee -a $O/rsa.txt
  echo "== round $round pipeline 3" | tee -a $O/rsa.txt
  ./gc-H bench server --ops rsa2048 --callers 16384 --forms blocking --pipeline 3 --seconds 1.5 --warmup 0.5 2>/dev/null | grep '^ *rsa' | tee -a $O/rsa.txt
done
echo "rsa $SECONDS" | tee -a $O/info.txt
./gc-H bench server --ops rsa2048 --callers 1,65536 --forms blocking --seconds 1.5 --warmup 0.5 2>/dev/null | grep '^ *rsa' | tee -a $O/rsa.txt
./gc-H bench server --ops rsa2048 --callers 16384 --forms blocking --seconds 3 --warmup 0.5 --cpuprofile $O/rsa-blocking-16k.prof 2>/dev/null | grep '^ *rsa' | tee -a $O/rsa.txt
for round in 1 2; do
  ./gc-H bench server --ops x25519 --callers 16384,65536 --forms blocking,async --seconds 1.5 --warmup 0.5 2>/dev/null | grep '^ *x25519' | tee -a $O/x25519.txt
  ./gc-H bench server --ops x25519 --callers 262144 --forms async-frames --seconds 1.5 --warmup 0.5 2>/dev/null | grep '^ *x25519' | tee -a $O/x25519.txt
done
echo "all done $SECONDS" | tee -a $O/info.txt
