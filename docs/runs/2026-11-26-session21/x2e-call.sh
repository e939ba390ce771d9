#!/usr/bin/env bash
# Session 21, call 9 (two H100s): the fair share of a batch over several
# engines (gc-F2: two batches per engine) against main (gc-M, 14c144d), alternating, two rounds.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o
for f in before/i/*.xz; do b=$(basename $f .xz); xz -dc $f > /tmp/$b; chmod +x /tmp/$b; done
cd /tmp; O=$OUT/o
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } > $O/info.txt
./gc-M bench server --ops rsa2048 --devices 2 --callers 64 --forms blocking --seconds 0.2 --warmup 0.1 >/dev/null 2>&1
for r in 1 2; do for v in gc-M gc-F2; do echo "== $v $r $SECONDS"
  ./$v bench server --ops rsa2048 --devices 2 --callers 16384 --forms blocking,async --seconds 1.5 --warmup 0.5 2>/dev/null | tail -4
  ./$v bench server --ops x25519 --devices 2 --callers 16384,65536 --forms blocking,async --seconds 1.5 --warmup 0.5 2>/dev/null | tail -4
done; done 2>&1 | tee $O/fair-ab.txt
true
echo "all done $SECONDS"
