#!/usr/bin/env bash
# Session 26 call 6: (A) does a process's past (dead goroutines, their
# stacks) slow the runtime's turnaround; (B) frames with more in flight;
# (C) Pipeline 8 and MaxBatch 32,768 apart, every form, two rounds.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
xz -dc before/c/gc-N.xz > /tmp/gc-N; chmod +x /tmp/gc-N; cp before/c/turn /tmp/turn; cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
t() { echo "== $*" | tee -a $O/turn.txt; env "$@" 2>&1 | awk '{print}' | tail -8 | tee -a $O/turn.txt; }
t X=1 ./turn -seconds 3 -interval 375ms
t X=1 ./turn -seconds 3 -interval 375ms -pre deep
t X=1 ./turn -seconds 3 -interval 375ms -pre shallow
t GODEBUG=adaptivestackstart=0 ./turn -seconds 3 -interval 375ms -pre deep
t X=1 ./turn -seconds 3 -interval 375ms -depth 6
t X=1 ./turn -seconds 3 -interval 375ms
./gc-N bench server --ops x25519 --devices 1,2 --callers 16384 --forms blocking,async-frames --seconds 0.5 --warmup 0.3 >/dev/null 2>&1
for round in 1 2; do
  for cfg in "0 0" "32768 8"; do set -- $cfg
    echo "== round $round frames in flight, max-batch $1 pipeline $2" | tee -a $O/inflight.txt
    ./gc-N bench server --ops x25519 --devices 1,2 --callers 262144,1048576 --forms async-frames --max-batch $1 --pipeline $2 --seconds 1.5 --warmup 0.5 2>/dev/null | tail -4 | tee -a $O/inflight.txt
  done
  for cfg in "0 0" "0 8" "32768 0"; do set -- $cfg
    echo "== round $round max-batch $1 pipeline $2" | tee -a $O/knobs.txt
    ./gc-N bench server --ops x25519 --devices 1,2 --callers 16384 --forms blocking --max-batch $1 --pipeline $2 --seconds 1.5 --warmup 0.5 2>/dev/null | tail -2 | tee -a $O/knobs.txt
    ./gc-N bench server --ops x25519 --devices 1,2 --callers 65536 --forms async --max-batch $1 --pipeline $2 --seconds 1.5 --warmup 0.5 2>/dev/null | tail -2 | tee -a $O/knobs.txt
    ./gc-N bench server --ops x25519 --devices 1,2 --callers 262144 --forms async-frames --max-batch $1 --pipeline $2 --seconds 1.5 --warmup 0.5 2>/dev/null | tail -2 | tee -a $O/knobs.txt
  done
done
echo "all done $SECONDS"
