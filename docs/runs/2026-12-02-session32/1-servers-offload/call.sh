#!/bin/bash
# call 1 (a fresh H200), at 7d139fe: the asynchronous CPU path on the host's 16 cores without the
# GPU (BenchmarkOffloadAsync); the kernel cache filled ahead; every Server beside Go (aes.Server
# after ab6b0a6 measured for the first time); a CPU profile of Ed25519 signing, async, 64 and 256
# in flight (the rows at 0.71-0.77 of Go in session 31)
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins1.tgz -C $B && cd $B
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $OUT/gpu.txt; nproc >> $OUT/gpu.txt; cat COMMIT >> $OUT/gpu.txt
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; timeout $limit "$@" > $OUT/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
step offload 60 ./batch.test -test.run '^$' -test.bench 'OffloadAsync' -test.benchtime 1s -test.count 2
step kernelinfo-ahead 200 ./gpucrypto kernelinfo --compute-capability 9.0
step server 290 ./gpucrypto bench server --seconds 0.4 --warmup 0.2 --json-out $OUT/server.jsonl
step profile 40 ./gpucrypto bench server --ops ed25519-sign,ecdsa-p256-sign --forms async --callers 64,256 --seconds 2 --warmup 0.5 --cpuprofile $OUT/async.prof
cat $OUT/steps.txt; grep -E "Benchmark" $OUT/offload.txt; tail -3 $OUT/kernelinfo-ahead.txt
grep -E "aes-gcm|rsa2048 .*65,536|x25519 .*(16,384|65,536)|async .*65,536" $OUT/server.txt | head -40; tail -12 $OUT/profile.txt
