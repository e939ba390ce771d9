#!/usr/bin/env bash
# Session 27 call 3: how rsa.Server's callers are answered. gc-R
# (rsa-answer-hybrid 7b26b40, with --answer-piece/--answer-alongside)
# run as P (--answer-piece -1: Parallel, main's way), A (its default:
# pieces of 128, the worker alongside), K (pieces of 1,024 alongside),
# H (512 alongside), and N (main bbc4446); RSA-2048 blocking at 16,384
# and 65,536 callers on one and two GPUs, three rounds. Then X25519 with
# the worker alongside its pieces of 128 (X) against ecdh's default (D).
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o
for f in before/d/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cp before/d/call.sh $O/call.sh; cd /tmp
{ nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } | tee $O/info.txt
./gc-N bench server --ops x25519,rsa2048 --devices 1,2 --callers 16384 --forms blocking --seconds 0.3 --warmup 0.2 >/dev/null 2>&1
echo "warm $SECONDS" | tee -a $O/info.txt
declare -A V=([N]="" [P]="--answer-piece -1" [A]="" [K]="--answer-piece 1024 --answer-alongside" [H]="--answer-piece 512 --answer-alongside")
for round in 1 2 3; do for v in N P A K H; do
  g=gc-R; [ $v = N ] && g=gc-N
  echo "== round $round variant $v" | tee -a $O/rsa.txt
  ./$g bench server --ops rsa2048 --devices 1,2 --callers 16384,65536 --forms blocking ${V[$v]} --seconds 1.5 --warmup 0.5 2>/dev/null | grep '^ *rsa' | tee -a $O/rsa.txt
done; done
echo "rsa done $SECONDS" | tee -a $O/info.txt
declare -A X=([D]="" [X]="--answer-alongside")
for round in 1 2; do for v in D X; do
  echo "== round $round variant $v" | tee -a $O/x25519.txt
  ./gc-R bench server --ops x25519 --devices 1,2 --callers 65536 --forms blocking ${X[$v]} --seconds 1.2 --warmup 0.4 2>/dev/null | grep '^ *x25519' | tee -a $O/x25519.txt
  ./gc-R bench server --ops x25519 --devices 1,2 --callers 262144 --forms async-frames ${X[$v]} --seconds 1.2 --warmup 0.4 2>/dev/null | grep '^ *x25519' | tee -a $O/x25519.txt
done; done
echo "all done $SECONDS" | tee -a $O/info.txt
