#!/usr/bin/env bash
# Session 21, call 6 (one H100): suites through CUDA (and device's through
# NVIDIA OpenCL) at main: the poll's back-off and the intake's queues.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache GPUCRYPTO_REQUIRE_DEVICE=1
mkdir -p /tmp/gpucrypto-cache $OUT/o /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
for f in before/g/*.xz; do b=$(basename $f .xz); xz -dc $f > /tmp/$b; chmod +x /tmp/$b; done
cd /tmp; O=$OUT/o
(GPUCRYPTO_BACKEND=cuda timeout 280 ./device.test -test.v > $O/device-cuda.log 2>&1; echo "device cuda rc=$? $SECONDS") &
(GPUCRYPTO_BACKEND=opencl timeout 280 ./device.test -test.v > $O/device-opencl.log 2>&1; echo "device opencl rc=$? $SECONDS") &
(timeout 280 ./batch.test -test.v > $O/batch.log 2>&1; echo "batch rc=$? $SECONDS") &
(GPUCRYPTO_BACKEND=cuda timeout 280 ./rsa.test -test.v -test.skip CUDABuild > $O/rsa-cuda.log 2>&1; echo "rsa cuda rc=$? $SECONDS") &
(GPUCRYPTO_BACKEND=cuda timeout 280 ./ecdh.test -test.v -test.skip 'CUDABuild|FieldForms' > $O/ecdh-cuda.log 2>&1; echo "ecdh cuda rc=$? $SECONDS") &
(GPUCRYPTO_BACKEND=cuda timeout 280 ./ed25519.test -test.v -test.skip CUDABuild > $O/ed25519-cuda.log 2>&1; echo "ed25519 cuda rc=$? $SECONDS") &
(GPUCRYPTO_BACKEND=cuda timeout 280 ./ecdsa.test -test.v -test.skip CUDABuild > $O/ecdsa-cuda.log 2>&1; echo "ecdsa cuda rc=$? $SECONDS") &
wait
for f in $O/*.log; do echo "$(basename $f): $(grep -c '^--- PASS' $f) pass, $(grep -c '^--- FAIL' $f) fail, $(grep -c '^--- SKIP' $f) skip, last: $(tail -1 $f)"; grep -E '^--- FAIL|^panic' $f | head -5; done
