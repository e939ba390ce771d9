#!/usr/bin/env bash
# Session 26 call 9: RSA-2048 blocking at 16,384 on one engine lost 26%
# with answer pieces (M); H takes pieces in the worker too, O keeps the
# pieces to ecdh.Server (as merged in 2906c48). N (601098d), M (e7a1d17,
# branch answer-pieces-all), H (79b8292, branch answer-hybrid), O, two rounds.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/c/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done; cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc-N bench server --ops x25519,rsa2048 --devices 1,2 --callers 16384 --forms blocking --seconds 0.3 --warmup 0.2 >/dev/null 2>&1
for round in 1 2; do for b in N M H O; do
  echo "== round $round build $b" | tee -a $O/ab.txt
  ./gc-$b bench server --ops rsa2048 --devices 1 --callers 16384 --forms blocking --seconds 1.5 --warmup 0.5 2>/dev/null | tail -1 | tee -a $O/ab.txt
  ./gc-$b bench server --ops x25519 --devices 1,2 --callers 16384,65536 --forms blocking --seconds 1.2 --warmup 0.4 2>/dev/null | tail -4 | tee -a $O/ab.txt
done; done
echo "all done $SECONDS"
