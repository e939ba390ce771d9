#!/usr/bin/env bash
# Session 25, call 3 (nvidia-h100-x2): M (main) against F (sampled-full:
# the queue's limit checked from eight shards) and P (affine-shards: a
# request's shard from a per-core hint), X25519 blocking/async/frames at
# one and two engines, three rounds; RSA-2048 at 16,384 one round; a CPU
# profile of M's frames at two engines; the runtime's lock contention in
# the bare goroutine turnaround (mutex profile with runtime stacks).
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/c3/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc-M bench server --ops x25519,rsa2048 --devices 1,2 --callers 16384 --forms blocking --seconds 0.5 --warmup 0.3 >/dev/null 2>&1   # kernels built on both cards
GODEBUG=runtimecontentionstacks=1 ./batch.test -test.run XXX -test.bench 'GoroutineTurnaround/.*answerers=32' -test.benchtime 2s -test.mutexprofile $O/turnaround-mutex.prof -test.mutexprofilefraction 1 2>&1 | grep Benchmark | tee $O/turnaround.txt
for round in 1 2 3; do for b in M F P; do
  echo "== round $round build $b" | tee -a $O/ab.txt
  ./gc-$b bench server --ops x25519 --devices 1,2 --callers 65536,262144 --forms blocking,async,async-frames --seconds 1 --warmup 0.4 2>/dev/null | tail -12 | tee -a $O/ab.txt
done; done
for b in M F P; do
  echo "== build $b" | tee -a $O/rsa.txt
  ./gc-$b bench server --ops rsa2048 --devices 1,2 --callers 16384 --forms blocking,async --seconds 1.5 --warmup 0.5 2>/dev/null | tail -4 | tee -a $O/rsa.txt
done
./gc-M bench server --ops x25519 --devices 2 --callers 262144 --forms async-frames --seconds 2 --warmup 0.5 --cpuprofile $O/frames-2-M.prof 2>/dev/null | tail -1 | tee -a $O/profiled.txt
( vmstat 1 4 > $O/vmstat-frames.txt ) & ./gc-M bench server --ops x25519 --devices 2 --callers 262144 --forms async-frames --seconds 3 --warmup 0.5 2>/dev/null | tail -1 | tee -a $O/profiled.txt; wait
( vmstat 1 4 > $O/vmstat-async.txt ) & ./gc-M bench server --ops x25519 --devices 2 --callers 65536 --forms async --seconds 3 --warmup 0.5 2>/dev/null | tail -1 | tee -a $O/profiled.txt; wait
ls -la $O; echo "all done $SECONDS"
