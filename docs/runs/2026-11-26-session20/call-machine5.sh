#!/usr/bin/env bash
# Fifth machine: KT = main + key-table (ECDSA signing's key table) against
# H = 86ffa31; the ecdsa suite through CUDA and NVIDIA OpenCL with KT;
# burn-in of KT's signing.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
for f in before/b5/*.xz; do b=$(basename $f .xz); xz -dc $f > /tmp/$b; chmod +x /tmp/$b; done
cd /tmp
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/info.txt
(./gc-H bench ecdsa --ops ecdsa-p256-sign --batch 1024 --seconds 0.05 --no-auto >/dev/null 2>&1; ./gc-KT bench ecdsa --ops ecdsa-p256-sign --batch 1024 --seconds 0.05 --no-auto >/dev/null 2>&1; echo "warm $SECONDS")
for r in 1 2 3; do for v in H KT; do
	echo "== $v $r $SECONDS"
	./gc-$v bench ecdsa --ops ecdsa-p256-sign --batch 131072,1048576 --no-auto 2>/dev/null | tail -2
done; done 2>&1 | tee $OUT/kt-ab.txt
./gc-KT bench ecdsa --ops ecdsa-p256-sign --batch 1048576 --no-auto --seconds 1 --cpuprofile $OUT/ecdsa-sign-KT.prof 2>&1 | tail -1 | tee $OUT/profile.txt
export GPUCRYPTO_REQUIRE_DEVICE=1
(GPUCRYPTO_BACKEND=cuda timeout 200 ./ecdsa-KT.test -test.v -test.skip CUDABuild > $OUT/ecdsa-KT-cuda.log 2>&1; echo "cuda rc=$? $SECONDS") &
(GPUCRYPTO_BACKEND=opencl timeout 200 ./ecdsa-KT.test -test.v -test.skip CUDABuild > $OUT/ecdsa-KT-opencl.log 2>&1; echo "opencl rc=$? $SECONDS") &
wait
for f in $OUT/ecdsa-KT-*.log; do echo "$f: $(grep -c '^--- PASS' $f) pass, $(grep -c '^--- FAIL' $f) fail"; grep -E '^--- FAIL|^panic' $f | head -5; done
unset GPUCRYPTO_REQUIRE_DEVICE
timeout 150 ./gc-KT burnin --ops ecdsa --cases 105000000 --seed 20261127 --progress 30s 2>&1 | tail -6 | tee $OUT/burnin-ecdsa-KT.txt
echo "all done $SECONDS"
