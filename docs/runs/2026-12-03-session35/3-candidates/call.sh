#!/bin/bash
# call 3 (a fresh H200, the session's last device time): gpucrypto-old = 23326e4, gpucrypto-a =
# 4b3416e (ddc7837 + one clock reading a request, on the one-slot-a-core CPU path; the FIFO slots
# and 16 slots a core of call 2's build dropped), gpucrypto-b = dd69b9b (+ estimates renewed after
# 250 ms). The kernel cache of call 1 is carried. Ordered by what decides what lands.
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins3.tgz -C $B && cd $B && tar xzf cache.tgz -C /tmp
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; echo "#### $name: $*" >> $OUT/log.txt; timeout $limit "$@" >> $OUT/log.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
LOW="--ops ed25519-sign,ecdsa-p256-sign,ecdh-p256 --forms blocking,async --callers 16,64,256 --rounds 2 --seconds 0.3 --warmup 0.1"
HIGH="--ops ed25519-sign,ecdsa-p256-sign,x25519 --forms blocking,async --callers 2048,16384,65536 --seconds 0.4 --warmup 0.2"
step low-a 35 ./gpucrypto-a bench server $LOW
step low-old 35 ./gpucrypto-old bench server $LOW
step high-b 40 ./gpucrypto-b bench server $HIGH
step high-a 40 ./gpucrypto-a bench server $HIGH
step low-b 35 ./gpucrypto-b bench server $LOW
step high-old 40 ./gpucrypto-old bench server $HIGH
cat $OUT/steps.txt
