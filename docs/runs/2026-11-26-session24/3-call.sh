#!/usr/bin/env bash
# Session 24, call 3 (one H100): X448 with two work-items per ladder (the
# pair form, kernels/ladder_pair.h, working tree on a1c71b4): its tests through
# CUDA, the forms' kernel figures at 262,144 (k=16) alternating, ncu of
# x448_xz in the default and pair forms.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache GPUCRYPTO_REQUIRE_DEVICE=1
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o; R=$PWD
for f in before/c/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/info.txt
cd $R/ecdh
GPUCRYPTO_BACKEND=cuda timeout 240 /tmp/ecdh.test -test.count=1 -test.v -test.run 'TestFieldForms$/pair|TestFieldFormsIterated/pair' 2>&1 | grep -E "^(\s*---|ok|FAIL|PASS|panic)|Error" | tee $O/pair-tests-cuda.txt
echo "tests $SECONDS" | tee -a $O/pair-tests-cuda.txt
for round in 1 2; do
  GPUCRYPTO_BACKEND=cuda GPUCRYPTO_BENCH_ECDH_BATCH=262144 timeout 200 /tmp/ecdh.test -test.run '^$' -test.bench 'FieldForms/^(default|pair|pair-g5|pair-g6|pair-g8)$/X448/k=16' -test.benchtime 20x 2>&1 | grep -E "kernel-ops|defines|FAIL|panic" | tee -a $O/forms.txt
done
echo "bench $SECONDS" | tee -a $O/forms.txt
SECT="--section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section InstructionStats"
for form in default pair pair-g6; do
  GPUCRYPTO_BACKEND=cuda GPUCRYPTO_BENCH_ECDH_BATCH=262144 timeout 100 ncu --kernel-name x448_xz --launch-skip 3 --launch-count 1 $SECT /tmp/ecdh.test -test.run '^$' -test.bench "FieldForms/^$form\$/X448/k=16" -test.benchtime 6x > $O/ncu-$form.txt 2>&1; echo "ncu $form $? $SECONDS"
done
echo "all done $SECONDS"
