#!/usr/bin/env bash
# Session 23, call 8 (main ca73f69): Ed25519 signing at 1,048,576, four
# rounds on a fresh machine (CUDA); the ed25519 suite through NVIDIA OpenCL.
set -uo pipefail
for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/nvidia/lib64; do if [ -e "$d/libnvidia-opencl.so.1" ] && [ ! -e /etc/OpenCL/vendors/nvidia.icd ]; then mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd; break; fi; done
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache GPUCRYPTO_REQUIRE_DEVICE=1
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o; R=$PWD
for f in before/b7/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/info.txt
cd /tmp
for round in 1 2 3 4; do
  ./gc bench ed25519 --ops ed25519-sign --batch 1048576 --seconds 1 --no-auto 2>/dev/null | grep -E "ed25519-" | tee -a $O/ed25519-sign.txt
done
echo "bench done $SECONDS"
(cd $R/ed25519 && GPUCRYPTO_BACKEND=opencl timeout 420 /tmp/ed25519.test -test.count=1 -test.v > $O/ed25519-opencl.log 2>&1; echo "ed25519 opencl rc $? $SECONDS")
grep -E "^(--- FAIL|FAIL|ok|PASS)" $O/ed25519-opencl.log | tail -3; grep -c "^--- PASS" $O/ed25519-opencl.log; grep -m2 "test device" $O/ed25519-opencl.log
echo "all done $SECONDS"
