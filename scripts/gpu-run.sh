#!/usr/bin/env bash
# gpu-run.sh — the whole GPU check-and-bench in one call (copied into the
# bundle as run.sh by `make gpu-bundle`). Run it from the bundle directory:
#
#   ./run.sh [quick|full] [PHASE...]      (default: quick, every phase)
#
# Phases, in order: info (devices; kernelinfo: registers/spills of every
# kernel on both backends), ptx (every test binary on the GPU through
# OpenCL with the inline-PTX path), portable (the same with
# GPUCRYPTO_NO_PTX=1), cuda (every test binary through the CUDA backend),
# selftest (both backends), bench (JSON and table, OpenCL then CUDA), and,
# when named, aes (AES bench, both backends and layouts), aes-ncu (ncu on
# the AES kernels), aes-conflicts (ncu: shared-memory bank conflicts against
# constant and random input), sweep (RSA against batch size, CUDA), e2e
# (one caller at large batches), server (bench server), tls (bench tls) and
# burnin (gpucrypto burnin: 10^8 X25519 and 10^7 RSA-2048 random cases
# checked against the CPU, through CUDA) and million (RFC 7748's
# 1,000,000-iteration vector of one curve, in parts from a checkpoint).
# A whole run takes more than one device call
# allows (10 minutes: most of it is NVIDIA's compiler building every kernel
# configuration), so it can be split, e.g. `./run.sh quick info ptx` then
# `./run.sh quick portable selftest bench`; the kernel cache
# (GPUCRYPTO_CACHE_DIR, default /tmp/gpucrypto-cache) carries builds from
# one call to the next while the machine stays warm. Logs go to $OUT (or
# ./out). SUITE_TIMEOUT bounds each test binary (default 9m); TESTS="rsa arith"
# runs only those test binaries.
set -uo pipefail
cd "$(dirname "$0")"
MODE=${1:-quick}
shift || true
PHASES=" ${*:-info ptx portable cuda selftest bench} "
OUT=${OUT:-./out}
mkdir -p "$OUT"
want() { [[ "$PHASES" == *" $1 "* ]]; }

for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/nvidia/lib64; do
	if [ -e "$d/libnvidia-opencl.so.1" ] && [ ! -e /etc/OpenCL/vendors/nvidia.icd ]; then
		mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
		echo "registered NVIDIA OpenCL ICD ($d/libnvidia-opencl.so.1)"
		break
	fi
done

export GPUCRYPTO_REQUIRE_DEVICE=1
export GPUCRYPTO_DEVICE=${GPUCRYPTO_DEVICE:-nvidia}
export GPUCRYPTO_CACHE_DIR=${GPUCRYPTO_CACHE_DIR:-/tmp/gpucrypto-cache}
[ "$MODE" = full ] && export GPUCRYPTO_FULL=1

# Files that come back: info.txt, tests-ptx.log, tests-portable.log,
# tests-cuda.log, bench-opencl.txt/.json, bench-cuda.txt/.json (sweep.txt,
# sweep.json).
INFO="$OUT/info.txt"
if [ -x ./gpucrypto ]; then   # absent from a bundle cut down to one test binary
	./gpucrypto devices | tee -a "$INFO"
	GPUCRYPTO_BACKEND=opencl ./gpucrypto devices | tee -a "$INFO"
fi
if want info; then
	for b in opencl cuda; do
		# cold builds (no disk cache): the compile time of each program
		{ GPUCRYPTO_NO_CACHE=1 GPUCRYPTO_BACKEND=$b ./gpucrypto kernelinfo; GPUCRYPTO_BACKEND=$b GPUCRYPTO_NO_PTX=1 ./gpucrypto kernelinfo; } >> "$INFO" 2>&1
	done
fi

fail=0
summary=()
for path in "ptx" "portable" "cuda"; do
	want $path || continue
	# ptx and portable: through OpenCL; cuda: through the CUDA backend
	backend=opencl
	[ "$path" = cuda ] && backend=cuda
	for t in ./*.test; do
		name=$(basename "$t" .test)
		# TESTS="rsa arith" runs only those binaries (default: every one)
		[ -n "${TESTS:-}" ] && [[ " $TESTS " != *" $name "* ]] && continue
		log="$OUT/test-$name-$path.part"
		start=$(date +%s)
		if [ "$path" = portable ]; then
			GPUCRYPTO_BACKEND=$backend GPUCRYPTO_NO_PTX=1 "$t" -test.v -test.timeout "${SUITE_TIMEOUT:-9m}" > "$log" 2>&1
		else
			GPUCRYPTO_BACKEND=$backend "$t" -test.v -test.timeout "${SUITE_TIMEOUT:-9m}" > "$log" 2>&1
		fi
		rc=$?
		{ echo "===== $name ($path) rc=$rc"; cat "$log"; } >> "$OUT/tests-$path.log"
		passed=$(grep -c -- '^--- PASS' "$log"); failed=$(grep -c -- '--- FAIL' "$log")
		summary+=("$(printf '%-14s %-9s rc=%d pass=%-3d fail=%-3d %3ds' "$name" "$path" $rc "$passed" "$failed" $(( $(date +%s) - start )))")
		echo "${summary[-1]}"
		[ $rc -ne 0 ] && { fail=1; grep -E -- '--- FAIL|FAIL|panic|Error' "$log" | head -20; }
		rm -f "$log"
	done
done

if want selftest; then
	for b in opencl cuda; do
		GPUCRYPTO_BACKEND=$b ./gpucrypto selftest | tee -a "$INFO" || fail=1
		GPUCRYPTO_BACKEND=$b GPUCRYPTO_NO_PTX=1 ./gpucrypto selftest >> "$INFO" 2>&1 || fail=1
	done
fi

# quick: the headline operations (full: every op at the default batches)
QUICK_OPS=modexp,rsa2048,rsa4096,x25519,x25519-keygen,x448,x448-keygen
if want bench; then
	if [ "$MODE" = full ]; then BENCH_ARGS=${BENCH_ARGS:-}; else BENCH_ARGS=${BENCH_ARGS:---ops $QUICK_OPS}; fi
	for b in ${BENCH_BACKENDS:-opencl cuda}; do
		GPUCRYPTO_BACKEND=$b ./gpucrypto bench --json-out "$OUT/bench-$b.json" $BENCH_ARGS 2>> "$INFO" | tee "$OUT/bench-$b.txt" || fail=1
	done
fi
# aes: AES throughput through CUDA (both table layouts) and OpenCL, then
# ncu on the CTR and GCM kernels (instructions and shared-memory
# wavefronts per block, bank conflicts: 0 is the constant-time layout's
# claim). AES_ARGS adds flags to every bench.
if want aes; then
	for cfg in ${AES_CONFIGS:-cuda:auto cuda:compact opencl:auto}; do
		b=${cfg%%:*}; layout=${cfg#*:}
		GPUCRYPTO_BACKEND=$b ./gpucrypto bench aes --layout $layout --json-out "$OUT/aes-$b-$layout.json" ${AES_ARGS:-} 2>> "$INFO" | tee "$OUT/aes-$b-$layout.txt" || fail=1
	done
	# the JSON reports in one file (the device tool brings back few files)
	( cd "$OUT" && tar czf aes-json.tgz aes-*.json && rm -f aes-*.json )
fi
if want aes-ncu && command -v ncu >/dev/null; then
	for layout in ${NCU_LAYOUTS:-auto compact}; do
		for op in ctr gcm; do
			echo "===== ncu layout=$layout op=$op" >> "$OUT/ncu.txt"
			GPUCRYPTO_BACKEND=cuda ncu --metrics smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_lsu.sum \
				-k regex:'aes_ctr|gcm_hash|gcm_crypt' -c 2 ./gpucrypto bench aes --layout $layout --shapes resident --ops $op --keys 128 --resident-mb 256 --seconds 0.05 --no-cpu \
				2>&1 | grep -v '^==PROF==' >> "$OUT/ncu.txt" || fail=1
		done
	done
fi
# aes-conflicts: shared-memory bank conflicts of the ECB kernels with a
# constant and with random input, under ncu. The library's replicated
# layouts must show the same (data-independent) count for both; the
# Manavski variant, whose tables are shared by the lanes, will not.
if want aes-conflicts && command -v ncu >/dev/null; then
	for layout in auto compact; do
		for fill in 0 random; do
			echo "===== conflicts layout=$layout fill=$fill" >> "$OUT/ncu.txt"
			GPUCRYPTO_BACKEND=cuda ncu --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,gpu__time_duration.sum \
				-k regex:'aes_ecb_encrypt|manavski_ecb_encrypt' -c 2 ./gpucrypto bench aes --layout $layout --shapes resident,manavski --ops ecb --keys 128 --resident-mb 64 --seconds 0.02 --no-cpu --fill $fill \
				2>&1 | grep -v '^==PROF==' >> "$OUT/ncu.txt" || fail=1
		done
	done
fi
# sweep: RSA private operations per second and latency against batch size
if want sweep; then
	GPUCRYPTO_BACKEND=${SWEEP_BACKEND:-cuda} ./gpucrypto bench --ops rsa2048,rsa3072,rsa4096 --batch ${SWEEP_BATCHES:-1,64,1024,8192,65536,262144} \
		--json-out "$OUT/sweep.json" 2>> "$INFO" | tee "$OUT/sweep.txt" || fail=1
fi

# e2e: one caller at large batches (kernel, end-to-end, pipelined: issue
# #11's "one caller at the best batch")
if want e2e; then
	GPUCRYPTO_BACKEND=${E2E_BACKEND:-cuda} ./gpucrypto bench --ops ${E2E_OPS:-rsa2048,x25519,x448} --batch ${E2E_BATCHES:-65536,262144,1048576} \
		--json-out "$OUT/e2e.json" 2>> "$INFO" | tee "$OUT/e2e.txt" || fail=1
fi
# server: the Servers against the number of concurrent callers (SERVER_ARGS
# adds flags, e.g. --devices 1,2 on a host with two GPUs)
if want server; then
	GPUCRYPTO_BACKEND=${SERVER_BACKEND:-cuda} ./gpucrypto bench server --json-out "$OUT/server.json" ${SERVER_ARGS:-} \
		2>> "$INFO" | tee "$OUT/server.txt" || fail=1
fi
# tls: crypto/tls handshakes with the certificate key on the CPU and on the
# GPU Signer, and a CPU profile of the GPU-key runs
if want tls; then
	GPUCRYPTO_BACKEND=${TLS_BACKEND:-cuda} ./gpucrypto bench tls --json-out "$OUT/tls.json" --cpuprofile "$OUT/tls.pprof" ${TLS_ARGS:-} \
		2>> "$INFO" | tee "$OUT/tls.txt" || fail=1
fi
# burnin: issue #13's burn-in targets, one run per operation (each bounded
# by --duration, so that both fit one 10-minute device call): report and
# progress lines in burnin.txt, failing cases (if any) in
# burnin-failures-OP.jsonl. BURNIN_RUNS lists op:cases pairs, BURNIN_ARGS
# adds flags.
if want burnin; then
	for run in ${BURNIN_RUNS:-x25519:100000000 rsa2048:10000000}; do
		op=${run%%:*}; cases=${run#*:}
		GPUCRYPTO_BACKEND=${BURNIN_BACKEND:-cuda} ./gpucrypto burnin --ops "$op" --cases "$cases" --duration ${BURNIN_DURATION:-4m} \
			--failures "$OUT/burnin-failures-$op.jsonl" ${BURNIN_ARGS:-} 2>> "$OUT/burnin.txt" | tee -a "$OUT/burnin.txt" || fail=1
	done
fi
# million: RFC 7748 §5.2's 1,000,000-iteration vector of CURVE (default
# X448) on the device, in parts (ecdh TestRFC7748IteratedMillion): the
# chain starts from CHECKPOINT_IN/<curve>.json when it exists (a copy of
# the last part's, e.g. docs/runs/2026-11-23-issue12-rfc7748/; else from
# the start), runs for FOR (default 8m, under one device call's limit) and
# leaves its checkpoint in $OUT/cp; the log is million-CURVE.txt.
if want million; then
	curve=${CURVE:-X448}
	mkdir -p "$OUT/cp"
	if [ -n "${CHECKPOINT_IN:-}" ] && [ -e "$CHECKPOINT_IN/$curve.json" ]; then
		cp "$CHECKPOINT_IN/$curve.json" "$OUT/cp/"
	fi
	GPUCRYPTO_BACKEND=${MILLION_BACKEND:-cuda} GPUCRYPTO_RFC7748_MILLION=1 GPUCRYPTO_RFC7748_CHECKPOINT="$OUT/cp" GPUCRYPTO_RFC7748_FOR=${FOR:-8m} \
		./ecdh.test -test.run "TestRFC7748IteratedMillion/$curve" -test.v -test.timeout 10m > "$OUT/million-$curve.txt" 2>&1 || fail=1
	grep -E "iterations|PASS|SKIP|FAIL" "$OUT/million-$curve.txt" | tail -4
fi

echo
echo "== tests =="
printf '%s\n' "${summary[@]}"
echo "== overall: $([ $fail = 0 ] && echo PASS || echo FAIL) =="
exit $fail
