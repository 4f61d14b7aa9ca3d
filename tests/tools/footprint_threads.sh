#!/usr/bin/env bash
# Usage: footprint_threads.sh LOGGER APP SHARED_LINES_APP
# tests/apps/footprint_threads under per-thread SSC regions: thread k (1..4) stores to
# 10*k lines of its own page between its marks. -footprint must see exactly 100 store
# lines in 4 pages, no loads, one code line; -mix must give thread k exactly its
# 2 + 40*k instructions (the mark's mov and nop, then 10*k iterations of 4). Once plainly,
# once with the world stopped every millisecond. Then tests/apps/footprint_shared_lines,
# two threads storing to alternate lines at the same time, five times: every one of their
# 131072 lines counts (marks that are not atomic lose some now and then).
set -uo pipefail
logger=$1 app=$2 shared=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
footprint="footprint loads lines 0 pages 0
footprint stores lines 100 pages 4
footprint code lines 1 pages 1
footprint total lines 101 pages 5"
mix="tid=0 0
tid=1 42
tid=2 82
tid=3 122
tid=4 162
total 408"
for stress in "" "-jit:stress_stop_ms 1"; do
	# shellcheck disable=SC2086 # $stress is zero or two words
	"$logger" -log 0 $stress -footprint -ofootprint "$work/fp" -mix -omix "$work/mix" \
		-control start:ssc:1,stop:ssc:2 -- "$app" >"$work/out" 2>&1 || fail=1
	got_mix=$(awk '$3 == "instructions" { print $2 == "total" ? "total" : $2, $4 }' "$work/mix")
	if [ "$(cat "$work/fp")" != "$footprint" ] || [ "$got_mix" != "$mix" ]; then
		printf 'FAIL (%s)\nfootprint:\n%s\nmix:\n%s\n' "${stress:-plain}" "$(cat "$work/fp")" \
			"$got_mix"
		cat "$work/out"
		fail=1
	else
		echo "ok   ${stress:-plain}: 100 store lines in 4 pages; per-thread mix exact"
	fi
done
shared_footprint="footprint loads lines 0 pages 0
footprint stores lines 131072 pages 2048"
for run in 1 2 3 4 5; do
	got=$("$logger" -log 0 -footprint -control start:ssc:1,stop:ssc:2,repeat -- "$shared" \
		2>&1 >/dev/null | head -2)
	if [ "$got" != "$shared_footprint" ]; then
		printf 'FAIL shared lines, run %d:\n%s\n' "$run" "$got"
		fail=1
	fi
done
[ $fail = 0 ] && echo "ok   two threads on alternate lines: 131072 store lines, five times"
exit $fail
