#!/usr/bin/env bash
# The twenty-fourth session's first device call (one H100): Ed25519 signing
# at 1,048,576, main (M) against read-halves (R), five rounds alternating;
# R's device and ed25519 suites through CUDA.
# Build: bash before/build-next.sh (rebase read-halves on main first); carry ["before/b"]; run: bash before/b/call.sh.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache GPUCRYPTO_REQUIRE_DEVICE=1
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o; R=$PWD
for f in before/b/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/info.txt
cd /tmp
./gc-M bench ed25519 --ops ed25519-sign --batch 65536 --seconds 0.3 --no-auto >/dev/null 2>&1   # the kernels built once (disk cache)
for round in 1 2 3 4 5; do for b in M R; do
  echo "== round $round build $b" | tee -a $O/ab.txt
  ./gc-$b bench ed25519 --ops ed25519-sign --batch 1048576 --seconds 1 --no-auto 2>/dev/null | grep -E "ed25519-" | tee -a $O/ab.txt
done; done
(cd $R/device && GPUCRYPTO_BACKEND=cuda timeout 120 /tmp/device-R.test -test.count=1 -test.run 'Stages' 2>&1 | tail -2) | tee $O/device-tests.txt
(cd $R/ed25519 && GPUCRYPTO_BACKEND=cuda timeout 330 /tmp/ed25519-R.test -test.count=1 2>&1 | tail -3) | tee $O/ed25519-tests.txt
echo "all done $SECONDS"
