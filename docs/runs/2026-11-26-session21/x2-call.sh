#!/usr/bin/env bash
# The twenty-first session's first call (nvidia-h100-x2): Servers with one
# and two engines (RSA-2048, X25519; blocking, async, frames), then the
# deployed TLS server (GPU Signer against the Ed25519 ceiling) with a CPU
# profile of the server process for its driver waits.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache
for b in gc gc-D; do xz -dc before/b/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
cd /tmp
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/info.txt; nproc | tee -a $OUT/info.txt
./gc bench server --ops rsa2048 --devices 1,2 --callers 16384,65536 --forms blocking,async --seconds 1.5 --warmup 0.5 2>/dev/null | tee $OUT/servers-rsa.txt
./gc bench server --ops x25519 --devices 1,2 --callers 16384,65536,262144 --forms blocking,async,async-frames --seconds 1.5 --warmup 0.5 2>/dev/null | tee $OUT/servers-x25519.txt
./gc bench tls --deployed --keys cpu,gpu,ed25519 --versions 1.3,1.2 --concurrency 2048 --seconds 3 --cpuprofile $OUT/tls-server.prof 2>&1 | tail -12 | tee $OUT/tls-deployed.txt
# Ed25519 Sign (allocating) and keygen: d49e9cf (gc-D) against main (LaterBlocks), one GPU
for r in 1 2 3; do for v in gc-D gc; do echo "== $v $r"; ./$v bench ed25519 --ops ed25519-sign,ed25519-keygen --ed25519-alloc --batch 1048576 --no-auto 2>/dev/null | tail -2; done; done | tee $OUT/ed25519-alloc-ab.txt
# RSA blocking at 16,384 on one GPU: a profile and a short trace of where the 15% goes
./gc bench server --ops rsa2048 --callers 16384 --forms blocking --seconds 2 --warmup 0.5 --cpuprofile $OUT/rsa-blocking.prof 2>/dev/null | tail -3 | tee $OUT/rsa-blocking-prof.txt
./gc bench server --ops rsa2048 --callers 16384 --forms blocking --seconds 0.4 --warmup 0.5 --trace $OUT/rsa-blocking.trace 2>/dev/null | tail -3 | tee -a $OUT/rsa-blocking-prof.txt; gzip -9 $OUT/rsa-blocking.trace
echo "all done $SECONDS"
