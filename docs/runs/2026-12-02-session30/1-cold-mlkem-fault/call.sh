#!/bin/bash
# call 1 (a fresh H200: no kernel cache, no driver cache): selftest cold with the suites at once, then warm
# (one after another and at once); the mlkem and hpke tests on the GPU (CUDA); the fault-injection tests;
# gpucrypto bench mlkem beside crypto/mlkem
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins1.tgz -C $B && cd $B
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_CACHE_DIR=/tmp/gc-cache GPUCRYPTO_DEVICE=nvidia
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $OUT/gpu.txt; nproc >> $OUT/gpu.txt; cat COMMIT >> $OUT/gpu.txt
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; timeout $limit "$@" > $OUT/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
step selftest-cold-jobs0 200 ./gpucrypto selftest --jobs 0
step selftest-warm-jobs1 60 ./gpucrypto selftest --jobs 1
step selftest-warm-jobs0 60 ./gpucrypto selftest --jobs 0
GPUCRYPTO_REQUIRE_DEVICE=1 step mlkem-tests 150 ./mlkem.test -test.v -test.timeout 145s
grep -E "^(--- |FAIL|ok|PASS)" $OUT/mlkem-tests.txt | grep -v "^--- PASS" | head -30
GPUCRYPTO_REQUIRE_DEVICE=1 step fault-ed25519 60 ./ed25519.test -test.run Fault -test.v
GPUCRYPTO_REQUIRE_DEVICE=1 step fault-ecdsa 60 ./ecdsa.test -test.run Fault -test.v
step bench-mlkem 150 ./gpucrypto bench mlkem --batch 1048576 --seconds 1 --json-out $OUT/bench-mlkem.jsonl
GPUCRYPTO_REQUIRE_DEVICE=1 step hpke-tests 90 ./hpke.test -test.v -test.timeout 85s
grep -E "^(--- |FAIL|ok|PASS)" $OUT/hpke-tests.txt | grep -v "^--- PASS" | head -30
cat $OUT/steps.txt; tail -15 $OUT/selftest-cold-jobs0.txt; tail -12 $OUT/selftest-warm-jobs0.txt; cat $OUT/bench-mlkem.txt | tail -30
