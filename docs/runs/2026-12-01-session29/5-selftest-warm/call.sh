#!/bin/bash
# call 5 (after call 4 on the same warm machine, its kernel cache filled by calls 3 and 4): the whole selftest, warm
cd .devcall && tar xzf bins3.tgz gpucrypto && export GPUCRYPTO_BACKEND=cuda GPUCRYPTO_CACHE_DIR=/tmp/gc-cache GPUCRYPTO_DEVICE=nvidia && timeout 150 ./gpucrypto selftest > $OUT/selftest-warm.txt 2>&1
