#!/usr/bin/env bash
# Session 25, call 4 (nvidia-h100-x2): main with affine shards (N, bc7f15f)
# against main before it (M, 884cf55), longer windows, two rounds: X25519
# blocking and async per call at 65,536, frames at 262,144 over 3 s, one
# engine and two; RSA-2048 at 16,384 and 65,536; the runtime's lock
# contention in the bare goroutine turnaround (mutex profile with runtime
# stacks).
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/c4/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cp before/c4/batch.test /tmp/; chmod +x /tmp/batch.test
cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc-N bench server --ops x25519,rsa2048 --devices 1,2 --callers 16384 --forms blocking --seconds 0.5 --warmup 0.3 >/dev/null 2>&1   # kernels built on both cards
GODEBUG=runtimecontentionstacks=1 ./batch.test -test.run XXX -test.bench 'GoroutineTurnaround/callers=65536/answerers=32' -test.benchtime 2s -test.mutexprofile $O/turnaround-mutex.prof -test.mutexprofilefraction 1 2>&1 | grep Benchmark | tee $O/turnaround.txt
for round in 1 2; do for b in M N; do
  echo "== round $round build $b" | tee -a $O/ab.txt
  ./gc-$b bench server --ops x25519 --devices 1,2 --callers 65536 --forms blocking,async --seconds 1.5 --warmup 0.5 2>/dev/null | tail -4 | tee -a $O/ab.txt
  ./gc-$b bench server --ops x25519 --devices 1,2 --callers 262144 --forms async-frames --seconds 3 --warmup 0.5 2>/dev/null | tail -2 | tee -a $O/ab.txt
done; done
for b in M N; do
  echo "== build $b" | tee -a $O/rsa.txt
  ./gc-$b bench server --ops rsa2048 --devices 1,2 --callers 16384,65536 --forms blocking,async --seconds 1.5 --warmup 0.5 2>/dev/null | tail -8 | tee -a $O/rsa.txt
done
ls -la $O; echo "all done $SECONDS"
