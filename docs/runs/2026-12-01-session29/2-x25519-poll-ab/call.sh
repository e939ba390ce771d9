#!/bin/bash
# call 2: X25519 at 64 and 256 callers: polling waits (new = e68a2cc) against sleeping ones
# (nopoll = e68a2cc with device/stages.go's pollWhile = 0), Go beside each; a profile
cd "$(dirname "$0")"
tar xzf bins2.tgz
export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_CACHE_DIR=/tmp/gc-cache GOMAXPROCS=16
./gpucrypto-new bench server --ops x25519 --callers 1 --forms blocking --seconds 0.2 --warmup 0.1 >/dev/null 2>&1
for rep in 1 2; do
 for n in 64 256; do
  for b in new nopoll; do
   echo "=== $b $n"; ./gpucrypto-$b bench server --ops x25519 --callers $n --forms blocking,async --seconds 2 --warmup 0.5 2>&1 | grep "ops/s, p50"
  done
  ./gobase-bin -ops x25519 -callers $n -seconds 2
 done
done > $OUT/ab.txt
./gpucrypto-new bench server --ops x25519 --callers 256 --forms blocking --seconds 4 --warmup 0.5 --cpuprofile $OUT/x25519-256.prof > $OUT/prof.txt 2>&1
