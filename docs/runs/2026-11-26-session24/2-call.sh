#!/usr/bin/env bash
# Second call on the warm machine: the ed25519 suite (read-halves) through NVIDIA OpenCL.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache GPUCRYPTO_REQUIRE_DEVICE=1
mkdir -p /etc/OpenCL/vendors $OUT/o; O=$OUT/o; R=$PWD
[ -f /etc/OpenCL/vendors/nvidia.icd ] || echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
[ -x /tmp/ed25519-R.test ] || for f in before/b/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
(cd $R/ed25519 && GPUCRYPTO_BACKEND=opencl timeout 560 /tmp/ed25519-R.test -test.count=1 -test.v 2>&1 | grep -E "^(--- |ok|FAIL|PASS|panic)" | tail -60) | tee $O/ed25519-opencl-tests.txt
echo "all done $SECONDS"
