#!/bin/bash
# session 39 call 3: the CPU path's queue bounded by 32 requests a core (fix, working tree on
# 339a12c) beside 339a12c (head): the decapsulation rows alone, in turn, then 5 ops at 64-16,384,
# then the whole high table (where call 2's decapsulation row at 16,384 stayed on the CPU).
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins5.tgz -C $B && cd $B && tar xzf cache.tgz -C /tmp
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
R=$OUT/r; mkdir -p $R
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; echo "#### $name: $*" >> $OUT/log.txt; timeout $limit "$@" >> $OUT/log.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
ALL=rsa2048,aes-gcm,x25519,ed25519-sign,ed25519-verify,ecdsa-p256-sign,ecdsa-p256-sign-rfc6979,ecdsa-p256-verify,ecdh-p256,mlkem768-encaps,mlkem768-decaps
OPS="--ops ed25519-sign,ecdsa-p256-sign,ecdsa-p256-verify,ecdh-p256,mlkem768-decaps --forms blocking,async"
DEC="--ops mlkem768-decaps --forms blocking --callers 2048,16384,65536 --seconds 0.4 --warmup 0.2"
for b in fix head fix head fix head fix head; do step dec-$b 40 ./gpucrypto-$b bench server $DEC --json-out $R/dec-$b-$SECONDS.jsonl; done
for b in fix head; do step mid-$b 90 ./gpucrypto-$b bench server $OPS --callers 64,256,2048,16384 --rounds 2 --seconds 0.3 --warmup 0.1 --json-out $R/mid-$b-$SECONDS.jsonl; done
for b in fix head; do step high-$b 110 ./gpucrypto-$b bench server --ops $ALL --forms blocking,async --callers 2048,16384,65536 --seconds 0.4 --warmup 0.2 --json-out $R/high-$b-$SECONDS.jsonl; done
cd $OUT && tar czf results.tgz r log.txt steps.txt && rm -rf r
