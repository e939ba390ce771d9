#!/bin/bash
# call 3: gpucrypto-cap = call 2's build (gpucrypto-idle) with the requests computing at once while
# the batched path is idle bounded by 16 a core (idleSlotsPerCore): in call 2 ML-KEM-768
# decapsulation at 16,384 blocking callers ran 38.8% on the CPU (354K/s, session 36: 1.11M).
# The high rows of every op with cap; ML-KEM decapsulation and X25519 high with idle and cap in
# turn; the signing ops low with cap; batch's BenchmarkOffloadSigning idle/cap.
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins3.tgz -C $B && cd $B && tar xzf cache.tgz -C /tmp
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
R=$OUT/r; mkdir -p $R
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; echo "#### $name: $*" >> $OUT/log.txt; timeout $limit "$@" >> $OUT/log.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
ALL=rsa2048,aes-gcm,x25519,ed25519-sign,ed25519-verify,ecdsa-p256-sign,ecdsa-p256-sign-rfc6979,ecdsa-p256-verify,ecdh-p256,mlkem768-encaps,mlkem768-decaps
LOW="--forms blocking,async --callers 1,16,64,256 --rounds 2 --seconds 0.3 --warmup 0.1"
HIGH="--forms blocking,async --callers 2048,16384,65536 --seconds 0.4 --warmup 0.2"
step high-cap 110 ./gpucrypto-cap bench server --ops $ALL $HIGH --json-out $R/high-cap.jsonl
step two-idle 30 ./gpucrypto-idle bench server --ops mlkem768-decaps,x25519 $HIGH --json-out $R/two-idle.jsonl
step two-cap 30 ./gpucrypto-cap bench server --ops mlkem768-decaps,x25519 $HIGH --json-out $R/two-cap.jsonl
step low-cap 40 ./gpucrypto-cap bench server --ops ed25519-sign,ecdsa-p256-sign $LOW --json-out $R/low-cap.jsonl
for v in idle cap; do
  step sign-$v 30 ./batch-$v.test -test.run XXX -test.bench OffloadSigning -test.benchtime 100000x
done
tar czf $OUT/results.tgz -C $OUT r && rm -rf $R
cat $OUT/steps.txt
