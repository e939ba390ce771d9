#!/usr/bin/env bash
# Session 21, call 4 (one H100): gc-P (4c9baa2: before the poll's back-off),
# gc-Y (main: the back-off counted in yields), gc-C (main + the intake's
# queues of waiting callers, branch collapse262k), alternating, two rounds.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o
for f in before/e/*.xz; do b=$(basename $f .xz); xz -dc $f > /tmp/$b; chmod +x /tmp/$b; done
cd /tmp
O=$OUT/o
nvidia-smi --query-gpu=name --format=csv,noheader > $O/info.txt
(./gc-Y bench ecdh --ops x25519 --batch 1024 --seconds 0.05 --no-auto >/dev/null 2>&1; ./gc-Y bench server --ops rsa2048 --callers 16 --forms blocking --seconds 0.2 --warmup 0.1 >/dev/null 2>&1; ./gc-Y bench aes --ops ctr --shapes resident --seconds 0.1 >/dev/null 2>&1; ./gc-Y bench ed25519 --batch 1024 --seconds 0.05 --no-auto >/dev/null 2>&1; ./gc-Y bench ecdsa --batch 1024 --seconds 0.05 --no-auto >/dev/null 2>&1; echo "warm $SECONDS")
for r in 1 2; do for v in ${BUILDS:-gc-P gc-Y gc-C}; do
  echo "== $v $r $SECONDS"
  ./$v bench server --ops x25519 --callers 65536,262144 --forms blocking --seconds 1.5 --warmup 0.5 2>/dev/null | tail -2
  ./$v bench server --ops rsa2048 --callers 16384,65536 --forms blocking,async --seconds 1.5 --warmup 0.5 2>/dev/null | tail -4
  ./$v bench aes --ops ctr,gcm --shapes resident 2>/dev/null | tail -4 | grep -v " 256 "
  ./$v bench ed25519 --ops ed25519-sign,ed25519-verify --batch 1048576 --no-auto 2>/dev/null | tail -2
  ./$v bench ecdsa --ops ecdsa-p256-sign --batch 1048576 --no-auto 2>/dev/null | tail -1
done; done 2>&1 | tee $O/ab.txt
for v in gc-P gc-Y; do echo "== tls $v $SECONDS"; ./$v bench tls --deployed --keys gpu --versions 1.3,1.2 --concurrency 2048 --server-cpus 0-5 --client-cpus 6-15 --seconds 2 --cpuprofile $O/tls-$v.prof 2>/dev/null | tail -3; done 2>&1 | tee $O/tls-ab.txt
cd $O && tar czf profiles.tgz *.prof* && rm -f *.prof*
echo "all done $SECONDS"
