#!/usr/bin/env bash
# bench-ab.sh — the device figures of two CLI builds on one warm GPU, one
# after the other per operation (before, after), for a before/after
# comparison of a change: bench-ab.sh BEFORE_BINARY AFTER_BINARY [PHASE...].
# Phases: ecdh (X25519 and X448 at 262,144 and 1,048,576), rsa (RSA-2048
# and -4096 at the same sizes), aes (AES-128 CTR and GCM, device-resident,
# 1 GiB), server (rsa.Server and ecdh.Server at 16,384 and 65,536
# callers). Logs and JSON go to $OUT (or ./out).
set -uo pipefail
BEFORE=$1 AFTER=$2
shift 2
PHASES=" ${*:-ecdh rsa aes server} "
OUT=${OUT:-./out}
mkdir -p "$OUT"
export GPUCRYPTO_DEVICE=${GPUCRYPTO_DEVICE:-nvidia}
export GPUCRYPTO_CACHE_DIR=${GPUCRYPTO_CACHE_DIR:-/tmp/gpucrypto-cache}
want() { [[ "$PHASES" == *" $1 "* ]]; }
# run NAME ARGS...: both builds, before then after (the after build without
# its RouteAuto figure where it has one: --no-auto)
run() {
	local name=$1
	shift
	echo "== $name: before" | tee -a "$OUT/ab.txt"
	"$BEFORE" "$@" --json-out "$OUT/$name-before.json" 2>/dev/null | tee -a "$OUT/ab.txt"
	echo "== $name: after" | tee -a "$OUT/ab.txt"
	"$AFTER" "$@" --no-auto --json-out "$OUT/$name-after.json" 2>/dev/null | tee -a "$OUT/ab.txt"
}
want ecdh && run ecdh bench ecdh --ops x25519,x448 --batch 262144,1048576 --seconds 1
want rsa && run rsa bench rsa --ops rsa2048,rsa4096 --batch 262144,1048576 --seconds 1
want aes && run aes bench aes --shapes resident --ops ctr,gcm --keys 128 --resident-mb 1024 --seconds 1
if want server; then
	for b in before after; do
		bin=$BEFORE
		[ $b = after ] && bin=$AFTER
		echo "== server: $b" | tee -a "$OUT/ab.txt"
		"$bin" bench server --ops rsa2048,x25519 --callers 16384,65536 --seconds 2 --json-out "$OUT/server-$b.json" 2>/dev/null | tee -a "$OUT/ab.txt"
	done
fi
