#!/bin/bash
# call 1 (a fresh H200, 16 cores): at the Pipeline-3 commit. (a) what one goroutine handoff costs on
# this host: a plain-Go program (sched, its source beside this script) signing Ed25519 from N
# submitters with one call in flight each, computed in the submitter (inline), through a pool of
# goroutines (pool: as batch's cpuPool; plain, claim, yield: variants), on a new goroutine per call
# (spawn), and N goroutines looping (go). (b) the heavy rows by Pipeline (the new default 3 against 2).
# (c) the CPU path at 64 and 256 blocking callers by CPUOffload (the CPU path's slots: 16, 64, 256),
# and profiles of ECDSA signing at 64 blocking callers and Ed25519 signing at 16 async.
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins1.tgz -C $B && cd $B
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt; ./gpucrypto version >> $OUT/gpu.txt 2>&1; nproc >> $OUT/gpu.txt
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; echo "#### $name: $*" >> $OUT/log.txt; timeout $limit "$@" >> $OUT/log.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
step sched 60 ./sched -subs 1,16,64,256 -rounds 2 -d 300ms
step kernelinfo-ahead 150 ./gpucrypto kernelinfo --compute-capability 9.0
HS="--ops ed25519-sign,ecdsa-p256-sign,ed25519-verify,ecdsa-p256-verify --callers 65536 --seconds 0.4 --warmup 0.2"
step heavy-p3 60 ./gpucrypto bench server $HS --forms async --rounds 2
step heavy-p2 60 ./gpucrypto bench server $HS --forms async --rounds 2 --pipeline 2
HB="--ops ed25519-sign,ecdsa-p256-sign,ed25519-verify,ecdsa-p256-verify --callers 2048,16384 --forms blocking --seconds 0.4 --warmup 0.2"
step blocking-p3 60 ./gpucrypto bench server $HB
step blocking-p2 60 ./gpucrypto bench server $HB --pipeline 2
LO="--ops ed25519-sign,ecdsa-p256-sign --forms blocking --callers 64,256 --seconds 0.3 --warmup 0.1 --rounds 2"
step offload-16 40 ./gpucrypto bench server $LO
step offload-64 40 ./gpucrypto bench server $LO --offload 64
step offload-256 40 ./gpucrypto bench server $LO --offload 256
step prof-ecdsa-blocking-64 30 ./gpucrypto bench server --ops ecdsa-p256-sign --forms blocking --callers 64 --seconds 2 --warmup 0.2 --cpuprofile $OUT/ecdsa-b64.prof
step prof-ed25519-async-16 30 ./gpucrypto bench server --ops ed25519-sign --forms async --callers 16 --seconds 2 --warmup 0.2 --cpuprofile $OUT/ed-a16.prof
step trace-ed25519-async-16 30 ./gpucrypto bench server --ops ed25519-sign --forms async --callers 16 --seconds 0.2 --warmup 0.1 --trace /tmp/ed.trace
gzip -c /tmp/ed.trace > $OUT/ed-trace.gz; ls -la /tmp/ed.trace $OUT >> $OUT/steps.txt
cat $OUT/steps.txt
grep -E "^(####|ed25519|ecdsa|go |inline|pool|plain|spawn|claim|yield)" $OUT/log.txt | cut -c1-200
