#!/usr/bin/env bash
# Session 23, call 2: ECDSA/ECDH P-256 with the point arithmetic on doubles
# (F, p256-fp64-field e0737fe) against main (M, words), alternating, and
# the kernels' and ecdsa's tests through CUDA (both forms).
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o; R=$PWD
for f in before/b2/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/info.txt
cd /tmp
./gc-F kernelinfo 2>&1 | grep -E "ecdsa|ecdh_p256|p256" | tee $O/kernelinfo-F.txt
./gc-M kernelinfo 2>&1 | grep -E "ecdsa|ecdh_p256|p256" | tee $O/kernelinfo-M.txt
for round in 1 2; do for b in M F; do
  echo "== round $round build $b" | tee -a $O/ab.txt
  ./gc-$b bench ecdsa --ops ecdsa-p256-sign,ecdsa-p256-verify,ecdh-p256,ecdh-p256-keygen --batch 1048576 --seconds 1 --no-auto 2>&1 | grep -E "ecdsa-|ecdh-|rror" | tee -a $O/ab.txt
done; done
(cd $R/kernels && GPUCRYPTO_REQUIRE_DEVICE=1 GPUCRYPTO_BACKEND=cuda timeout 200 /tmp/kernels.test -test.run 'P256' -test.v 2>&1 | grep -E '^(---|ok|FAIL|PASS)|Error' | head -30) | tee $O/kernels-tests.txt
(cd $R/ecdsa && GPUCRYPTO_REQUIRE_DEVICE=1 GPUCRYPTO_BACKEND=cuda timeout 400 /tmp/ecdsa.test -test.count=1 -test.v 2>&1 | grep -E '^(--- FAIL|ok|FAIL|PASS)|device_(fp64|words)|Error' | head -60) | tee $O/ecdsa-tests.txt
echo "all done $SECONDS"
