#!/bin/bash
# call 1: the idle CPU path bounded by 16 requests a core, counting those waiting for a slot (new),
# beside HEAD 412cbf2 (idle) and c6eedd5 (old); the CPU path's per-request costs at 16 cores.
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins1.tgz -C $B && cd $B && tar xzf cache.tgz -C /tmp
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
mkdir -p $OUT/r
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; echo "#### $name: $*" >> $OUT/log.txt; timeout $limit "$@" >> $OUT/log.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
nproc >> $OUT/log.txt
step contention 90 ./batch-new.test -test.run XXX -test.bench BenchmarkTmpContention -test.benchtime 0.3s -test.count 2
DEC="--ops mlkem768-decaps --forms blocking --callers 2048,16384,65536 --seconds 0.4 --warmup 0.2"
for b in new idle old new old idle; do step dec-$b 40 ./gpucrypto-$b bench server $DEC --json-out $OUT/r/dec-$b-$SECONDS.jsonl; done
OPS="--ops aes-gcm,ed25519-sign,ecdsa-p256-sign,ecdsa-p256-verify,ecdh-p256,mlkem768-decaps --forms blocking,async"
step low-new 110 ./gpucrypto-new bench server $OPS --callers 1,16,64,256 --rounds 2 --seconds 0.3 --warmup 0.1 --json-out $OUT/r/low-new.jsonl
step low-idle 110 ./gpucrypto-idle bench server $OPS --callers 1,16,64,256 --rounds 2 --seconds 0.3 --warmup 0.1 --json-out $OUT/r/low-idle.jsonl
step high-new 70 ./gpucrypto-new bench server $OPS --callers 2048,16384,65536 --seconds 0.4 --warmup 0.2 --json-out $OUT/r/high-new.jsonl
step high-idle 70 ./gpucrypto-idle bench server $OPS --callers 2048,16384,65536 --seconds 0.4 --warmup 0.2 --json-out $OUT/r/high-idle.jsonl
step signing 40 ./batch-new.test -test.run XXX -test.bench BenchmarkOffloadSigning -test.benchtime 20000x
cd $OUT && tar czf results.tgz r log.txt steps.txt && rm -rf r
