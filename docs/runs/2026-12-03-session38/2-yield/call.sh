#!/bin/bash
# call 2: 8e228df (new) beside it with a yield after each CPU-path request while the batched path has requests (yield)
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins2.tgz -C $B && cd $B && tar xzf cache.tgz -C /tmp
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
mkdir -p $OUT/r
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; echo "#### $name: $*" >> $OUT/log.txt; timeout $limit "$@" >> $OUT/log.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
DEC="--ops mlkem768-decaps --forms blocking --callers 2048,16384,65536 --seconds 0.4 --warmup 0.2"
for b in yield new yield new yield new; do step dec-$b 40 ./gpucrypto-$b bench server $DEC --json-out $OUT/r/dec-$b-$SECONDS.jsonl; done
OPS="--ops ed25519-sign,ecdsa-p256-sign,ecdsa-p256-verify,ecdh-p256,mlkem768-decaps --forms blocking,async"
for b in yield new yield new; do step low-$b 90 ./gpucrypto-$b bench server $OPS --callers 16,64,256 --rounds 2 --seconds 0.3 --warmup 0.1 --json-out $OUT/r/low-$b-$SECONDS.jsonl; done
for b in yield new; do step high-$b 60 ./gpucrypto-$b bench server $OPS --callers 2048,16384,65536 --seconds 0.4 --warmup 0.2 --json-out $OUT/r/high-$b.jsonl; done
cd $OUT && tar czf results.tgz r log.txt steps.txt && rm -rf r
