#!/usr/bin/env bash
# Session 26 call 7: the runtime's turnaround when callers are woken in
# pieces of 128 by goroutines of their own (turn -piece), fresh and in a
# process with a past; then N (main) against P (answer pieces, all
# Servers: branch answer-pieces-all, e7a1d17) on every form, two rounds.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for b in N P; do xz -dc before/c/gc-$b.xz > /tmp/gc-$b; chmod +x /tmp/gc-$b; done; cp before/c/turn /tmp/turn; cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
t() { echo "== $*" | tee -a $O/turn.txt; ./turn -seconds 2 -interval 500ms "$@" 2>&1 | tail -3 | tee -a $O/turn.txt; }
t -piece 0; t -piece 128; t -pre shallow -piece 0; t -pre shallow -piece 128; t -pre shallow -piece 256
t -pre shallow -answerers 4 -piece 0; t -pre shallow -answerers 4 -piece 128
./gc-N bench server --ops x25519 --devices 1,2 --callers 16384 --forms blocking,async-frames --seconds 0.5 --warmup 0.3 >/dev/null 2>&1
for round in 1 2; do for b in N P; do
  echo "== round $round build $b" | tee -a $O/ab.txt
  ./gc-$b bench server --ops x25519 --devices 1,2 --callers 16384,65536 --forms blocking --seconds 1.5 --warmup 0.5 2>/dev/null | tail -4 | tee -a $O/ab.txt
  ./gc-$b bench server --ops x25519 --devices 1,2 --callers 65536 --forms async --seconds 1.5 --warmup 0.5 2>/dev/null | tail -2 | tee -a $O/ab.txt
  ./gc-$b bench server --ops x25519 --devices 1,2 --callers 262144 --forms async-frames --seconds 1.5 --warmup 0.5 2>/dev/null | tail -2 | tee -a $O/ab.txt
done; done
echo "all done $SECONDS"
