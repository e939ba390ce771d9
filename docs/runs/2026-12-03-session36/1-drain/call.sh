#!/bin/bash
# call 1 (a fresh H200): gpucrypto-old = a23b77a (session 34's code), gpucrypto-next = session 35's
# load series + the MaxDelay floor (patches/load, patches/next), gpucrypto-drain = next + asynchronous
# requests queued for a CPU slot drained in turn by the goroutine that leaves one. batch-*.test:
# BenchmarkOffloadAsync (16 submitters) of old and drain. Ordered by what decides what lands.
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins1.tgz -C $B && cd $B
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; echo "#### $name: $*" >> $OUT/log.txt; timeout $limit "$@" >> $OUT/log.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
OPS="--ops ed25519-sign,ecdsa-p256-sign,ecdh-p256,x25519"
LOW="$OPS --forms blocking,async --callers 16,64,256,2048 --rounds 2 --seconds 0.3 --warmup 0.1"
HIGH="--ops ed25519-sign,ecdsa-p256-sign --forms blocking,async --callers 2048,16384,65536 --seconds 0.4 --warmup 0.2"
step warm 200 ./gpucrypto-old bench server $OPS --forms blocking --callers 1 --seconds 0.05 --warmup 0.05
step low-drain 80 ./gpucrypto-drain bench server $LOW --json-out $OUT/low-drain.jsonl
step low-old 80 ./gpucrypto-old bench server $LOW --json-out $OUT/low-old.jsonl
step low-next 80 ./gpucrypto-next bench server $LOW --json-out $OUT/low-next.jsonl
step async-old 40 ./batch-old.test -test.run XXX -test.bench OffloadAsync -test.benchtime 1s
step async-drain 40 ./batch-drain.test -test.run XXX -test.bench OffloadAsync -test.benchtime 1s
step high-drain 60 ./gpucrypto-drain bench server $HIGH
step high-old 60 ./gpucrypto-old bench server $HIGH
step aes-prof 30 ./gpucrypto-old bench server --ops aes-gcm --forms blocking --callers 16 --seconds 2 --warmup 0.3 --cpuprofile $OUT/aes16.prof
tar czf $OUT/cache.tgz -C /tmp gc-cache
cat $OUT/steps.txt
