#!/bin/bash
# call 2 (a fresh H200): gpucrypto-old / aes-old.test = 23326e4 (session 34's HEAD), gpucrypto /
# aes.test = 862ceaf (this session's batch commits). The kernel cache filled ahead by call 1 is
# carried (cache.tgz), so no kernel is compiled here.
# (a) BenchmarkServerSeal old/new; (b) the CPU path's rows at 16-256 callers at 23326e4, two rounds
# (the same rows at 862ceaf are in (c)); (c) every Server beside Go at 862ceaf, 2,048-65,536
# callers first (one round), then 1-256 (two rounds). Cut to fit the session's device time left.
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins2.tgz -C $B && cd $B && tar xzf cache.tgz -C /tmp
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; ./gpucrypto version; nproc; du -sh /tmp/gc-cache; } >> $OUT/log.txt 2>&1
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; echo "#### $name: $*" >> $OUT/log.txt; timeout $limit "$@" >> $OUT/log.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
step aes-seal-old 15 ./aes-old.test -test.run xxx -test.bench ServerSeal -test.benchtime 0.5s -test.cpu 1,16
step aes-seal-new 15 ./aes.test -test.run xxx -test.bench ServerSeal -test.benchtime 0.5s -test.cpu 1,16
step low-old 35 ./gpucrypto-old bench server --ops ed25519-sign,ecdsa-p256-sign,ecdh-p256 --forms blocking,async --callers 16,64,256 --rounds 2 --seconds 0.3 --warmup 0.1
step server-high 110 ./gpucrypto bench server --callers 2048,16384,65536 --seconds 0.4 --warmup 0.2 --json-out $OUT/server-high.jsonl
step server-low 160 ./gpucrypto bench server --callers 1,16,64,256 --rounds 2 --seconds 0.3 --warmup 0.1 --json-out $OUT/server-low.jsonl
cat $OUT/steps.txt
