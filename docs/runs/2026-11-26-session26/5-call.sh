#!/usr/bin/env bash
# Session 26 call 5: ecdh.Server's defaults (MaxBatch 16,384, Pipeline 4)
# against MaxBatch 32,768 with Pipeline 8, three rounds alternating, on
# every form at one and two engines; and frames from 32 submitters.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
xz -dc before/c/gc-N.xz > /tmp/gc-N; chmod +x /tmp/gc-N; cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc-N bench server --ops x25519 --devices 1,2 --callers 16384 --forms blocking,async-frames --seconds 0.5 --warmup 0.3 >/dev/null 2>&1
for round in 1 2 3; do for cfg in "0 0" "32768 8"; do set -- $cfg
  echo "== round $round max-batch $1 pipeline $2" | tee -a $O/ab.txt
  ./gc-N bench server --ops x25519 --devices 1,2 --callers 16384,65536 --forms blocking --max-batch $1 --pipeline $2 --seconds 1.5 --warmup 0.5 2>/dev/null | tail -4 | tee -a $O/ab.txt
  ./gc-N bench server --ops x25519 --devices 1,2 --callers 65536 --forms async --max-batch $1 --pipeline $2 --seconds 1.5 --warmup 0.5 2>/dev/null | tail -2 | tee -a $O/ab.txt
  ./gc-N bench server --ops x25519 --devices 1,2 --callers 262144 --forms async-frames --max-batch $1 --pipeline $2 --seconds 1.5 --warmup 0.5 2>/dev/null | tail -2 | tee -a $O/ab.txt
done; done
for cfg in "0 0" "32768 8"; do set -- $cfg
  echo "== 32 submitters max-batch $1 pipeline $2" | tee -a $O/submitters.txt
  ./gc-N bench server --ops x25519 --devices 1,2 --callers 262144 --forms async-frames --submitters 32 --max-batch $1 --pipeline $2 --seconds 1.5 --warmup 0.5 2>/dev/null | tail -2 | tee -a $O/submitters.txt
done
echo "all done $SECONDS"
