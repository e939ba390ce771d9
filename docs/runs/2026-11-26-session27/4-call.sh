#!/usr/bin/env bash
# Session 27 call 4, one H100 (16 cores): RSA-2048 through rsa.Server at
# 16,384 blocking callers and asynchronously, N (bbc4446) against A
# (7b26b40: pieces of 128 with the worker alongside, rsa.Server's new
# default), three rounds; a lone caller; the Engine's own rates (bench
# rsa); X25519 through ecdh.Server (unchanged by A), two rounds.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/e/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cp before/e/call.sh $O/call.sh; cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc-N bench server --ops x25519,rsa2048 --devices 1 --callers 16384 --forms blocking --seconds 0.3 --warmup 0.2 >/dev/null 2>&1
echo "warm $SECONDS" | tee -a $O/info.txt
./gc-A bench rsa --ops rsa2048 --batch 8192,16384,65536 --seconds 1 2>&1 | tee $O/engine-rsa.txt
for round in 1 2 3; do for b in N A; do
  echo "== round $round build $b" | tee -a $O/rsa.txt
  ./gc-$b bench server --ops rsa2048 --devices 1 --callers 16384 --forms blocking,async --seconds 1.5 --warmup 0.5 2>/dev/null | grep '^ *rsa' | tee -a $O/rsa.txt
done; done
for b in N A; do
  echo "== lone caller build $b" | tee -a $O/rsa.txt
  ./gc-$b bench server --ops rsa2048 --devices 1 --callers 1 --forms blocking --seconds 1.5 --warmup 0.5 2>/dev/null | grep '^ *rsa' | tee -a $O/rsa.txt
done
echo "rsa done $SECONDS" | tee -a $O/info.txt
for round in 1 2; do
  echo "== round $round build A" | tee -a $O/x25519.txt
  ./gc-A bench server --ops x25519 --devices 1 --callers 16384,65536 --forms blocking --seconds 1.2 --warmup 0.4 2>/dev/null | grep '^ *x25519' | tee -a $O/x25519.txt
  ./gc-A bench server --ops x25519 --devices 1 --callers 65536 --forms async --seconds 1.2 --warmup 0.4 2>/dev/null | grep '^ *x25519' | tee -a $O/x25519.txt
  ./gc-A bench server --ops x25519 --devices 1 --callers 262144 --forms async-frames --seconds 1.2 --warmup 0.4 2>/dev/null | grep '^ *x25519' | tee -a $O/x25519.txt
done
echo "all done $SECONDS" | tee -a $O/info.txt
