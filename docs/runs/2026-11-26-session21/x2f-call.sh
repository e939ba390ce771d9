#!/usr/bin/env bash
# Session 21, call 10 (two H100s, 32 threads): the deployed TLS server with
# the new bench (server window, TCP counters, CPUs busy) at main.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o
xz -dc before/j/gc.xz > /tmp/gc; chmod +x /tmp/gc; cd /tmp; O=$OUT/o
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; lscpu -e; } > $O/info.txt 2>&1
./gc bench tls --deployed --keys ed25519,gpu --versions 1.3,1.2 --concurrency 2048 --seconds 2 --cpuprofile $O/tls.prof 2>&1 | tail -12 | tee $O/tls-deployed.txt
cd $O && tar czf profiles.tgz tls.prof* && rm -f tls.prof*
echo "all done $SECONDS"
