#!/bin/bash
# call 4: ML-KEM-768 decapsulation at 2,048-65,536, c6eedd5 (gpucrypto-old) and 86cdcb5
# (gpucrypto-idle) in turn: old, new, old, new.
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins4.tgz -C $B && cd $B && tar xzf cache.tgz -C /tmp
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; echo "#### $name: $*" >> $OUT/log.txt; timeout $limit "$@" >> $OUT/log.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
HIGH="--ops mlkem768-decaps --forms blocking --callers 2048,16384,65536 --seconds 0.4 --warmup 0.2"
step old1 30 ./gpucrypto-old bench server $HIGH
step new1 30 ./gpucrypto-idle bench server $HIGH
step old2 30 ./gpucrypto-old bench server $HIGH
step new2 30 ./gpucrypto-idle bench server $HIGH
