#!/usr/bin/env bash
# Session 25, call 5 (nvidia-h100-x2 or -h200-x2): on one host, the bare
# goroutine turnaround, the Batcher over instant and H100-shaped simulated
# devices, and the X25519 Server's blocking callers (main bc7f15f), with a
# CPU profile and 0.3 s traces at one and two engines and vmstat: what
# bounds the blocking form where the runtime's ceiling is well above it.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/c5/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc-N bench server --ops x25519 --devices 1,2 --callers 16384 --forms blocking --seconds 0.5 --warmup 0.3 >/dev/null 2>&1   # kernels built on both cards
./batch.test -test.run XXX -test.bench 'SimulatedCallers/(x25519-h100|x25519-2xh100|instant)|GoroutineTurnaround' -test.benchtime 2s 2>&1 | grep Benchmark | tee $O/sim.txt
./gc-N bench server --ops x25519 --devices 1,2 --callers 65536 --forms blocking --seconds 1.5 --warmup 0.5 2>/dev/null | tail -2 | tee $O/blocking.txt
./gc-N bench server --ops x25519 --devices 1 --callers 65536 --forms blocking --seconds 2 --warmup 0.5 --cpuprofile $O/blocking-1.prof 2>/dev/null | tail -1 | tee -a $O/profiled.txt
for d in 1 2; do ./gc-N bench server --ops x25519 --devices $d --callers 65536 --forms blocking --seconds 0.3 --warmup 0.3 --trace $O/blocking-$d.trace 2>/dev/null | tail -1 | tee -a $O/profiled.txt; done
( vmstat 1 4 > $O/vmstat-blocking.txt ) & ./gc-N bench server --ops x25519 --devices 1 --callers 65536 --forms blocking --seconds 3 --warmup 0.5 2>/dev/null | tail -1 | tee -a $O/profiled.txt; wait
xz -T0 -3 $O/*.trace
ls -la $O; echo "all done $SECONDS"
