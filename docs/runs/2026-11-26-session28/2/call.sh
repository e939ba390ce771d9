#!/usr/bin/env bash
# Session 28 call 2, two GPUs: main 3005ca8 (H) against P (take-spares over
# the take that resumes, 874e558): X25519 frames, blocking and async at one
# and two GPUs, three rounds alternating; RSA-2048 at 65,536 over one and two
# GPUs, the default answering (pieces of 128, worker alongside) against
# --answer-piece -1 (batch.Parallel), three rounds; profiles of frames.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/k/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cp before/k/call.sh $O/call.sh; cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc-H bench server --ops x25519,rsa2048 --devices 1,2 --callers 16384 --forms blocking --seconds 0.3 --warmup 0.2 >/dev/null 2>&1
echo "warm $SECONDS" | tee -a $O/info.txt
for round in 1 2 3; do for b in H P; do
  echo "== round $round build $b" | tee -a $O/ab.txt
  ./gc-$b bench server --ops x25519 --devices 1,2 --callers 262144 --forms async-frames --seconds 1.2 --warmup 0.4 2>/dev/null | grep '^ *x25519' | tee -a $O/ab.txt
  ./gc-$b bench server --ops x25519 --devices 1,2 --callers 65536 --forms blocking,async --seconds 1.2 --warmup 0.4 2>/dev/null | grep '^ *x25519' | tee -a $O/ab.txt
done; done
echo "x25519 $SECONDS" | tee -a $O/info.txt
for round in 1 2 3; do for p in 0 -1; do
  echo "== round $round answer-piece $p" | tee -a $O/rsa.txt
  ./gc-H bench server --ops rsa2048 --devices 1,2 --callers 65536 --forms blocking --answer-piece $p --seconds 1.5 --warmup 0.5 2>/dev/null | grep '^ *rsa' | tee -a $O/rsa.txt
done; done
echo "rsa $SECONDS" | tee -a $O/info.txt
for b in H P; do
  ./gc-$b bench server --ops x25519 --devices 2 --callers 262144 --forms async-frames --seconds 3 --warmup 0.5 --cpuprofile $O/frames-2-$b.prof 2>/dev/null | grep '^ *x25519' | tee -a $O/prof.txt
done
echo "all done $SECONDS" | tee -a $O/info.txt
