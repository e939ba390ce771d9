#!/usr/bin/env bash
# Session 22, call 7 (two H100s, 32 threads), main 9617506: the Servers
# over one and two GPUs (issue #23's 1.8x), batch.Parallel in pieces.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
xz -dc before/b/gc.xz > /tmp/gc; chmod +x /tmp/gc; cd /tmp
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/info.txt; nproc | tee -a $O/info.txt
./gc bench ecdh --ops x25519 --batch 4096 --seconds 0.3 --no-auto >/dev/null 2>&1
./gc bench rsa --ops rsa2048 --batch 4096 --seconds 0.3 --no-auto >/dev/null 2>&1
for round in 1 2; do
  echo "== round $round" | tee -a $O/server2.txt
  ./gc bench server --devices 1,2 --ops rsa2048 --callers 16384,65536 --forms blocking,async --seconds 1.5 --warmup 0.5 2>/dev/null | grep -E "rsa2048" | tee -a $O/server2.txt
  ./gc bench server --devices 1,2 --ops x25519 --callers 16384,65536 --forms blocking,async-frames --seconds 1.5 --warmup 0.5 2>/dev/null | grep -E "x25519" | tee -a $O/server2.txt
done
echo "all done $SECONDS"
