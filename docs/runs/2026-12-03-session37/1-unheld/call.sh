#!/bin/bash
# call 1: gpucrypto-new = c6eedd5 with the CPU path's sample taken on an unheld thread (no
# runtime.LockOSThread; a sample whose goroutine moved to another thread is dropped) and the load
# and queue rules weighed by the cores (GOMAXPROCS) rather than the slots; gpucrypto-old = c6eedd5.
# Low load new/old/new at the default slots (one a core), then new with 64 and 256 slots
# (--offload), low and high. Then the benchmarks of the Server's own cost on the CPU beside Go:
# aes BenchmarkServerSeal (new: the Meter's counts in 256 shards of their own, latencies in 32; old:
# 32 shards of both) and batch BenchmarkOffloadSigning (crypto/ecdsa signing from 16, 64, 256
# blocking callers), old and new in turn.
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins1.tgz -C $B && cd $B && tar xzf cache.tgz -C /tmp
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; echo "#### $name: $*" >> $OUT/log.txt; timeout $limit "$@" >> $OUT/log.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
OPS=ed25519-sign,ecdsa-p256-sign,ecdsa-p256-verify,ecdh-p256
LOW="--ops $OPS --forms blocking,async --callers 1,16,64,256 --rounds 2 --seconds 0.3 --warmup 0.1"
HIGH="--ops $OPS --forms blocking,async --callers 2048,16384,65536 --seconds 0.4 --warmup 0.2"
nproc > $OUT/nproc.txt
step a-new 90 ./gpucrypto-new bench server $LOW --json-out $OUT/low-new.jsonl
step b-old 70 ./gpucrypto-old bench server $LOW --json-out $OUT/low-old.jsonl
step c-new 70 ./gpucrypto-new bench server $LOW --json-out $OUT/low-newb.jsonl
step d-new64 70 ./gpucrypto-new bench server $LOW --offload 64 --json-out $OUT/low-new64.jsonl
step e-new256 70 ./gpucrypto-new bench server $LOW --offload 256 --json-out $OUT/low-new256.jsonl
step f-new-high 60 ./gpucrypto-new bench server $HIGH --json-out $OUT/high-new.jsonl
step g-new64-high 60 ./gpucrypto-new bench server $HIGH --offload 64 --json-out $OUT/high-new64.jsonl
step h-new256-high 60 ./gpucrypto-new bench server $HIGH --offload 256 --json-out $OUT/high-new256.jsonl
for r in 1 2; do
  for v in old new; do
    step aes-$v-$r 60 ./aes-$v.test -test.run XXX -test.bench ServerSeal -test.benchtime 2000000x -test.cpu 16
    step sign-$v-$r 60 ./batch-$v.test -test.run XXX -test.bench OffloadSigning -test.benchtime 100000x
  done
done
cat $OUT/steps.txt
