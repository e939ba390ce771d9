#!/bin/bash
# call 3: the fault checks' cost at the kernel (checked against unchecked, 1,048,576), then every Server operation beside Go's crypto/*
cd "$(dirname "$0")"
tar xzf bins3.tgz
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_CACHE_DIR=/tmp/gc-cache GPUCRYPTO_REQUIRE_DEVICE=1 GPUCRYPTO_DEVICE=nvidia
( timeout 200 ./ed25519.test -test.run '^$' -test.bench '^BenchmarkSignKernel$' -test.benchtime 10x
  timeout 120 ./ecdsa.test -test.run '^$' -test.bench '^BenchmarkSignKernel$' -test.benchtime 10x ) > $OUT/faultcheck.txt 2>&1
cat $OUT/faultcheck.txt
timeout 330 ./gpucrypto bench server --callers 1,16,64,256,2048,16384 --seconds 0.5 --warmup 0.25 --json-out $OUT/server.jsonl > $OUT/server.txt 2>&1
cat $OUT/server.txt
