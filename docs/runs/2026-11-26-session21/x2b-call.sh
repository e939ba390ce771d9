#!/usr/bin/env bash
# Session 21, call 5 (two H100s, 32 threads): main (poll back-off, the
# intake's queues of waiting callers) with one and two engines; the
# submitters of the asynchronous forms as a parameter.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o
for f in before/f/*.xz; do b=$(basename $f .xz); xz -dc $f > /tmp/$b; chmod +x /tmp/$b; done
cd /tmp
O=$OUT/o
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } > $O/info.txt
./gc bench server --ops x25519 --devices 1,2 --callers 65536,262144 --forms blocking --seconds 1.5 --warmup 0.5 2>/dev/null | tail -5 | tee $O/x25519-blocking.txt
for s in 16 32 64; do echo "== submitters $s"; ./gc bench server --ops x25519 --devices 1,2 --callers 65536,262144 --forms async,async-frames --submitters $s --seconds 1.5 --warmup 0.5 2>/dev/null | tail -9; done 2>&1 | tee $O/x25519-submitters.txt
for s in 16 32; do echo "== submitters $s"; ./gc bench server --ops rsa2048 --devices 1,2 --callers 16384,65536 --forms blocking,async --submitters $s --seconds 1.5 --warmup 0.5 2>/dev/null | tail -9; done 2>&1 | tee $O/rsa.txt
echo "all done $SECONDS"
