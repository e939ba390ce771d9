#!/bin/bash
# session 39 call 2: the whole table at HEAD (11 ops, 1 to 65,536, both forms), then CPU profiles of
# the rows below 0.95 that stay: ECDSA P-256 signing blocking at 256, Ed25519 signing async at 64.
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins4.tgz -C $B && cd $B && tar xzf cache.tgz -C /tmp
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
R=$OUT/r; mkdir -p $R
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; echo "#### $name: $*" >> $OUT/log.txt; timeout $limit "$@" >> $OUT/log.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
ALL=rsa2048,aes-gcm,x25519,ed25519-sign,ed25519-verify,ecdsa-p256-sign,ecdsa-p256-sign-rfc6979,ecdsa-p256-verify,ecdh-p256,mlkem768-encaps,mlkem768-decaps
LOW="--forms blocking,async --callers 1,16,64,256 --rounds 2 --seconds 0.3 --warmup 0.1"
HIGH="--forms blocking,async --callers 2048,16384,65536 --seconds 0.4 --warmup 0.2"
step low 280 ./gpucrypto-head bench server --ops $ALL $LOW --json-out $R/low.jsonl
step high 130 ./gpucrypto-head bench server --ops $ALL $HIGH --json-out $R/high.jsonl
step prof-ecdsa 40 ./gpucrypto-head bench server --ops ecdsa-p256-sign --forms blocking --callers 256 --seconds 2 --warmup 0.3 --cpuprofile $R/ecdsa-sign-blk256.prof --json-out $R/prof-ecdsa.jsonl
step prof-ed 40 ./gpucrypto-head bench server --ops ed25519-sign --forms async --callers 64 --seconds 2 --warmup 0.3 --cpuprofile $R/ed-sign-async64.prof --json-out $R/prof-ed.jsonl
tar czf $OUT/cache.tgz -C /tmp gc-cache
cd $OUT && tar czf results.tgz r log.txt steps.txt && rm -rf r
