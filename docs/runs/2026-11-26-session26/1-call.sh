#!/usr/bin/env bash
# The twenty-sixth session's first device call (two GPUs, 32 threads): what
# bounds the blocking X25519 Server at about 3.1M/s on hosts whose Go
# runtime turns goroutines around at 9.5-12M/s (session 25, calls 4 and
# 9). First the host's class (bare turnaround); then the Batcher over
# instant and H100-shaped simulated devices; the Server blocking at
# 65,536 with GOGC 100/400/off, N against K; a CPU profile and a 0.3 s
# trace at one engine. Then N against C (cached-total) on async per call
# and frames, three rounds.
# Build: bash before/build-next.sh; carry ["before/b"]; run: bash before/b/call.sh.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/b/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; lscpu | grep -E 'Model name|Socket|NUMA node|Thread'; uname -r; } | tee $O/info.txt
./batch.test -test.run XXX -test.bench 'GoroutineTurnaround|SimulatedCallers/(instant|x25519-h100|x25519-2xh100)/' -test.benchtime 2s 2>&1 | grep Benchmark | tee $O/sim.txt
./gc-N bench server --ops x25519 --devices 1,2 --callers 16384 --forms blocking --seconds 0.5 --warmup 0.3 >/dev/null 2>&1   # kernels built on both cards
for round in 1 2; do for b in N K; do for g in 100 400 off; do
  echo "== round $round build $b GOGC=$g" | tee -a $O/ab.txt
  GOGC=$g ./gc-$b bench server --ops x25519 --devices 1,2 --callers 65536 --forms blocking --seconds 1.5 --warmup 0.5 2>/dev/null | tail -2 | tee -a $O/ab.txt
done; done; done
for round in 1 2 3; do for b in N C; do
  echo "== round $round build $b" | tee -a $O/async.txt
  ./gc-$b bench server --ops x25519 --devices 1,2 --callers 65536 --forms async,async-frames --seconds 1.5 --warmup 0.5 2>/dev/null | tail -4 | tee -a $O/async.txt
done; done
./gc-N bench server --ops x25519 --devices 1 --callers 65536 --forms blocking --seconds 2 --warmup 0.5 --cpuprofile $O/blocking-1.prof 2>/dev/null | tail -1 | tee -a $O/profiled.txt
./gc-N bench server --ops x25519 --devices 1 --callers 65536 --forms blocking --seconds 0.3 --warmup 0.5 --trace $O/blocking-1.trace 2>/dev/null | tail -1 | tee -a $O/profiled.txt
./gc-N bench server --ops x25519 --devices 2 --callers 65536 --forms blocking --seconds 2 --warmup 0.5 --cpuprofile $O/blocking-2.prof 2>/dev/null | tail -1 | tee -a $O/profiled.txt
./gc-N bench server --ops x25519 --devices 2 --callers 65536 --forms blocking --seconds 0.3 --warmup 0.5 --trace $O/blocking-2.trace 2>/dev/null | tail -1 | tee -a $O/profiled.txt
xz -T0 -3 $O/blocking-1.trace $O/blocking-2.trace
ls -la $O; echo "all done $SECONDS"
