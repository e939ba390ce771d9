#!/usr/bin/env bash
# Session 25, call 2 (nvidia-h100-x2): is the blocking callers' ceiling
# the Go runtime's on this host? Bare goroutine turnaround and the Batcher
# over instant and H100-shaped simulated devices (no GPU), at GOMAXPROCS
# 32 and 16; the real X25519 Server at GOMAXPROCS 8/16/24/32; a schedtrace
# and /proc/stat (steal, idle) around a run.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/c2/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; lscpu | grep -E "Model name|Thread|Core|Socket|NUMA node"; } | tee $O/info.txt
./gc-M bench server --ops x25519 --devices 1,2 --callers 16384 --forms blocking --seconds 0.5 --warmup 0.3 >/dev/null 2>&1   # kernels built on both cards
for p in 32 16; do
  GOMAXPROCS=$p ./batch.test -test.run XXX -test.bench 'SimulatedCallers/(x25519-h100|x25519-2xh100|instant)|GoroutineTurnaround' -test.benchtime 2s 2>&1 | grep Benchmark | sed "s/^/P$p /" | tee -a $O/sim.txt
done
for round in 1 2; do for p in 8 16 24 32; do
  echo "== round $round GOMAXPROCS=$p" | tee -a $O/procs.txt
  GOMAXPROCS=$p ./gc-M bench server --ops x25519 --devices 1,2 --callers 65536 --forms blocking,async --seconds 1.5 --warmup 0.5 2>/dev/null | tail -4 | tee -a $O/procs.txt
done; done
head -1 /proc/stat > $O/stat-before.txt
GODEBUG=schedtrace=50 ./gc-M bench server --ops x25519 --devices 2 --callers 65536 --forms blocking --seconds 1.5 --warmup 0.5 > $O/schedtrace.txt 2>&1
head -1 /proc/stat > $O/stat-after.txt
vmstat 1 4 > $O/vmstat-idle.txt
( vmstat 1 5 > $O/vmstat-run.txt ) & ./gc-M bench server --ops x25519 --devices 2 --callers 65536 --forms blocking --seconds 3 --warmup 0.5 2>/dev/null | tail -1 | tee -a $O/procs.txt; wait
xz -T0 -6 $O/schedtrace.txt
ls -la $O; echo "all done $SECONDS"
