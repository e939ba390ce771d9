#!/usr/bin/env bash
# Session 24, call 6 (one H100), main a7aed1f (read-halves merged):
# the ed25519 suite through CUDA (the NVRTC build tests skipped: CI's),
# then Ed25519 signing at 1,048,576, five rounds; verification and key
# generation.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache GPUCRYPTO_REQUIRE_DEVICE=1
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o; R=$PWD
for f in before/e/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/info.txt
(cd $R/ed25519 && GPUCRYPTO_BACKEND=cuda timeout 320 /tmp/ed25519.test -test.count=1 -test.v -test.skip 'CUDABuild' > $O/ed25519-cuda.log 2>&1; echo "ed25519 suite rc $? $SECONDS")
grep -E "^(--- FAIL|FAIL|ok|PASS)" $O/ed25519-cuda.log | tail -3; grep -c "^--- PASS" $O/ed25519-cuda.log
cd /tmp
timeout 150 ./gc bench ed25519 --ops ed25519-sign --batch 65536 --seconds 0.3 --no-auto >/dev/null 2>&1   # the kernels built once (disk cache)
for round in 1 2 3 4 5; do
  timeout 60 ./gc bench ed25519 --ops ed25519-sign --batch 1048576 --seconds 1 --no-auto 2>/dev/null | grep -E "ed25519-" | tee -a $O/ed25519.txt
done
timeout 90 ./gc bench ed25519 --ops ed25519-verify,ed25519-keygen --batch 1048576 --seconds 1 --no-auto 2>/dev/null | grep -E "ed25519-" | tee -a $O/ed25519.txt
echo "bench done $SECONDS"
echo "all done $SECONDS"
