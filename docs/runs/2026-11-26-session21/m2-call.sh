#!/usr/bin/env bash
# Session 21, call 2 (one H100, 16 threads): the deployed TLS server with the
# new window and kernel counters; the RSA Server's pipeline; Ed25519 Sign's
# memory (gc-D = d49e9cf against gc = main); X25519 at 262,144 callers.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o
for f in before/c/*.xz; do b=$(basename $f .xz); xz -dc $f > /tmp/$b; chmod +x /tmp/$b; done
cd /tmp
O=$OUT/o
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; lscpu -e; cat /proc/sys/net/core/somaxconn /proc/sys/net/ipv4/tcp_max_syn_backlog; } > $O/info.txt 2>&1
(./gc bench ed25519 --batch 1024 --seconds 0.05 --no-auto >/dev/null 2>&1; ./gc bench server --ops rsa2048 --callers 16 --forms blocking --seconds 0.2 --warmup 0.1 >/dev/null 2>&1; echo "warm $SECONDS") 
${EXTRA_BEFORE:-true}
for r in 1 2 3; do for v in gc-D gc; do echo "== $v $r $SECONDS"; ./$v bench ed25519 --ops ed25519-sign,ed25519-keygen --ed25519-alloc --batch 1048576 --no-auto 2>/dev/null | tail -2; done; echo "== gc SignInto $r"; ./gc bench ed25519 --ops ed25519-sign --batch 1048576 --no-auto 2>/dev/null | tail -1; done 2>&1 | tee $O/ed25519-alloc-ab.txt
for r in 1 2; do for p in 2 3 4; do echo "== pipeline $p $r $SECONDS"; ./gc bench server --ops rsa2048 --callers 16384,65536 --forms blocking,async --pipeline $p --seconds 1.5 --warmup 0.5 2>/dev/null | tail -4; done; done 2>&1 | tee $O/rsa-pipeline.txt
./gc bench tls --deployed --keys ed25519,gpu,cpu --versions 1.3,1.2 --concurrency 512,2048 --server-cpus 0-5 --client-cpus 6-15 --seconds 2 --cpuprofile $O/tls-6.prof --json-out $O/tls-6.json 2>&1 | tail -40 | tee $O/tls-deployed-6.txt
./gc bench tls --deployed --keys ed25519,gpu --versions 1.3,1.2 --concurrency 2048 --seconds 2 2>&1 | tail -20 | tee $O/tls-deployed-8.txt
${EXTRA_AFTER:-true}
echo "all done $SECONDS"
