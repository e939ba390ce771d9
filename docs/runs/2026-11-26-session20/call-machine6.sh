#!/usr/bin/env bash
# Fifth machine: KT = main + key-table (ECDSA signing's key table) against
# H = 86ffa31; the ecdsa suite through CUDA and NVIDIA OpenCL with KT;
# (second form: one part per core).
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
for f in before/b6/*.xz; do b=$(basename $f .xz); xz -dc $f > /tmp/$b; chmod +x /tmp/$b; done
cd /tmp
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/info.txt
(./gc-H bench ecdsa --ops ecdsa-p256-sign --batch 1024 --seconds 0.05 --no-auto >/dev/null 2>&1; ./gc-KT bench ecdsa --ops ecdsa-p256-sign --batch 1024 --seconds 0.05 --no-auto >/dev/null 2>&1; echo "warm $SECONDS")
for r in 1 2 3; do for v in H KT; do
	echo "== $v $r $SECONDS"
	./gc-$v bench ecdsa --ops ecdsa-p256-sign --batch 1048576 --no-auto 2>/dev/null | tail -1
done; done 2>&1 | tee $OUT/kt-ab.txt
export GPUCRYPTO_REQUIRE_DEVICE=1
(GPUCRYPTO_BACKEND=cuda timeout 330 ./ecdsa-KT.test -test.v -test.skip CUDABuild > $OUT/ecdsa-KT-cuda.log 2>&1; echo "cuda rc=$? $SECONDS") &
(GPUCRYPTO_BACKEND=opencl timeout 330 ./ecdsa-KT.test -test.v -test.skip CUDABuild > $OUT/ecdsa-KT-opencl.log 2>&1; echo "opencl rc=$? $SECONDS") &
wait
for f in $OUT/ecdsa-KT-*.log; do echo "$f: $(grep -c '^--- PASS' $f) pass, $(grep -c '^--- FAIL' $f) fail"; grep -E '^--- FAIL|^panic' $f | head -5; done
echo "all done $SECONDS"
