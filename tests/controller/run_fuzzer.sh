#!/bin/sh
# run_fuzzer.sh FUZZER WORKDIR SEED_CORPUS DICT: a bounded libFuzzer run. New inputs go to
# WORKDIR/corpus (the checked-in seeds stay untouched); a crash, hang, leak or sanitizer
# report makes libFuzzer exit non-zero and leaves the reproducer in WORKDIR.
set -eu
fuzzer=$1 work=$2 seeds=$3 dict=$4
mkdir -p "$work/corpus"
cd "$work"
exec "$fuzzer" -max_total_time=15 -timeout=5 -rss_limit_mb=1024 -max_len=512 \
	-detect_leaks=1 -print_final_stats=1 -dict="$dict" -artifact_prefix="$work/" \
	"$work/corpus" "$seeds"
