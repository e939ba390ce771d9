#!/usr/bin/env bash
# Session 26, a probe for a fast host: the bare turnaround first; on a slow
# host (< 6M/s) it stops there. On a fast one: what bounds the blocking
# X25519 Server there (GC? key-lists? the Batcher?).
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/b/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; lscpu | grep -E 'Model name|MHz|cache'; uname -r; } | tee $O/info.txt
./batch.test -test.run XXX -test.bench 'GoroutineTurnaround/callers=65536/answerers=32' -test.benchtime 1s 2>&1 | grep Benchmark | tee $O/probe.txt
rate=$(awk '{for(i=1;i<=NF;i++) if($i=="ops/s") print int($(i-1))}' $O/probe.txt | head -1)
echo "rate $rate"
if [ "${rate:-0}" -lt 6000000 ]; then echo SLOW; exit 0; fi
./batch.test -test.run XXX -test.bench 'GoroutineTurnaround|SimulatedCallers/(instant|x25519-h100|x25519-2xh100)/' -test.benchtime 2s 2>&1 | grep Benchmark | tee $O/sim.txt
./gc-N bench server --ops x25519 --devices 1,2 --callers 16384 --forms blocking --seconds 0.5 --warmup 0.3 >/dev/null 2>&1
for round in 1 2; do for b in N K; do for g in 100 off; do
  echo "== round $round build $b GOGC=$g" | tee -a $O/ab.txt
  GOGC=$g ./gc-$b bench server --ops x25519 --devices 1,2 --callers 16384,65536 --forms blocking --seconds 1.5 --warmup 0.5 2>/dev/null | tail -4 | tee -a $O/ab.txt
done; done; done
GODEBUG=gctrace=1 ./gc-N bench server --ops x25519 --devices 2 --callers 65536 --forms blocking --seconds 1.5 --warmup 0.5 2>$O/gctrace.txt | tail -1 | tee -a $O/profiled.txt
for g in 100 off; do
GOGC=$g ./gc-N bench server --ops x25519 --devices 2 --callers 65536 --forms blocking --seconds 2 --warmup 0.5 --cpuprofile $O/blocking-2-gogc$g.prof 2>/dev/null | tail -1 | tee -a $O/profiled.txt
done
./gc-N bench server --ops x25519 --devices 2 --callers 65536 --forms blocking --seconds 0.3 --warmup 0.5 --trace $O/blocking-2.trace 2>/dev/null | tail -1 | tee -a $O/profiled.txt
./batch.test -test.run XXX -test.bench 'GoroutineTurnaround/callers=65536/answerers=32' -test.benchtime 1s 2>&1 | grep Benchmark | tee -a $O/probe.txt
xz -T0 -3 $O/blocking-2.trace
ls -la $O; echo "all done $SECONDS"
