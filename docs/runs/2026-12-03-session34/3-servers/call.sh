#!/bin/bash
# call 3 (a fresh H200): gpucrypto-base = 56964ff (Pipeline 3 for ed25519/ecdsa, ML-KEM's unpack
# clones), gpucrypto-pool = 91a7505 (+ the CPU pool's plain receive), gpucrypto = e64331c (+ the
# Meter's counts in 256 shards, d2580d7; a put that a recent sum lets in counts in it, e64331c);
# aes-old.test at 91a7505, aes.test at e64331c.
# (a) BenchmarkServerSeal (no device) by goroutines, old and new Meter; (b) the CPU path's async
# rows, base against pool, two rounds; (c) every Server beside Go at e64331c: from 2,048 callers one
# round of 0.4 s, from 1 to 256 two rounds of 0.3 s.
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins4.tgz -C $B && cd $B
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt; ./gpucrypto version >> $OUT/gpu.txt 2>&1; nproc >> $OUT/gpu.txt
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; echo "#### $name: $*" >> $OUT/log.txt; timeout $limit "$@" >> $OUT/log.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
for r in 1 2; do
step aes-seal-old 30 ./aes-old.test -test.run xxx -test.bench ServerSeal -test.benchtime 0.5s -test.cpu 1,4,16
step aes-seal-new 30 ./aes.test -test.run xxx -test.bench ServerSeal -test.benchtime 0.5s -test.cpu 1,4,16
done
step kernelinfo-ahead 150 ./gpucrypto kernelinfo --compute-capability 9.0
AB="--ops ed25519-sign,ecdsa-p256-sign --forms async --callers 1,16,64,256 --seconds 0.3 --warmup 0.1 --rounds 2"
step pool-base 40 ./gpucrypto-base bench server $AB
step pool-new 40 ./gpucrypto-pool bench server $AB
step server-high 120 ./gpucrypto bench server --callers 2048,16384,65536 --seconds 0.4 --warmup 0.2 --json-out $OUT/server-high.jsonl
step server-low 230 ./gpucrypto bench server --callers 1,16,64,256 --rounds 2 --seconds 0.3 --warmup 0.1 --json-out $OUT/server-low.jsonl
cat $OUT/steps.txt
