#!/usr/bin/env bash
# Session 24, call 5 (two H100s, 32 threads), main a7aed1f: what bounds
# X25519 behind one Server over two H100s (issue #23): blocking and
# per-call asynchronous X25519 with one and with two engines, a CPU
# profile of each run; async frames; RSA-2048 blocking at 16,384.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/d/*.xz; do b=$(basename $f .xz); xz -dc $f > /tmp/$b; chmod +x /tmp/$b; done
cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc bench server --ops x25519 --devices 1,2 --callers 16384 --forms blocking --seconds 0.5 --warmup 0.3 >/dev/null 2>&1   # kernels built on both cards
for d in 1 2; do for form in blocking async; do
  ./gc bench server --ops x25519 --devices $d --callers 65536 --forms $form --seconds 2 --warmup 0.5 --cpuprofile $O/x25519-$form-$d.prof 2>/dev/null | tail -1 | tee -a $O/x25519-profiled.txt
done; done
./gc bench server --ops x25519 --devices 1,2 --callers 65536,262144 --forms blocking,async,async-frames --seconds 1.5 --warmup 0.5 2>/dev/null | tail -13 | tee $O/x25519.txt
./gc bench server --ops rsa2048 --devices 1,2 --callers 16384,65536 --forms blocking,async --seconds 1.5 --warmup 0.5 2>/dev/null | tail -9 | tee $O/rsa.txt
echo "all done $SECONDS"
