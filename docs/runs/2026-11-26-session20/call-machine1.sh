#!/usr/bin/env bash
# The twentieth session's first device call (before/build-next.sh): the
# nineteenth session's candidates against main, alternating, one card.
# Three calls (each under 10 minutes): bash before/b/call.sh 1, 2, 3.
set -uo pipefail
PART=${1:-1}
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache PATH=$PATH:/usr/local/cuda/bin
mkdir -p /tmp/gpucrypto-cache
for f in before/b/*.xz; do b=$(basename $f .xz); xz -dc $f > /tmp/$b; chmod +x /tmp/$b; done
cd /tmp
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/$PART-info.txt
if [ "$PART" = 1 ]; then
(./gc-M bench ecdsa --batch 1024 --seconds 0.05 --no-auto >/dev/null 2>&1; echo "warm ecdsa $SECONDS") &
(./gc-M bench ed25519 --batch 1024 --seconds 0.05 --no-auto >/dev/null 2>&1; echo "warm ed25519 $SECONDS") &
wait
for r in 1 2; do for v in M P PS PC; do
	echo "== $v $r $SECONDS"
	./gc-$v bench ed25519 --ops ed25519-sign,ed25519-keygen,ed25519-verify --batch 1048576 --no-auto 2>/dev/null | tail -3
	./gc-$v bench ecdsa --ops ecdsa-p256-sign,ecdsa-p256-verify,ecdh-p256,ecdh-p256-keygen --batch 1048576 --no-auto 2>/dev/null | tail -4
done; done 2>&1 | tee $OUT/1-host-ab.txt
echo "== profiles $SECONDS"
for v in M P; do ./gc-$v bench ecdsa --ops ecdsa-p256-sign --batch 1048576 --no-auto --seconds 1 --cpuprofile $OUT/1-ecdsa-sign-$v.prof 2>/dev/null | tail -1; done | tee $OUT/1-profiles.txt
timeout 30 ./gc-P bench ed25519 --ops ed25519-sign --batch 1048576 --no-auto --seconds 0.3 --trace $OUT/1-sign-P.trace 2>/dev/null | tail -1; gzip -9 $OUT/1-sign-P.trace
fi
if [ "$PART" = 2 ]; then
echo "== server $SECONDS"
for r in 1 2; do for v in M B; do echo "== $v $r $SECONDS"; ./gc-$v bench server --ops rsa2048,x25519 --callers 16384,65536 --forms blocking,async --seconds 1.5 --warmup 0.5 2>/dev/null | tail -8; done; done | tee $OUT/2-server-ab.txt
echo "== x448 forms $SECONDS"
GPUCRYPTO_REQUIRE_DEVICE=1 GPUCRYPTO_BACKEND=cuda GPUCRYPTO_BENCH_ECDH_BATCH=262144 timeout 200 ./ecdh-K.test -test.run XXX \
	-test.bench 'FieldForms/^(default|karatsuba|karatsuba-unrolled|karatsuba-g4)$/X448' -test.benchtime 20x -test.count 2 2>&1 | grep -E "^Benchmark|defines" | tee $OUT/2-x448-forms.txt
fi
if [ "$PART" = 3 ]; then
GPUCRYPTO_REQUIRE_DEVICE=1 GPUCRYPTO_BACKEND=cuda timeout 150 ./ecdh-K.test -test.run 'TestFieldForms' > $OUT/3-ecdh-K-cuda.log 2>&1; echo "ecdh-K forms cuda rc=$? $SECONDS"
GPUCRYPTO_REQUIRE_DEVICE=1 GPUCRYPTO_BACKEND=cuda timeout 150 ./ecdsa-P.test -test.skip CUDABuild > $OUT/3-ecdsa-P-cuda.log 2>&1; echo "ecdsa-P cuda rc=$? $SECONDS"
GPUCRYPTO_REQUIRE_DEVICE=1 GPUCRYPTO_BACKEND=cuda timeout 100 ./ed25519-P.test -test.skip CUDABuild > $OUT/3-ed25519-P-cuda.log 2>&1; echo "ed25519-P cuda rc=$? $SECONDS"
fi
echo "all done $SECONDS"
