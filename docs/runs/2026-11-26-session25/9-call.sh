#!/usr/bin/env bash
# Session 25, call 9: the bare goroutine turnaround (32 answerers) with and
# without the mutex profiler and runtime contention stacks, alternating,
# three rounds each, on one machine: did call 4's 9.47M/s come from the
# profiler or from its machine?
set -uo pipefail
mkdir -p $OUT/o; O=$OUT/o
xz -dc before/c9/batch.test.xz > /tmp/batch.test; chmod +x /tmp/batch.test; cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
for r in 1 2 3; do
  echo "== round $r plain" | tee -a $O/turnaround.txt
  ./batch.test -test.run XXX -test.bench 'GoroutineTurnaround/callers=65536/answerers=32' -test.benchtime 2s 2>&1 | grep Benchmark | tee -a $O/turnaround.txt
  echo "== round $r profiled" | tee -a $O/turnaround.txt
  GODEBUG=runtimecontentionstacks=1 ./batch.test -test.run XXX -test.bench 'GoroutineTurnaround/callers=65536/answerers=32' -test.benchtime 2s -test.mutexprofile /tmp/m.prof -test.mutexprofilefraction 1 2>&1 | grep Benchmark | tee -a $O/turnaround.txt
  echo "== round $r fraction only" | tee -a $O/turnaround.txt
  ./batch.test -test.run XXX -test.bench 'GoroutineTurnaround/callers=65536/answerers=32' -test.benchtime 2s -test.mutexprofile /tmp/m2.prof -test.mutexprofilefraction 1 2>&1 | grep Benchmark | tee -a $O/turnaround.txt
done
echo "all done $SECONDS"
