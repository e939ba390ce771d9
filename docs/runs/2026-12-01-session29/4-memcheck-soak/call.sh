#!/bin/bash
# call 4 (right after call 3, the machine warm, the kernel cache there): the fault-capture run of issue #49:
# compute-sanitizer memcheck over the kernels at the bench's batch sizes, then soaks with GOTRACEBACK=crash,
# one with GOEXPERIMENT=nogreenteagc
cd "$(dirname "$0")"
[ -x gpucrypto ] || tar xzf bins3.tgz
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_CACHE_DIR=/tmp/gc-cache GPUCRYPTO_DEVICE=nvidia
ulimit -c unlimited 2>/dev/null
for op in "ecdsa-p256-verify 1048576" "ed25519-sign 1048576" "ecdsa-p256-sign 1048576" "x25519 262144" "rsa2048 65536"; do
  set -- $op
  start=$SECONDS
  timeout 33 compute-sanitizer --tool memcheck --print-limit 10 ./gpucrypto bench --ops $1 --batch $2 --seconds 0.01 --no-auto > $OUT/memcheck-$1.txt 2>&1
  echo "$1 $2: rc=$? in $((SECONDS-start)) s; $(grep -c 'Invalid\|ERROR SUMMARY' $OUT/memcheck-$1.txt) error lines; $(grep 'ERROR SUMMARY' $OUT/memcheck-$1.txt)"
done | tee $OUT/memcheck-summary.txt
for b in gpucrypto gpucrypto-nogt; do
  GOTRACEBACK=crash timeout 80 ./$b burnin --duration 70s --progress 20s > $OUT/soak-$b.txt 2>&1
  echo "$b: rc=$?"; tail -25 $OUT/soak-$b.txt
done
dmesg 2>&1 | grep -i -E "xid|nvrm: .*error" | tail -20 > $OUT/xid-after.txt; cat $OUT/xid-after.txt
