#!/usr/bin/env bash
# Session 22, call 11 (one H100), main b6a52a1: the suites that batch.Parallel
# in pieces and SignASN1Into touch, through CUDA; the P-256 family at
# 1,048,576 (the ECDH rows call 6 lost), two rounds; a trace of Ed25519
# signing for the next session.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o; R=$PWD
for f in gc ecdsa.test ed25519.test batch.test engine.test rsa.test; do xz -dc before/b/$f.xz > /tmp/$f; chmod +x /tmp/$f; done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/info.txt
(cd $R/batch && /tmp/batch.test -test.count=1 2>&1 | tail -1) | tee $O/tests.txt
(cd $R/internal/engine && /tmp/engine.test -test.count=1 2>&1 | tail -1) | tee -a $O/tests.txt
(cd $R/ecdsa && timeout 150 /tmp/ecdsa.test -test.count=1 2>&1 | tail -2) | tee -a $O/tests.txt
(cd $R/ed25519 && timeout 150 /tmp/ed25519.test -test.count=1 -test.skip 'TestKernelForms' 2>&1 | tail -2) | tee -a $O/tests.txt
(cd $R/rsa && timeout 120 /tmp/rsa.test -test.count=1 -test.run 'TestSign|TestDecrypt|TestServer|TestWycheproof' 2>&1 | tail -2) | tee -a $O/tests.txt
cd /tmp
for round in 1 2; do
  echo "== round $round" | tee -a $O/p256.txt
  ./gc bench ecdsa --batch 1048576 --seconds 1 --no-auto 2>/dev/null | grep -E "ecdsa-|ecdh-" | tee -a $O/p256.txt
done
./gc bench ed25519 --ops ed25519-sign --batch 1048576 --no-auto --seconds 0.4 --trace $O/ed-sign.trace > $O/trace-run.txt 2>&1
xz -T0 $O/ed-sign.trace
echo "all done $SECONDS"
