#!/usr/bin/env bash
# Session 28 call 4, two GPUs: main 3005ca8 (H) against W (4f4f197: a put
# sums the shards only where its shard holds its share of a full batch;
# rsa.Server answers with batch.Parallel over several engines), X25519 and
# RSA-2048 blocking and async at 16,384 and 65,536, frames at 262,144, one
# and two GPUs, three rounds alternating; a profile of W's async.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/m/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cp before/m/call.sh $O/call.sh; cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc-H bench server --ops x25519,rsa2048 --devices 1,2 --callers 16384 --forms blocking --seconds 0.3 --warmup 0.2 >/dev/null 2>&1
echo "warm $SECONDS" | tee -a $O/info.txt
for round in 1 2 3; do for b in H W; do
  echo "== round $round build $b" | tee -a $O/ab.txt
  ./gc-$b bench server --ops x25519 --devices 1,2 --callers 262144 --forms async-frames --seconds 1.2 --warmup 0.4 2>/dev/null | grep '^ *x25519' | tee -a $O/ab.txt
  ./gc-$b bench server --ops x25519 --devices 1,2 --callers 16384,65536 --forms blocking,async --seconds 1.2 --warmup 0.4 2>/dev/null | grep '^ *x25519' | tee -a $O/ab.txt
  ./gc-$b bench server --ops rsa2048 --devices 1,2 --callers 16384,65536 --forms blocking,async --seconds 1.5 --warmup 0.5 2>/dev/null | grep '^ *rsa' | tee -a $O/ab.txt
done; echo "round $round $SECONDS" | tee -a $O/info.txt; done
./gc-W bench server --ops x25519 --devices 2 --callers 65536 --forms async --seconds 3 --warmup 0.5 --cpuprofile $O/x25519-async-2-W.prof 2>/dev/null | grep '^ *x25519' | tee -a $O/prof.txt
./gc-W bench server --ops x25519 --devices 2 --callers 65536 --forms blocking --seconds 3 --warmup 0.5 --cpuprofile $O/x25519-blocking-2-W.prof 2>/dev/null | grep '^ *x25519' | tee -a $O/prof.txt
echo "all done $SECONDS" | tee -a $O/info.txt
