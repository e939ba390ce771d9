#!/usr/bin/env bash
# Session 22, call 1 (one H100): kernelinfo; signing kernels over batch
# sizes around 131,072 (a last partial wave at the pipeline chunk?);
# runtime traces of one Ed25519 and one ECDSA signing run at 1,048,576
# (where the time beyond the kernels goes now).
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o
xz -dc before/b/gc.xz > /tmp/gc; chmod +x /tmp/gc; cd /tmp; O=$OUT/o
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm --format=csv | tee $O/info.txt; nproc | tee -a $O/info.txt
./gc kernelinfo > $O/kernelinfo.txt 2>&1; grep -iE "ecdsa|ed25519|p256" $O/kernelinfo.txt | head -40
./gc bench ed25519 --ops ed25519-sign --batch 1048576 --no-auto --seconds 0.4 --trace $O/ed-sign.trace 2>&1 | tee $O/trace-runs.txt
./gc bench ecdsa --ops ecdsa-p256-sign --batch 1048576 --no-auto --seconds 0.4 --trace $O/ecdsa-sign.trace 2>&1 | tee -a $O/trace-runs.txt
B=65536,98304,131072,147456,163840,196608,262144
./gc bench ecdsa --ops ecdsa-p256-sign,ecdh-p256-keygen --batch $B --no-auto --seconds 0.5 2>/dev/null | tee $O/ecdsa-batches.txt
./gc bench ed25519 --ops ed25519-sign --batch $B --no-auto --seconds 0.5 2>/dev/null | tee $O/ed25519-batches.txt
cd $O && ls -la && xz -T0 -6 *.trace && tar cf traces.tar *.trace.xz && rm *.trace.xz; ls -la
echo "all done $SECONDS"
