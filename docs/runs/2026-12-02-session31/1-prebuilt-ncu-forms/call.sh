#!/bin/bash
# call 1 (a fresh H200: no kernel cache, no driver cache), at 1394ac9 with kernelinfo building its
# programs at once: the kernel cache filled ahead with NVRTC alone (kernelinfo --compute-capability
# 9.0, as an image build would), then selftest on that cache as a fresh machine of that image starts;
# the cache-ahead test; ncu: ML-KEM-768 decapsulation's instruction counts for valid, one-key and
# implicitly rejected ciphertexts (constant-time evidence), and the profile of keygen/encaps/decaps;
# ML-KEM-1024 beside crypto/mlkem at 1,048,576; both kernel forms (BenchmarkOperations) at 262,144
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins1.tgz -C $B && cd $B
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $OUT/gpu.txt; nproc >> $OUT/gpu.txt; cat COMMIT >> $OUT/gpu.txt
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; timeout $limit "$@" > $OUT/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
export GPUCRYPTO_CACHE_DIR=/tmp/prebuilt
step kernelinfo-ahead 240 ./gpucrypto kernelinfo --compute-capability 9.0
du -sh /tmp/prebuilt | tee -a $OUT/steps.txt; ls /tmp/prebuilt | wc -l | tee -a $OUT/steps.txt
step selftest-prebuilt 90 ./gpucrypto selftest
step kernelinfo-device 60 ./gpucrypto kernelinfo
GPUCRYPTO_REQUIRE_DEVICE=1 step cache-ahead-test 60 ./device.test -test.run 'CUDAGPUCacheFilledAhead|CUDACacheIdentity' -test.v
M="smsp__sass_thread_inst_executed.sum,smsp__sass_inst_executed.sum,smsp__sass_thread_inst_executed_op_global_ld.sum,smsp__sass_thread_inst_executed_op_global_st.sum,smsp__sass_branch_targets_threads_divergent.sum"
GPUCRYPTO_MLKEM_BENCH_BATCH=16384 step ncu-ct 120 ncu --clock-control none --kernel-name regex:'mlkem(768|1024)_decapsulate' --metrics $M ./mlkem.test -test.run '^$' -test.bench 'BenchmarkOperations/(stream|matrix)/ML-KEM-(768|1024)/decapsulate' -test.benchtime 1x
SECT="--section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section InstructionStats"
GPUCRYPTO_MLKEM_BENCH_BATCH=262144 step ncu-profile 150 ncu --clock-control none --kernel-name regex:'mlkem768_(keygen|encapsulate|decapsulate)$' --launch-skip 3 --launch-count 6 $SECT ./mlkem.test -test.run '^$' -test.bench 'BenchmarkOperations/stream/ML-KEM-768/(keygen|encapsulate|decapsulate)$' -test.benchtime 1x
step bench-mlkem1024 150 ./gpucrypto bench mlkem --ops mlkem1024-keygen,mlkem1024-encaps,mlkem1024-decaps --batch 1048576 --seconds 1 --json-out $OUT/bench-mlkem1024.jsonl
GPUCRYPTO_MLKEM_BENCH_BATCH=262144 step mlkem-forms 120 ./mlkem.test -test.run '^$' -test.bench 'BenchmarkOperations/(stream|matrix)/' -test.benchtime 3x
cat $OUT/steps.txt; tail -14 $OUT/selftest-prebuilt.txt; tail -3 $OUT/kernelinfo-ahead.txt; grep -A2 "mlkem768_decap\|mlkem768_encap\|mlkem768_keygen" $OUT/kernelinfo-device.txt | head -12; grep -E "^(--- |ok|PASS|FAIL)" $OUT/cache-ahead-test.txt
grep -E "decapsulate|inst_executed|divergent" $OUT/ncu-ct.txt | head -60
tail -20 $OUT/bench-mlkem1024.txt; grep -E "Benchmark" $OUT/mlkem-forms.txt
