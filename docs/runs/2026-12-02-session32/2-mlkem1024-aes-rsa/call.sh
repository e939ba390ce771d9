#!/bin/bash
# call 2 (the machine of call 1, warm), at 7d139fe: RSA-2048 blocking at 16,384 and 65,536 callers
# again (session 31's stall at 65,536); ML-KEM-1024 at 1,048,576 in the default form MLKEM_MATRIX;
# gpucrypto bench aes, every row (CPU engine and auto path beside crypto/cipher on all cores)
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins1.tgz -C $B && cd $B
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; timeout $limit "$@" > $OUT/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
step rsa 60 ./gpucrypto bench server --ops rsa2048 --forms blocking,async --callers 16384,65536 --seconds 0.4 --warmup 0.2
step bench-mlkem1024 200 ./gpucrypto bench mlkem --ops mlkem1024-keygen,mlkem1024-encaps,mlkem1024-decaps --batch 1048576 --seconds 1 --json-out $OUT/bench-mlkem1024.jsonl
step bench-aes 300 ./gpucrypto bench aes --json-out $OUT/bench-aes.jsonl
cat $OUT/steps.txt; tail -6 $OUT/rsa.txt; tail -8 $OUT/bench-mlkem1024.txt; cat $OUT/bench-aes.txt | tail -60
