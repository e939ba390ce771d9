#!/usr/bin/env bash
# The twenty-third session's first device call (one H100): (1) Ed25519
# signing, main (M) against cut-after-pack (A) and cut-gosched (G), three
# rounds at 1,048,576 (and ECDSA signing, which PackInTurn also drives);
# (2) the P-256 field on doubles against mont256.h (p256-fp64-field's
# benchmark); (3) if built, the compact fp64 squaring (C) against M:
# modexp 1024/2048 and RSA-2048 kernels, and its arith tests through CUDA.
# Build: bash before/build-next.sh; carry ["before/b"]; run: bash before/b/call.sh.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o; R=$PWD
for f in before/b/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/info.txt
(cd $R/kernels && GPUCRYPTO_REQUIRE_DEVICE=1 GPUCRYPTO_BACKEND=cuda timeout 200 /tmp/kernels-p256.test -test.run 'P256FP64|P256FieldChain' -test.v 2>&1 | grep -E '^(---|ok|FAIL|PASS)') | tee $O/p256-tests.txt
(cd $R/kernels && GPUCRYPTO_REQUIRE_DEVICE=1 GPUCRYPTO_BACKEND=cuda timeout 200 /tmp/kernels-p256.test -test.run '^$' -test.bench 'P256FieldForms' -test.benchtime 10x -test.count 3 2>&1 | grep -E "^Benchmark|ok|FAIL") | tee $O/p256-forms.txt
cd /tmp
S="--seconds 1 --no-auto"
for round in 1 2 3; do for b in M A G; do
  echo "== round $round build $b" | tee -a $O/cut-ab.txt
  ./gc-$b bench ed25519 --ops ed25519-sign --batch 1048576 $S 2>/dev/null | grep -E "ed25519-" | tee -a $O/cut-ab.txt
  ./gc-$b bench ecdsa --ops ecdsa-p256-sign --batch 1048576 $S 2>/dev/null | grep -E "ecdsa-" | tee -a $O/cut-ab.txt
done; done
if [ -x /tmp/gc-C ]; then
  (cd $R/arith && timeout 240 /tmp/arith-sq.test -test.count=1 -test.run 'FP64' 2>&1 | tail -3) | tee $O/sq-tests.txt
  for round in 1 2; do for b in M C; do
    echo "== round $round build $b" | tee -a $O/sq-ab.txt
    ./gc-$b bench rsa --ops modexp --bits 1024,2048 --batch 131072 --seconds 0.7 --no-auto 2>/dev/null | grep modexp | tee -a $O/sq-ab.txt
    ./gc-$b bench rsa --ops rsa2048 --batch 65536 --seconds 0.7 --no-auto 2>/dev/null | grep rsa2048 | tee -a $O/sq-ab.txt
  done; done
fi
echo "all done $SECONDS"
