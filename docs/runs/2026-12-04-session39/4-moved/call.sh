#!/bin/bash
# session 39 call 4: fix2 = fix (the CPU path's queue bounded by 32 a core) + a moved sample's wall
# time counted only where no thread's CPU-time sample renewed the estimate for 250 ms; beside fix.
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins6.tgz -C $B && cd $B && tar xzf cache.tgz -C /tmp
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
R=$OUT/r; mkdir -p $R
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; echo "#### $name: $*" >> $OUT/log.txt; timeout $limit "$@" >> $OUT/log.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
OPS="--ops ed25519-sign,ecdsa-p256-sign,ecdsa-p256-verify,ecdh-p256,mlkem768-decaps --forms blocking,async"
DEC="--ops mlkem768-decaps --forms blocking --callers 2048,16384,65536 --seconds 0.4 --warmup 0.2"
for b in fix2 fix fix2 fix; do step mid-$b 75 ./gpucrypto-$b bench server $OPS --callers 64,256,2048 --rounds 2 --seconds 0.3 --warmup 0.1 --json-out $R/mid-$b-$SECONDS.jsonl; done
for b in fix2 fix2; do step dec-$b 30 ./gpucrypto-$b bench server $DEC --json-out $R/dec-$b-$SECONDS.jsonl; done
cd $OUT && tar czf results.tgz r log.txt steps.txt && rm -rf r
