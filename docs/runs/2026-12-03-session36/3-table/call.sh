#!/bin/bash
# call 3: the whole bench server table of gpucrypto-route (next + the CPU path's estimate from the
# thread's CPU time, a CPU probe under every rule, the batched count a sum of the intake's shards)
# beside gpucrypto-old (a23b77a) on the same machine, old without aes-gcm (its Server computes in
# the caller's goroutine: no routing). Interleaved: route low, old low, route high, old at 2,048 alone.
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins3.tgz -C $B && cd $B && tar xzf cache.tgz -C /tmp
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; echo "#### $name: $*" >> $OUT/log.txt; timeout $limit "$@" >> $OUT/log.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
ALL=rsa2048,aes-gcm,x25519,ed25519-sign,ed25519-verify,ecdsa-p256-sign,ecdsa-p256-sign-rfc6979,ecdsa-p256-verify,ecdh-p256,mlkem768-encaps,mlkem768-decaps
NOAES=rsa2048,x25519,ed25519-sign,ed25519-verify,ecdsa-p256-sign,ecdsa-p256-sign-rfc6979,ecdsa-p256-verify,ecdh-p256,mlkem768-encaps,mlkem768-decaps
LOW="--forms blocking,async --callers 1,16,64,256 --rounds 2 --seconds 0.3 --warmup 0.1"
HIGH="--forms blocking,async --callers 2048,16384,65536 --seconds 0.4 --warmup 0.2"
step low-route 200 ./gpucrypto-route bench server --ops $ALL $LOW --json-out $OUT/low-route.jsonl
step low-old 140 ./gpucrypto-old bench server --ops $NOAES $LOW --json-out $OUT/low-old.jsonl
step high-route 110 ./gpucrypto-route bench server --ops $ALL $HIGH --json-out $OUT/high-route.jsonl
step high-old 60 ./gpucrypto-old bench server --ops $NOAES --forms blocking,async --callers 2048 --seconds 0.4 --warmup 0.2 --json-out $OUT/high-old.jsonl
cat $OUT/steps.txt
