#!/bin/bash
# call 2: gpucrypto-new = call 1's new build with the slots held only while the batched path has
# work (CPUOffload left to its default; with none batched and none answered for a batch's wait the
# CPU path takes requests beyond the slots, as the load rule allows). Its whole table (11 ops, 1 to
# 65,536), then c6eedd5 (gpucrypto-old) and new again on four ops, low and high (ed25519-sign
# first, as in call 1, where its blocking row at 2,048 stayed on the CPU); then batch's
# BenchmarkOffloadSigning old/new and aes's BenchmarkServerSeal (shared GCM against one a goroutine).
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins2.tgz -C $B && cd $B && tar xzf cache.tgz -C /tmp
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
R=$OUT/r; mkdir -p $R
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; echo "#### $name: $*" >> $OUT/log.txt; timeout $limit "$@" >> $OUT/log.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
ALL=rsa2048,aes-gcm,x25519,ed25519-sign,ed25519-verify,ecdsa-p256-sign,ecdsa-p256-sign-rfc6979,ecdsa-p256-verify,ecdh-p256,mlkem768-encaps,mlkem768-decaps
OPS=ed25519-sign,ecdsa-p256-sign,ecdsa-p256-verify,ecdh-p256
LOW="--forms blocking,async --callers 1,16,64,256 --rounds 2 --seconds 0.3 --warmup 0.1"
HIGH="--forms blocking,async --callers 2048,16384,65536 --seconds 0.4 --warmup 0.2"
step low-new 200 ./gpucrypto-new bench server --ops $ALL $LOW --json-out $R/low-new.jsonl
step high-new 110 ./gpucrypto-new bench server --ops $ALL $HIGH --json-out $R/high-new.jsonl
step low-old 60 ./gpucrypto-old bench server --ops $OPS $LOW --json-out $R/low-old.jsonl
step high-old 40 ./gpucrypto-old bench server --ops $OPS $HIGH --json-out $R/high-old.jsonl
step high-newb 40 ./gpucrypto-new bench server --ops $OPS $HIGH --json-out $R/high-newb.jsonl
for r in 1 2; do
  for v in old new; do
    step sign-$v-$r 30 ./batch-$v.test -test.run XXX -test.bench OffloadSigning -test.benchtime 100000x
  done
  step aes-$r 30 ./aes-new.test -test.run XXX -test.bench ServerSeal -test.benchtime 2000000x -test.cpu 16
done
tar czf $OUT/cache.tgz -C /tmp gc-cache
tar czf $OUT/results.tgz -C $OUT r && rm -rf $R
cat $OUT/steps.txt
