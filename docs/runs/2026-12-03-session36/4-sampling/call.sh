#!/bin/bash
# call 4: gpucrypto-route2 = route (call 3) with one sampled request per 100 µs (the sample claimed:
# in route every request that started before the last sample ended was sampled, each with two
# system calls for the thread's CPU clock) beside gpucrypto-old (a23b77a): route2, old, route2.
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins4.tgz -C $B && cd $B && tar xzf cache.tgz -C /tmp
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; echo "#### $name: $*" >> $OUT/log.txt; timeout $limit "$@" >> $OUT/log.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
LOW="--ops ed25519-sign,ecdsa-p256-verify,ecdh-p256 --forms blocking,async --callers 16,64,256,2048 --rounds 2 --seconds 0.3 --warmup 0.1"
step a-route2 70 ./gpucrypto-route2 bench server $LOW --json-out $OUT/low-route2.jsonl
step b-old 70 ./gpucrypto-old bench server $LOW --json-out $OUT/low-old.jsonl
step c-route2 70 ./gpucrypto-route2 bench server $LOW --json-out $OUT/low-route2b.jsonl
cat $OUT/steps.txt
