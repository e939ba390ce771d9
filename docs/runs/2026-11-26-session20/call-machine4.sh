#!/usr/bin/env bash
# Third machine, second call: H = 86ffa31 against HnT = H without touchPages
# (key generation and signing), and X448's Karatsuba form bounded to 3, 4
# (the default) and 5 groups per multiprocessor.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache
for f in before/b4/*.xz; do b=$(basename $f .xz); xz -dc $f > /tmp/$b; chmod +x /tmp/$b; done
cd /tmp
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/info.txt
(./gc-H bench ecdsa --batch 1024 --seconds 0.05 --no-auto >/dev/null 2>&1; ./gc-H bench ed25519 --batch 1024 --seconds 0.05 --no-auto >/dev/null 2>&1; echo "warm $SECONDS")
(GPUCRYPTO_REQUIRE_DEVICE=1 GPUCRYPTO_BACKEND=cuda GPUCRYPTO_BENCH_ECDH_BATCH=262144 timeout 280 ./ecdh.test -test.run XXX \
	-test.bench 'FieldForms/^(default|karatsuba-g3|karatsuba-g5)$/X448' -test.benchtime 20x -test.count 2 2>&1 | grep -E "^Benchmark|defines" > $OUT/x448-groups.txt; echo "x448 $SECONDS")
for r in 1 2 3; do for v in H HnT; do
	echo "== $v $r $SECONDS"
	./gc-$v bench ed25519 --ops ed25519-keygen,ed25519-sign --batch 1048576 --no-auto 2>/dev/null | tail -2
	./gc-$v bench ecdsa --ops ecdsa-p256-sign,ecdh-p256-keygen --batch 1048576 --no-auto 2>/dev/null | tail -2
done; done 2>&1 | tee $OUT/touch-ab.txt
cat $OUT/x448-groups.txt
echo "all done $SECONDS"
