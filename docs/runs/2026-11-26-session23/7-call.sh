#!/usr/bin/env bash
# Session 23, call 7 (main ca73f69, the code of 65a90d9): Ed25519 at
# 1,048,576 (signing two rounds, verification, key generation); a burn-in
# of Ed25519 through CUDA (the one-pass packing against crypto/ed25519);
# the ed25519 suite through CUDA.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache GPUCRYPTO_REQUIRE_DEVICE=1
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o; R=$PWD
for f in before/b7/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/info.txt
cd /tmp
for round in 1 2; do
  ./gc bench ed25519 --ops ed25519-sign --batch 1048576 --seconds 1 --no-auto 2>/dev/null | grep -E "ed25519-" | tee -a $O/ed25519.txt
done
./gc bench ed25519 --ops ed25519-verify,ed25519-keygen --batch 1048576 --seconds 1 --no-auto 2>/dev/null | grep -E "ed25519-" | tee -a $O/ed25519.txt
echo "bench done $SECONDS"
./gc burnin --ops ed25519 --duration 75s --progress 0 > $O/burnin-ed25519.txt 2>&1; echo "burnin rc $? $SECONDS"; tail -5 $O/burnin-ed25519.txt
(cd $R/ed25519 && GPUCRYPTO_BACKEND=cuda timeout 330 /tmp/ed25519.test -test.count=1 -test.v > $O/ed25519-cuda.log 2>&1; echo "ed25519 suite rc $? $SECONDS")
grep -E "^(--- FAIL|FAIL|ok|PASS)" $O/ed25519-cuda.log | tail -3; grep -c "^--- PASS" $O/ed25519-cuda.log
echo "all done $SECONDS"
