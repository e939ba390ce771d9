#!/bin/bash
# call 3 (a fresh H200: no kernel cache, no driver cache), at 1394ac9 with ML-KEM's default form
# MLKEM_MATRIX and kernelinfo building at once: selftest cold (start-up), then gpucrypto bench mlkem
# (ML-KEM-768 at 1,048,576 beside crypto/mlkem), bench hpke beside crypto/hpke, and the HPKE burn-in
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins3.tgz -C $B && cd $B
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $OUT/gpu.txt; nproc >> $OUT/gpu.txt; cat COMMIT >> $OUT/gpu.txt
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; timeout $limit "$@" > $OUT/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
step selftest-cold 150 ./gpucrypto selftest
tail -12 $OUT/selftest-cold.txt
step bench-mlkem768 160 ./gpucrypto bench mlkem --ops mlkem768-keygen,mlkem768-encaps,mlkem768-decaps --batch 1048576 --seconds 1 --json-out $OUT/bench-mlkem768.jsonl
tail -8 $OUT/bench-mlkem768.txt
step bench-hpke 120 ./gpucrypto bench hpke --seconds 0.5 --json-out $OUT/bench-hpke.jsonl
tail -24 $OUT/bench-hpke.txt
step burnin-hpke 110 ./gpucrypto burnin --ops hpke --duration 95s --progress 30s
tail -6 $OUT/burnin-hpke.txt
cat $OUT/steps.txt
