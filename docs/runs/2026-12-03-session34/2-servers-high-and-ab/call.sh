#!/bin/bash
# call 2 (a fresh H200): gpucrypto-base = 56964ff (Pipeline 3 for ed25519/ecdsa, ML-KEM's unpack
# clones), gpucrypto = 9400d9b (+ the CPU pool's plain receive, 16 CPU slots a core). (a) ML-KEM's
# host work of one device batch, old (5b605b1) and new unpack; (b) the CPU path's rows at 16, 64 and
# 256 callers, base against new, two rounds each; (c) every Server beside Go at 2,048, 16,384 and
# 65,536 callers (one round of 0.4 s), new.
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins2.tgz -C $B && cd $B
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt; ./gpucrypto version >> $OUT/gpu.txt 2>&1; nproc >> $OUT/gpu.txt
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; echo "#### $name: $*" >> $OUT/log.txt; timeout $limit "$@" >> $OUT/log.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
step mlkem-host-old 60 ./mlkem-old.test -test.run xxx -test.bench 'EncapsulateHost' -test.benchtime 5x -test.count 2
step mlkem-host-new 60 ./mlkem.test -test.run xxx -test.bench 'EncapsulateHost|UnpackHost' -test.benchtime 5x -test.count 2
step kernelinfo-ahead 150 ./gpucrypto kernelinfo --compute-capability 9.0
AB="--ops ed25519-sign,ecdsa-p256-sign,rsa2048,aes-gcm,ecdh-p256 --callers 16,64,256 --seconds 0.3 --warmup 0.1 --rounds 2"
step ab-base 80 ./gpucrypto-base bench server $AB
step ab-new 80 ./gpucrypto bench server $AB
step server-high 200 ./gpucrypto bench server --callers 2048,16384,65536 --seconds 0.4 --warmup 0.2 --json-out $OUT/server-high.jsonl
cat $OUT/steps.txt
grep -E "^(####|Benchmark|[a-z0-9-]+ +(blocking|async))" $OUT/log.txt | cut -c1-200
