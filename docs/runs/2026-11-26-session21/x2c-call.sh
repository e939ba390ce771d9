#!/usr/bin/env bash
# Session 21, call 7 (two H100s): X25519 frames at more calls in flight and
# with MaxBatch 65,536; RSA-2048 at 16,384 callers with MaxBatch 4,096.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o
xz -dc before/f/gc.xz > /tmp/gc; chmod +x /tmp/gc; cd /tmp; O=$OUT/o
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } > $O/info.txt
for r in 1 2; do echo "== round $r"; ./gc bench server --ops x25519 --devices 1,2 --callers 262144,524288 --forms async-frames --seconds 1.5 --warmup 0.5 2>/dev/null | tail -5; done 2>&1 | tee $O/frames.txt
echo "== MaxBatch 65536" | tee -a $O/frames.txt; ./gc bench server --ops x25519 --devices 1,2 --callers 262144,524288 --forms async-frames --max-batch 65536 --seconds 1.5 --warmup 0.5 2>/dev/null | tail -5 | tee -a $O/frames.txt
echo "== RSA MaxBatch 4096" | tee $O/rsa.txt; ./gc bench server --ops rsa2048 --devices 1,2 --callers 16384 --forms blocking,async --max-batch 4096 --seconds 1.5 --warmup 0.5 2>/dev/null | tail -5 | tee -a $O/rsa.txt
echo "== RSA default" | tee -a $O/rsa.txt; ./gc bench server --ops rsa2048 --devices 1,2 --callers 16384 --forms blocking,async --seconds 1.5 --warmup 0.5 2>/dev/null | tail -5 | tee -a $O/rsa.txt
echo "all done $SECONDS"
