#!/usr/bin/env bash
# Runs the reader fuzzer for a bounded time on seeds the writer makes now.
# Usage: fuzz_test.sh FUZZER SEED_MAKER SECONDS FINDINGS_DIR
# A crash, leak or sanitizer report fails the test; the input is kept in FINDINGS_DIR.
set -euo pipefail
fuzzer=$1
seed_maker=$2
seconds=$3
findings=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/seeds" "$work/corpus"
"$seed_maker" "$work/seeds"
mkdir -p "$findings"
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$findings/" "$work/corpus" "$work/seeds" 2>&1 | tail -n 40
