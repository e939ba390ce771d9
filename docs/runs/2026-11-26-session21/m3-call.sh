#!/usr/bin/env bash
# Session 21, call 3 (one H100): the poll's back-off, gc (c5ee88a) against
# gc-P (4c9baa2, the build before it), alternating: the deployed TLS
# server's profile (driver waits) and rate, Servers, X25519 and AES
# resident calls (the polled shapes).
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o
for f in before/d/*.xz; do b=$(basename $f .xz); xz -dc $f > /tmp/$b; chmod +x /tmp/$b; done
cd /tmp
O=$OUT/o
nvidia-smi --query-gpu=name --format=csv,noheader > $O/info.txt
(./gc bench ecdh --ops x25519 --batch 1024 --seconds 0.05 --no-auto >/dev/null 2>&1; ./gc bench server --ops rsa2048 --callers 16 --forms blocking --seconds 0.2 --warmup 0.1 >/dev/null 2>&1; ./gc bench aes --ops ctr --shapes resident --seconds 0.1 >/dev/null 2>&1; echo "warm $SECONDS")
${EXTRA_BEFORE:-true}
for r in 1 2; do for v in gc-P gc; do
  echo "== $v $r $SECONDS"
  ./$v bench tls --deployed --keys gpu --versions 1.3,1.2 --concurrency 2048 --server-cpus 0-5 --client-cpus 6-15 --seconds 2 --cpuprofile $O/tls-$v-$r.prof 2>/dev/null | tail -3
  ./$v bench server --ops x25519 --callers 16384,65536 --forms async,async-frames --seconds 1 --warmup 0.5 2>/dev/null | tail -4
  ./$v bench ecdh --ops x25519 --batch 16384,131072 --no-auto 2>/dev/null | tail -2
  ./$v bench aes --ops ctr,gcm --shapes resident 2>/dev/null | tail -4
done; done 2>&1 | tee $O/poll-ab.txt
${EXTRA_AFTER:-true}
echo "== x25519 262144 blocking, gctrace $SECONDS"
GODEBUG=gctrace=1 ./gc bench server --ops x25519 --callers 65536,262144 --forms blocking --seconds 1.5 --warmup 0.5 --cpuprofile $O/x25519-262k.prof 2> $O/x25519-262k-gctrace.txt | tail -3 | tee $O/x25519-262k.txt
cd $O && tar czf profiles.tgz *.prof* && rm -f *.prof*
echo "all done $SECONDS"
