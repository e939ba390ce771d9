#!/usr/bin/env bash
set -uo pipefail
mkdir -p $OUT/o; O=$OUT/o; T=before/t
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
run() { local name=$1; shift; echo "== $name" | tee -a $O/turn.txt; "$@" 2>&1 | tee -a $O/turn.txt; }
run plain $T/turn -seconds 8
GODEBUG=schedtrace=500 $T/turn -seconds 4 > $O/sched-turn.txt 2>$O/schedtrace.txt; cat $O/sched-turn.txt >> $O/turn.txt
run gogc-off env GOGC=off $T/turn -seconds 8
run alloc64 $T/turn -seconds 8 -alloc 64
run gc-at-3 $T/turn -seconds 8 -gc-at 3
run answerers8 $T/turn -seconds 5 -answerers 8
run bench-count3 $T/batch.test -test.run XXX -test.bench 'GoroutineTurnaround/callers=65536/answerers=32' -test.benchtime 1s -test.count 3
echo "all done $SECONDS"
