#!/usr/bin/env bash
# The twentieth session's second machine: main now (N) against the
# session's start (M) and pack-in-turn alone (P); X448; burn-in; suites.
set -uo pipefail
PART=${1:-1}
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache PATH=$PATH:/usr/local/cuda/bin
mkdir -p /tmp/gpucrypto-cache /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
for f in before/b2/*.xz; do b=$(basename $f .xz); [ -x /tmp/$b ] || { xz -dc $f > /tmp/$b; chmod +x /tmp/$b; }; done
cd /tmp
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/$PART-info.txt
if [ "$PART" = 1 ]; then
(./gc-N bench ecdsa --batch 1024 --seconds 0.05 --no-auto >/dev/null 2>&1; echo "warm ecdsa $SECONDS") &
(./gc-N bench ed25519 --batch 1024 --seconds 0.05 --no-auto >/dev/null 2>&1; echo "warm ed25519 $SECONDS") &
(./gc-N bench ecdh --ops x448 --batch 1024 --seconds 0.05 --no-auto >/dev/null 2>&1; ./gc-M bench ecdh --ops x448 --batch 1024 --seconds 0.05 --no-auto >/dev/null 2>&1; echo "warm x448 $SECONDS") &
wait
for r in 1 2; do for v in M P N; do
	echo "== $v $r $SECONDS"
	./gc-$v bench ed25519 --ops ed25519-sign,ed25519-keygen --batch 1048576 --no-auto 2>/dev/null | tail -2
	./gc-$v bench ecdsa --ops ecdsa-p256-sign,ecdh-p256-keygen --batch 1048576 --no-auto 2>/dev/null | tail -2
done; done 2>&1 | tee $OUT/1-host-ab.txt
for r in 1 2; do for v in M N; do echo "== $v $r $SECONDS"; ./gc-$v bench ecdh --ops x448,x448-binv,x448-keygen --batch 262144,1048576 --no-auto 2>/dev/null | tail -6; done; done | tee $OUT/1-x448-ab.txt
echo "== profile N $SECONDS"
./gc-N bench ecdsa --ops ecdsa-p256-sign --batch 1048576 --no-auto --seconds 1 --cpuprofile $OUT/1-ecdsa-sign-N.prof 2>&1 | tail -2 | tee $OUT/1-profile.txt
echo "== server N $SECONDS"
./gc-N bench server --ops rsa2048,x25519 --callers 16384,65536 --forms blocking,async --seconds 1.5 --warmup 0.5 2>/dev/null | tail -8 | tee $OUT/1-server-N.txt
fi
if [ "$PART" = 2 ]; then
echo "== burnin ecdsa $SECONDS"
timeout 200 ./gc-N burnin --ops ecdsa --cases 105000000 --seed 20261126 --progress 30s 2>&1 | tail -12 | tee $OUT/2-burnin-ecdsa.txt
echo "== burnin ed25519 $SECONDS"
timeout 200 ./gc-N burnin --ops ed25519 --cases 105000000 --seed 20261126 --progress 30s 2>&1 | tail -12 | tee $OUT/2-burnin-ed25519.txt
echo "== done $SECONDS"
fi
if [ "$PART" = 3 ]; then
export GPUCRYPTO_REQUIRE_DEVICE=1
(GPUCRYPTO_BACKEND=cuda timeout 280 ./ecdh.test -test.v -test.skip CUDABuild > $OUT/3-ecdh-cuda.log 2>&1; echo "ecdh cuda rc=$? $SECONDS") &
(GPUCRYPTO_BACKEND=opencl timeout 280 ./ecdh.test -test.v -test.skip CUDABuild > $OUT/3-ecdh-opencl.log 2>&1; echo "ecdh opencl rc=$? $SECONDS") &
(GPUCRYPTO_BACKEND=cuda timeout 280 ./ecdsa.test -test.v -test.skip CUDABuild > $OUT/3-ecdsa-cuda.log 2>&1; echo "ecdsa cuda rc=$? $SECONDS") &
(GPUCRYPTO_BACKEND=cuda timeout 280 ./ed25519.test -test.v -test.skip CUDABuild > $OUT/3-ed25519-cuda.log 2>&1; echo "ed25519 cuda rc=$? $SECONDS") &
wait
for f in $OUT/3-*.log; do echo "$f: $(grep -c '^--- PASS' $f) pass, $(grep -c '^--- FAIL' $f) fail"; grep -E '^--- FAIL|^panic' $f | head -5; done
fi
echo "all done $SECONDS"
