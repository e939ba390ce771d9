#!/bin/bash
# call 2 (the machine of call 1, warm: its kernel cache /tmp/prebuilt): the ML-KEM-768 burn-in for 10^8
# pairs, C2SP's and Go's accumulated million-test runs on the GPU, the ncu profile of call 1 again (its
# file did not come back)
B=/tmp/b; cd $B
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/prebuilt
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; timeout $limit "$@" > $OUT/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
SECT="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis"
GPUCRYPTO_MLKEM_BENCH_BATCH=262144 step ncu-profile 60 ncu --clock-control none --kernel-name regex:'mlkem768_(keygen|encapsulate|decapsulate)$' --launch-skip 3 --launch-count 6 $SECT ./mlkem.test -test.run '^$' -test.bench 'BenchmarkOperations/stream/ML-KEM-768/(keygen|encapsulate|decapsulate)$' -test.benchtime 1x
grep -E "mlkem768_|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Local Memory|Compute \(SM\) Th|Memory Throughput|L1/TEX Hit|Stall|Warp Cycles Per Issued|Block Limit" $OUT/ncu-profile.txt | head -80
step burnin-mlkem768 90 ./gpucrypto burnin --ops mlkem768 --duration 75s --progress 25s
tail -6 $OUT/burnin-mlkem768.txt
GPUCRYPTO_FULL=1 GPUCRYPTO_REQUIRE_DEVICE=1 step mlkem-million 300 ./mlkem.test -test.run 'TestAccumulated' -test.v -test.timeout 295s
grep -E "^(=== RUN|--- |ok|PASS|FAIL)|accumulated|million" $OUT/mlkem-million.txt | head -30
cat $OUT/steps.txt
