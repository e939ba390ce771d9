#!/usr/bin/env bash
# Session 24, call 4 (the same warm machine): Ed25519 signing at 1,048,576,
# main (M) against read-halves (R), four rounds alternating.
set -uo pipefail
export GPUCRYPTO_DEVICE=nvidia GPUCRYPTO_CACHE_DIR=/tmp/gpucrypto-cache GPUCRYPTO_REQUIRE_DEVICE=1
mkdir -p /tmp/gpucrypto-cache $OUT/o; O=$OUT/o; R=$PWD
[ -x /tmp/gc-R ] || for f in before/c/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/$n; chmod +x /tmp/$n; done
cd /tmp
timeout 150 ./gc-M bench ed25519 --ops ed25519-sign --batch 65536 --seconds 0.3 --no-auto >/dev/null 2>&1   # the kernels built once (disk cache)
for round in 1 2 3 4; do for b in M R; do
  echo "== round $round build $b" | tee -a $O/ed25519-ab.txt
  timeout 60 ./gc-$b bench ed25519 --ops ed25519-sign --batch 1048576 --seconds 1 --no-auto 2>/dev/null | grep -E "ed25519-" | tee -a $O/ed25519-ab.txt
done; done
echo "all done $SECONDS"
