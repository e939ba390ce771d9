#!/usr/bin/env bash
# Session 25, call 6 (nvidia-h100-x2 or -h200-x2): RSA-2048 over two
# engines at 65,536, M (884cf55) against N (bc7f15f, affine shards), three
# rounds alternating; X25519 async per call and frames with 16, 32 and 64
# submitters at one and two engines (N): are the 16 submitters the bound?
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/c6/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc-N bench server --ops x25519,rsa2048 --devices 1,2 --callers 16384 --forms blocking --seconds 0.5 --warmup 0.3 >/dev/null 2>&1   # kernels built on both cards
for round in 1 2 3; do for b in M N; do
  echo "== round $round build $b" | tee -a $O/rsa.txt
  ./gc-$b bench server --ops rsa2048 --devices 2 --callers 65536 --forms blocking,async --seconds 1.5 --warmup 0.5 2>/dev/null | tail -2 | tee -a $O/rsa.txt
done; done
for s in 16 32 64; do
  echo "== submitters $s" | tee -a $O/submitters.txt
  ./gc-N bench server --ops x25519 --devices 1,2 --callers 262144 --forms async,async-frames --submitters $s --seconds 2 --warmup 0.5 2>/dev/null | tail -4 | tee -a $O/submitters.txt
done
ls -la $O; echo "all done $SECONDS"
