#!/bin/bash
# call 2 (a fresh H200): selftest cold, the suites at once, with NVRTC's compilations NOT serialized
# (gpucrypto-unlocked: e9a743f with compileMu skipped under GPUCRYPTO_EXPERIMENT_NVRTC_UNLOCKED=1; call 1
# measured the same with the lock); then the soak with GOTRACEBACK=crash (Ed25519's fault-injection tests
# beside it), the ML-KEM burn-in, compute-sanitizer memcheck of the AES, X448 and ML-KEM kernels
B=/tmp/b; mkdir -p $B && tar xzf bundle/bins2.tgz -C $B && cd $B
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_CACHE_DIR=/tmp/gc-cache GPUCRYPTO_DEVICE=nvidia
ulimit -c unlimited 2>/dev/null
nvidia-smi --query-gpu=name,driver_version --format=csv | tee $OUT/gpu.txt; nproc >> $OUT/gpu.txt; cat COMMIT >> $OUT/gpu.txt
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS; timeout $limit "$@" > $OUT/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s (at $SECONDS s)" | tee -a $OUT/steps.txt; }
GPUCRYPTO_EXPERIMENT_NVRTC_UNLOCKED=1 step selftest-cold-jobs0-unlocked 170 ./gpucrypto-unlocked selftest --jobs 0
( GPUCRYPTO_REQUIRE_DEVICE=1 step fault-ed25519-fp64 150 ./ed25519.test -test.run 'Fault.*/fp64' -test.v ) &
GOTRACEBACK=crash GPUCRYPTO_CRASH_OUTPUT=$OUT/crash-output.txt step soak 130 ./gpucrypto burnin --soak --duration 110s --progress 20s
wait
step burnin-mlkem768 50 ./gpucrypto burnin --ops mlkem768 --duration 40s --progress 10s
for op in "x448 65536" "mlkem768-decaps 1048576" "mlkem1024-encaps 1048576"; do
  set -- $op; step memcheck-$1 30 compute-sanitizer --tool memcheck --print-limit 10 ./gpucrypto bench --ops $1 --batch $2 --seconds 0.01 --no-auto
done
step memcheck-aes 35 compute-sanitizer --tool memcheck --print-limit 10 ./gpucrypto bench aes --ops gcm,ctr,xts,cbc,ecb --batch-bytes 1500 --batch-mb 8 --bulk-mb 1 --keys 128 --seconds 0.01 --no-auto
dmesg 2>&1 | grep -i -E "xid|nvrm: .*error" | tail -20 > $OUT/xid-after.txt
cat $OUT/steps.txt; grep -h "ERROR SUMMARY" $OUT/memcheck-*.txt; tail -14 $OUT/selftest-cold-jobs0-unlocked.txt; tail -20 $OUT/soak.txt; tail -8 $OUT/burnin-mlkem768.txt; grep -E "^(--- |ok|PASS|FAIL)" $OUT/fault-ed25519-fp64.txt; cat $OUT/xid-after.txt
