#!/usr/bin/env bash
# The twenty-fifth session's first device call (nvidia-h100-x2): X25519
# blocking behind one Server, M (main) against A (answer-lists) and K
# (key-lists), one and two engines, three rounds alternating; then a CPU profile of each at two
# engines and a 0.5 s runtime/trace of M's (go tool trace: where the
# blocking callers wait while 20 of 32 threads idle).
# Build: bash before/build-next.sh; carry ["before/b"]; run: bash before/b/call.sh.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/b/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc-M bench server --ops x25519 --devices 1,2 --callers 16384 --forms blocking --seconds 0.5 --warmup 0.3 >/dev/null 2>&1   # kernels built on both cards
for round in 1 2 3; do for b in M A K AK; do
  echo "== round $round build $b" | tee -a $O/ab.txt
  ./gc-$b bench server --ops x25519 --devices 1,2 --callers 65536,262144 --forms blocking --seconds 1.5 --warmup 0.5 2>/dev/null | tail -4 | tee -a $O/ab.txt
done
  for g in 400 off; do echo "== round $round build M GOGC=$g" | tee -a $O/ab.txt
  GOGC=$g ./gc-M bench server --ops x25519 --devices 1,2 --callers 65536,262144 --forms blocking --seconds 1.5 --warmup 0.5 2>/dev/null | tail -4 | tee -a $O/ab.txt; done
done
for b in M AK; do ./gc-$b bench server --ops x25519 --devices 2 --callers 65536 --forms blocking --seconds 2 --warmup 0.5 --cpuprofile $O/blocking-2-$b.prof 2>/dev/null | tail -1 | tee -a $O/profiled.txt; done
./gc-M bench server --ops x25519 --devices 2 --callers 65536 --forms blocking --seconds 0.3 --warmup 0.3 --trace $O/blocking-2-M.trace 2>/dev/null | tail -1 | tee -a $O/profiled.txt; xz -T0 -3 $O/blocking-2-M.trace
./gc-M bench server --ops x25519 --devices 2 --callers 65536 --forms async --seconds 0.3 --warmup 0.3 --trace $O/async-2-M.trace 2>/dev/null | tail -1 | tee -a $O/profiled.txt; xz -T0 -3 $O/async-2-M.trace
ls -la $O; echo "all done $SECONDS"
