#!/bin/bash
# call 3 (a fresh H200): the kernel cache filled by the unlocked selftest (as call 2); then every Server
# operation beside Go at 1 to 65,536 callers (rows written as measured); batched HPKE beside crypto/hpke;
# C2SP's and Go's accumulated ML-KEM runs at 1,000,000 tests on the GPU
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins2.tgz -C $B && cd $B
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_CACHE_DIR=/tmp/gc-cache GPUCRYPTO_DEVICE=nvidia
nvidia-smi --query-gpu=name,driver_version --format=csv | tee $OUT/gpu.txt; nproc >> $OUT/gpu.txt; cat COMMIT >> $OUT/gpu.txt
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; timeout $limit "$@" > $OUT/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
GPUCRYPTO_EXPERIMENT_NVRTC_UNLOCKED=1 step selftest-cold-jobs0-unlocked 110 ./gpucrypto-unlocked selftest --jobs 0
step server 270 ./gpucrypto bench server --seconds 0.4 --warmup 0.2 --json-out $OUT/server.jsonl
GPUCRYPTO_REQUIRE_DEVICE=1 step bench-hpke 90 ./hpke.test -test.run '^$' -test.bench 'Open|Seal' -test.benchtime 3x
GPUCRYPTO_FULL=1 GPUCRYPTO_REQUIRE_DEVICE=1 step mlkem-million 95 ./mlkem.test -test.run 'TestAccumulated' -test.v -test.timeout 94s
cat $OUT/steps.txt; tail -8 $OUT/selftest-cold-jobs0-unlocked.txt; grep -E "^(--- |ok|PASS|FAIL)|accumulated" $OUT/mlkem-million.txt; grep -E "Benchmark" $OUT/bench-hpke.txt | head -60
