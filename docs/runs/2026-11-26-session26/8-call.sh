#!/usr/bin/env bash
# Session 26 call 8: answer pieces for every Server (M, e7a1d17, branch
# answer-pieces-all) against the session's start (N, 601098d): RSA-2048
# and X25519 blocking, two rounds alternating; the turnaround and
# simulated benchmarks of M's batch.test.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/c/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done; cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./batch.test -test.run XXX -test.bench 'GoroutineTurnaround/callers=65536/answerers=32/' -test.benchtime 1s 2>&1 | grep Benchmark | tee $O/turnaround.txt
./batch.test -test.run XXX -test.bench 'SimulatedCallers/(instant|x25519-h100|x25519-2xh100)/' -test.benchtime 1s 2>&1 | grep Benchmark | tee $O/sim.txt
./gc-N bench server --ops x25519,rsa2048 --devices 1,2 --callers 16384 --forms blocking --seconds 0.5 --warmup 0.3 >/dev/null 2>&1
for round in 1 2; do for b in N M; do
  echo "== round $round build $b" | tee -a $O/ab.txt
  ./gc-$b bench server --ops rsa2048 --devices 1 --callers 16384 --forms blocking --seconds 1.5 --warmup 0.5 2>/dev/null | tail -1 | tee -a $O/ab.txt
  ./gc-$b bench server --ops rsa2048 --devices 2 --callers 65536 --forms blocking,async --seconds 1.5 --warmup 0.5 2>/dev/null | tail -2 | tee -a $O/ab.txt
  ./gc-$b bench server --ops x25519 --devices 1,2 --callers 16384,65536 --forms blocking --seconds 1.5 --warmup 0.5 2>/dev/null | tail -4 | tee -a $O/ab.txt
done; done
echo "all done $SECONDS"
