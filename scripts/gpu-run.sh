#!/usr/bin/env bash
# gpu-run.sh — the whole GPU check-and-bench in one call (copied into the
# bundle as run.sh by `make gpu-bundle`). Run it from the bundle directory:
#
#   ./run.sh [quick|full]         (default quick)
#
# 1. registers the NVIDIA OpenCL ICD when the driver exists but is not
#    registered; 2. lists devices; 3. runs every test binary on the GPU with
#    the inline-PTX path, then again with GPUCRYPTO_NO_PTX=1 (portable path);
# 4. self-test; 5. benchmark (JSON and table). Logs go to $OUT (or ./out).
set -uo pipefail
cd "$(dirname "$0")"
MODE=${1:-quick}
OUT=${OUT:-./out}
mkdir -p "$OUT"

for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/nvidia/lib64; do
	if [ -e "$d/libnvidia-opencl.so.1" ] && [ ! -e /etc/OpenCL/vendors/nvidia.icd ]; then
		mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
		echo "registered NVIDIA OpenCL ICD ($d/libnvidia-opencl.so.1)"
		break
	fi
done

export GPUCRYPTO_REQUIRE_DEVICE=1
export GPUCRYPTO_DEVICE=${GPUCRYPTO_DEVICE:-nvidia}
export GPUCRYPTO_CACHE_DIR=${GPUCRYPTO_CACHE_DIR:-$PWD/.cache}
[ "$MODE" = full ] && export GPUCRYPTO_FULL=1

# Five files come back: info.txt, tests-ptx.log, tests-portable.log, bench.txt, bench.json.
INFO="$OUT/info.txt"
./gpucrypto devices | tee "$INFO"
{ ./gpucrypto kernelinfo; GPUCRYPTO_NO_PTX=1 ./gpucrypto kernelinfo; } >> "$INFO" 2>&1

fail=0
summary=()
for path in "ptx" "portable"; do
	for t in ./*.test; do
		name=$(basename "$t" .test)
		log="$OUT/test-$name-$path.part"
		start=$(date +%s)
		if [ "$path" = portable ]; then
			GPUCRYPTO_NO_PTX=1 "$t" -test.v -test.timeout 20m > "$log" 2>&1
		else
			"$t" -test.v -test.timeout 20m > "$log" 2>&1
		fi
		rc=$?
		{ echo "===== $name ($path) rc=$rc"; cat "$log"; } >> "$OUT/tests-$path.log"
		passed=$(grep -c -- '^--- PASS' "$log"); failed=$(grep -c -- '--- FAIL' "$log")
		summary+=("$(printf '%-14s %-9s rc=%d pass=%-3d fail=%-3d %3ds' "$name" "$path" $rc "$passed" "$failed" $(( $(date +%s) - start )))")
		[ $rc -ne 0 ] && { fail=1; grep -E -- '--- FAIL|FAIL|panic|Error' "$log" | head -20; }
		rm -f "$log"
	done
done

./gpucrypto selftest | tee -a "$INFO" || fail=1
GPUCRYPTO_NO_PTX=1 ./gpucrypto selftest >> "$INFO" 2>&1 || fail=1

# quick: the headline operations (full: every op at the default batches)
QUICK_OPS=modexp,rsa2048,rsa4096,x25519,x25519-keygen,x25519-binv,x25519-keygen-binv,x448,x448-keygen
if [ "$MODE" = full ]; then BENCH_ARGS=${BENCH_ARGS:-}; else BENCH_ARGS=${BENCH_ARGS:---ops $QUICK_OPS}; fi
./gpucrypto bench --json-out "$OUT/bench.json" $BENCH_ARGS 2>> "$INFO" | tee "$OUT/bench.txt" || fail=1

echo
echo "== tests =="
printf '%s\n' "${summary[@]}"
echo "== overall: $([ $fail = 0 ] && echo PASS || echo FAIL) =="
exit $fail
