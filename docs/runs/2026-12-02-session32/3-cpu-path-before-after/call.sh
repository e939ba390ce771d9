#!/bin/bash
# call 3 (a fresh H200), 7d139fe (gpucrypto-old) against a623726 (gpucrypto: the CPU path's
# goroutine pool, the Meter's shard by goroutine, aes.Server.Go computed at once): the low-load rows
# of the Servers that compute on the CPU, old and new in turn; crypto/cipher beside the aes
# Server on 1-16 cores (BenchmarkServerSeal); MaxBatch at 65,536 in flight (16,384 default, 32,768,
# 65,536) with a CPU profile of the default; then every Server beside Go at a623726
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins3.tgz -C $B && cd $B
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt; cat COMMIT >> $OUT/gpu.txt
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; timeout $limit "$@" > $OUT/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
step kernelinfo-ahead 150 ./gpucrypto kernelinfo --compute-capability 9.0
LOW="--ops ed25519-sign,ed25519-verify,ecdsa-p256-sign,ecdh-p256,aes-gcm --callers 1,16,64,256 --seconds 0.5 --warmup 0.2"
for r in 1; do
  step low-old-$r 90 ./gpucrypto-old bench server $LOW
  step low-new-$r 90 ./gpucrypto bench server $LOW
done
step seal 40 ./aes.test -test.run '^$' -test.bench 'ServerSeal' -test.cpu 1,4,16 -test.benchtime 0.5s
H="--ops ed25519-sign,ecdsa-p256-sign,x25519 --forms async --callers 65536 --seconds 0.5 --warmup 0.3"
step heavy-16384 60 ./gpucrypto bench server $H --cpuprofile $OUT/heavy.prof
step heavy-32768 60 ./gpucrypto bench server $H --max-batch 32768
step heavy-65536 60 ./gpucrypto bench server $H --max-batch 65536
step server 215 ./gpucrypto bench server --seconds 0.4 --warmup 0.2 --json-out $OUT/server.jsonl
cat $OUT/steps.txt
for f in low-old-1 low-new-1; do echo "# $f"; grep -E "^(ed25519|ecdsa|ecdh|aes)" $OUT/$f.txt | awk '{print $1,$2,$4,$5,$10,$12,$6,$11}'; done
grep Benchmark $OUT/seal.txt; for f in heavy-16384 heavy-32768 heavy-65536; do echo "# $f"; grep -E "^(ed25519|ecdsa|x25519)" $OUT/$f.txt | awk '{print $1,$2,$4,$5,$6,$9}'; done
