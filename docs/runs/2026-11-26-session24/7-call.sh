#!/usr/bin/env bash
# Session 24, call 7 (one H100), main a7aed1f (read-halves merged): burn-in of
# Ed25519 (signing batches of 131,072 come back in two halves) against
# crypto/ed25519.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache GPUCRYPTO_REQUIRE_DEVICE=1
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
xz -dc before/f/gc.xz > /tmp/gc; chmod +x /tmp/gc
cd /tmp
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/info.txt
./gc burnin --ops ed25519 --duration 50s --progress 0 > $O/burnin-ed25519.txt 2>&1; echo "burnin rc $? $SECONDS"; tail -5 $O/burnin-ed25519.txt
echo "all done $SECONDS"
