#!/bin/bash
# call 1 (a fresh H200): cd32718 (gpucrypto-old) against f4d77c1+62080ee (gpucrypto: a put's look
# at the queue's limit from a recent sum, one clock reading in Go, ECDSA's hedged randomness made by
# its batch): the heavy rows old and new in turn, two rounds each; then the new binary's heavy async
# rows by Pipeline (3, 4) and with 32 submitters; a CPU profile of the CPU path's async rows at 16
# and 64 in flight; a runtime trace of ECDSA signing at 65,536 in flight
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins1.tgz -C $B && cd $B
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt; ./gpucrypto version >> $OUT/gpu.txt 2>&1
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; echo "#### $name: $*" >> $OUT/log.txt; timeout $limit "$@" >> $OUT/log.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
step kernelinfo-ahead 150 ./gpucrypto kernelinfo --compute-capability 9.0
HA="--ops ed25519-sign,ecdsa-p256-sign,ed25519-verify,ecdsa-p256-verify,x25519 --forms async --callers 65536 --seconds 0.5 --warmup 0.3 --rounds 2"
HB="--ops rsa2048,x25519 --forms blocking --callers 16384 --seconds 0.5 --warmup 0.3 --rounds 2"
step heavy-async-old 60 ./gpucrypto-old bench server $HA
step heavy-async-new 60 ./gpucrypto bench server $HA
step heavy-blocking-old 40 ./gpucrypto-old bench server $HB
step heavy-blocking-new 40 ./gpucrypto bench server $HB
HS="--ops ed25519-sign,ecdsa-p256-sign,ed25519-verify,ecdsa-p256-verify --forms async --callers 65536 --seconds 0.5 --warmup 0.3"
step pipeline-3 40 ./gpucrypto bench server $HS --pipeline 3
step pipeline-4 40 ./gpucrypto bench server $HS --pipeline 4
step submitters-32 40 ./gpucrypto bench server $HS --submitters 32
step low-profile 60 ./gpucrypto bench server --ops ed25519-sign,ecdh-p256 --forms async --callers 16,64 --seconds 2 --warmup 0.3 --cpuprofile $OUT/low.prof
step trace 40 ./gpucrypto bench server --ops ecdsa-p256-sign --forms async --callers 65536 --seconds 0.25 --warmup 0.3 --trace /tmp/ecdsa.trace
gzip -c /tmp/ecdsa.trace > $OUT/ecdsa-trace.gz; ls -la /tmp/ecdsa.trace $OUT >> $OUT/steps.txt
cat $OUT/steps.txt
grep -E "^(####|ed25519|ecdsa|x25519|rsa2048)" $OUT/log.txt | cut -c1-200
