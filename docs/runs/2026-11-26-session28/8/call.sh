#!/usr/bin/env bash
# Session 28 call 8, two GPUs: main 5d1b99d (Z) against X (1a3ce3e, branch
# pipeline-full: ecdh.Server runs four more batches per engine when they
# are full, batch.Options.PipelineFull), X25519 frames at 262,144, blocking
# and async at 16,384 and 65,536, one and two GPUs; three rounds alternating.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/q/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cp before/q/call.sh $O/call.sh; cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc-Z bench server --ops x25519 --devices 1,2 --callers 16384 --forms blocking --seconds 0.3 --warmup 0.2 >/dev/null 2>&1
echo "warm $SECONDS" | tee -a $O/info.txt
for round in 1 2 3; do for b in Z X; do
  echo "== round $round build $b" | tee -a $O/ab.txt
  ./gc-$b bench server --ops x25519 --devices 1,2 --callers 262144 --forms async-frames --seconds 1.2 --warmup 0.4 2>/dev/null | grep '^ *x25519' | tee -a $O/ab.txt
  ./gc-$b bench server --ops x25519 --devices 1,2 --callers 16384,65536 --forms blocking,async --seconds 1.2 --warmup 0.4 2>/dev/null | grep '^ *x25519' | tee -a $O/ab.txt
done; echo "round $round $SECONDS" | tee -a $O/info.txt; done
echo "all done $SECONDS" | tee -a $O/info.txt
