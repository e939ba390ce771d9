#!/bin/bash
# call 1: the scheduler (dc57fd1) against e05c7fd on one H200, Go beside; machine facts
# (gpucrypto-old = e05c7fd, gpucrypto-new = dc57fd1, both -tags cuda; gobase = gobase.go.txt)
cd "$(dirname "$0")"
tar xzf bins1.tgz
{ nproc; nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv; nvidia-smi -q | grep -i -B1 -A2 "addressing\|hmm"; } > $OUT/machine.txt 2>&1
nvidia-smi -q > $OUT/smi-q.txt 2>&1
(dmesg 2>&1 | grep -i -E "xid|nvrm" | tail -50) > $OUT/xid.txt
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_CACHE_DIR=/tmp/gc-cache GOMAXPROCS=16
ARGS="bench server --ops rsa2048,x25519 --callers 1,16,64,256,2048,16384 --forms blocking,async --seconds 1.5 --warmup 0.5"
for b in new old new; do
  echo "=== $b" ; timeout 170 ./gpucrypto-$b $ARGS 2>&1
done > $OUT/server.txt
timeout 60 ./gobase-bin -ops rsa2048,x25519 -callers 1,16,64,256,2048,16384 -seconds 1.5 > $OUT/go.txt 2>&1
