#!/bin/bash
# call 2 (call 1's machine, warm: its kernel cache filled): every Server beside Go at f4d77c1+62080ee
# (bench server, 154 rows): from 1 to 256 callers in three rounds of 0.3 s windows (the row the
# median round, with its range), from 2,048 on one round of 0.4 s
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins1.tgz -C $B && cd $B
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt; ./gpucrypto version >> $OUT/gpu.txt 2>&1
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; timeout $limit "$@" > $OUT/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
step server-low 330 ./gpucrypto bench server --callers 1,16,64,256 --rounds 3 --seconds 0.3 --warmup 0.1 --json-out $OUT/server-low.jsonl
step server-high 200 ./gpucrypto bench server --callers 2048,16384,65536 --seconds 0.4 --warmup 0.2 --json-out $OUT/server-high.jsonl
cat $OUT/steps.txt
