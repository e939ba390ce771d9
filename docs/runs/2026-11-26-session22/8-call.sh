#!/usr/bin/env bash
# Session 22, call 8 (one H100): batch.Parallel's pieces per core, 4 (main
# 840512f) against 2, 8 and 16 (the same with the constant changed),
# alternating, three rounds: rsa.Server RSA-2048 blocking at 16,384
# callers, X25519 blocking at 16,384, Ed25519 and ECDSA signing at 1,048,576.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for k in 2 4 8 16; do xz -dc before/b/gc-$k.xz > /tmp/gc-$k; chmod +x /tmp/gc-$k; done; cd /tmp
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/info.txt
S="--seconds 0.7 --no-auto"
./gc-4 bench ecdh --ops x25519 --batch 4096 --seconds 0.3 --no-auto >/dev/null 2>&1
./gc-4 bench rsa --ops rsa2048 --batch 4096 --seconds 0.3 --no-auto >/dev/null 2>&1
for round in 1 2 3; do for k in 4 2 8 16; do
  echo "== round $round pieces $k" | tee -a $O/pieces.txt
  ./gc-$k bench server --ops rsa2048,x25519 --callers 16384 --forms blocking --seconds 1.5 --warmup 0.5 2>/dev/null | grep -E "rsa2048|x25519" | tee -a $O/pieces.txt
  ./gc-$k bench ed25519 --ops ed25519-sign --batch 1048576 $S 2>/dev/null | grep -E "ed25519-" | tee -a $O/pieces.txt
  ./gc-$k bench ecdsa --ops ecdsa-p256-sign --batch 1048576 $S 2>/dev/null | grep -E "ecdsa-" | tee -a $O/pieces.txt
done; done
echo "all done $SECONDS"
