#!/usr/bin/env bash
# Session 23, call 4 (main 65a90d9): Nsight Compute accounts of issue #26's
# best forms (x448_xz under x448-binv at 262,144; gcm_segments_r10, 256 MB
# resident, segment 8; modexp under RSA-2048 at 65,536), then the arith and
# rsa suites through CUDA.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache GPUCRYPTO_REQUIRE_DEVICE=1
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o; R=$PWD
for f in before/b4/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/info.txt
cd /tmp
SECT="--section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section InstructionStats"
ncu --kernel-name x448_xz --launch-skip 3 --launch-count 1 $SECT ./gc bench ecdh --ops x448-binv --batch 262144 --seconds 0.2 --no-auto > $O/ncu-x448.txt 2>&1; echo "x448 $? $SECONDS"
ncu --kernel-name regex:gcm_segments --launch-skip 2 --launch-count 1 $SECT ./gc bench aes --ops gcm --keys 128 --shapes resident --resident-mb 256 --no-cpu --no-auto > $O/ncu-gcm.txt 2>&1; echo "gcm $? $SECONDS"
ncu --kernel-name modexp --launch-skip 3 --launch-count 1 $SECT ./gc bench rsa --ops rsa2048 --batch 65536 --seconds 0.2 --no-auto > $O/ncu-rsa.txt 2>&1; echo "rsa $? $SECONDS"
for p in arith rsa; do
  (cd $R/$p && GPUCRYPTO_BACKEND=cuda timeout 200 /tmp/$p.test -test.count=1 -test.v > $O/$p-cuda.log 2>&1; echo "$p cuda rc $? $SECONDS")
  grep -E "^(--- FAIL|FAIL|ok|PASS)" $O/$p-cuda.log | tail -3; grep -c "^--- PASS\|^    --- PASS" $O/$p-cuda.log
done
echo "all done $SECONDS"
