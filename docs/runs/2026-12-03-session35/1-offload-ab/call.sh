#!/bin/bash
# call 1 (a fresh H200): gpucrypto-old = 23326e4 (session 34's HEAD), gpucrypto-load = ddc7837 (the
# CPU path's load counts its own requests; its estimates renewed while its slots are full),
# gpucrypto = e56294c (+ the CPU slots passed in turn, cpuSlots).
# (a) the kernel cache filled ahead, kept as cache.tgz for later calls; (b) the three at 256 to
# 65,536 callers, both forms; (c) the CPU path's async rows at 16 to 256 in flight, two rounds,
# old against new, and GODEBUG gcshrinkstackoff; profiles; (d) ML-KEM-768 end to end at 1,048,576.
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins1.tgz -C $B && cd $B
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; ./gpucrypto version; nproc; } >> $OUT/log.txt 2>&1
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; echo "#### $name: $*" >> $OUT/log.txt; timeout $limit "$@" >> $OUT/log.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
step probe 30 ./probe
step kernelinfo-ahead 150 ./gpucrypto kernelinfo --compute-capability 9.0
tar czf $OUT/cache.tgz -C /tmp gc-cache; ls -la $OUT/cache.tgz >> $OUT/steps.txt
AB="--ops ed25519-sign,ecdsa-p256-sign,x25519,mlkem768-encaps --forms blocking,async --callers 256,2048,16384,65536 --seconds 0.4 --warmup 0.2"
step ab-old 100 ./gpucrypto-old bench server $AB
step ab-load 100 ./gpucrypto-load bench server $AB
step ab-slots 100 ./gpucrypto bench server $AB
LOW="--ops ed25519-sign,ecdsa-p256-sign,ecdh-p256 --forms blocking,async --callers 16,64,256 --rounds 2 --seconds 0.3 --warmup 0.1"
step low-old 40 ./gpucrypto-old bench server $LOW
step low-slots 40 ./gpucrypto bench server $LOW
GODEBUG=gcshrinkstackoff=1 step low-slots-noshrink 40 ./gpucrypto bench server $LOW
step prof-ecdsa 25 ./gpucrypto bench server --ops ecdsa-p256-sign --forms async --callers 256 --seconds 3 --warmup 0.3 --cpuprofile $OUT/ecdsa-async256.prof
step prof-ed 25 ./gpucrypto bench server --ops ed25519-sign --forms async --callers 64 --seconds 3 --warmup 0.3 --cpuprofile $OUT/ed-async64.prof
step mlkem 80 ./gpucrypto bench mlkem --ops mlkem768-keygen,mlkem768-encaps,mlkem768-decaps --batch 1048576 --seconds 1 --no-auto
cat $OUT/steps.txt
