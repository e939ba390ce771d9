#!/bin/bash
# call 4 (the machine of call 3, warm: its kernel cache): every Server operation beside Go at 1 to
# 65,536 callers, blocking and async (rows written as measured), after session 30's CPU-path commits
cd /tmp/b
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gc-cache
timeout 280 ./gpucrypto bench server --seconds 0.4 --warmup 0.2 --json-out $OUT/server.jsonl > $OUT/server.txt 2>&1; echo "== server rc=$? $SECONDS s"
tail -5 $OUT/server.txt
