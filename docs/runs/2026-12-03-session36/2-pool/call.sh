#!/bin/bash
# call 2: gpucrypto-diag = next (call 1) + counts of take's verdicts by rule (GPUCRYPTO_DIAG=1 only;
# not landed), gpucrypto-shard = next + cpuPool sharded by the submitter's stack. batch-*.test:
# BenchmarkOffloadAsync of next, shard, spawn (a goroutine per request), dshard (drain + shard).
# aes.test: BenchmarkGoSealShared (crypto/cipher, one GCM shared or one per goroutine) and ServerSeal.
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins2.tgz -C $B && cd $B && tar xzf cache.tgz -C /tmp
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; echo "#### $name: $*" >> $OUT/log.txt; timeout $limit "$@" >> $OUT/log.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
for v in next shard spawn dshard; do step async-$v 40 ./batch-$v.test -test.run XXX -test.bench OffloadAsync -test.benchtime 1s; done
step aes 60 ./aes.test -test.run XXX -test.bench 'GoSealShared|ServerSeal' -test.benchtime 1s -test.count 2 -test.cpu 16
LOW="--ops ed25519-sign,ecdsa-p256-sign,ecdh-p256 --forms blocking,async --callers 16,64,256 --rounds 2 --seconds 0.3 --warmup 0.1"
step diag 120 env GPUCRYPTO_DIAG=1 ./gpucrypto-diag bench server $LOW --json-out $OUT/low-diag.jsonl
step low-shard 80 ./gpucrypto-shard bench server $LOW --json-out $OUT/low-shard.jsonl
step low-next 80 ./gpucrypto-diag bench server $LOW --json-out $OUT/low-next.jsonl
tar czf $OUT/cache.tgz -C /tmp gc-cache
cat $OUT/steps.txt
