#!/bin/bash
# session 39 call 1: the idle CPU path's bound at 32 requests a core (cap32, working tree) beside
# 16 (cap16, 8e228df) and none (idle, 412cbf2), at the crossover rows and the decaps row.
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins3.tgz -C $B && cd $B
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
mkdir -p $OUT/r
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; echo "#### $name: $*" >> $OUT/log.txt; timeout $limit "$@" >> $OUT/log.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
nproc >> $OUT/log.txt
OPS="--ops ed25519-sign,ecdsa-p256-sign,ecdsa-p256-verify,ecdh-p256,mlkem768-decaps --forms blocking,async"
step warm 120 ./gpucrypto-cap32 bench server $OPS --callers 64 --seconds 0.1 --warmup 0.1
DEC="--ops mlkem768-decaps --forms blocking --callers 2048,16384,65536 --seconds 0.4 --warmup 0.2"
for b in cap32 cap16 idle cap32 cap16 idle; do step dec-$b 40 ./gpucrypto-$b bench server $DEC --json-out $OUT/r/dec-$b-$SECONDS.jsonl; done
for b in cap32 cap16 cap32 cap16 idle; do step mid-$b 90 ./gpucrypto-$b bench server $OPS --callers 64,256,2048,16384 --rounds 2 --seconds 0.3 --warmup 0.1 --json-out $OUT/r/mid-$b-$SECONDS.jsonl; done
tar czf $OUT/cache.tgz -C /tmp gc-cache
cd $OUT && tar czf results.tgz r log.txt steps.txt && rm -rf r
