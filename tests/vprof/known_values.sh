#!/usr/bin/env bash
# Usage: known_values.sh LOGGER REPLAYER PINBALL APP SOURCE
# The classic profiler on tests/apps/value_behaviour: its load of 42 is 100% invariant, its
# counter's results are 1..N (all N kept with -vprofile_values N; 256 of them by default),
# each instruction ran N times, and the hotlist names the source line; on a replay of a
# recording and on a run under logger -log 0.
logger=$1 replayer=$2 pinball=$3 app=$4 source=$5
. "$(dirname "$0")/vprof_lib.sh"
n=1000
line=$(grep -n 'LABEL(vp_load42)' "$source" | cut -d: -f1)

# LISTING PROGRAM_OUTPUT HOW DISTINCT: the load and the counter as the classic profile
# shows them.
expect_classic() {
	local list=$1 out=$2 how=$3 distinct=$4
	local load counter
	load=$(printed "$out" load42)
	counter=$(printed "$out" counter)
	check "$how: the load of 42" \
		"$load  $n executions: 100.00%, 0x2a, value_behaviour.c:$line" \
		"$(hotlist "$list" "$load" | awk -v n="$n" '
			NR == 1 { head = $1 "  " $2 " " $3; src = $NF }
			/invariance/ { inv = $0; sub(/.*invariance /, "", inv); sub(/,.*/, "", inv) }
			NR == 3 { top = $3 }
			END { print head ": " inv ", " top ", " src }')"
	check "$how: the counter's range" \
		"$counter  $n executions: $n samples, $distinct distinct, range 0x1 .. 0x3e8" \
		"$(hotlist "$list" "$counter" | awk '
			NR == 1 { head = $1 "  " $2 " " $3 }
			/ samples, .*invariance/ { sub(/^ *result \([a-z0-9]+\): /, ""); sub(/, invariance [^,]*/, ""); print head ": " $0 }')"
}

"$logger" -log:basename "$work/pb/v" -- "$app" $n >"$work/out" 2>"$work/log" ||
	{ echo "FAIL recording"; cat "$work/log"; exit 1; }
"$replayer" -replay:echo 0 -vprofile classic -vprofile_values $n -vprofile_out "$work/c.vprof" \
	"$work/pb/v.0" 2>"$work/replay" || { echo "FAIL replay"; cat "$work/replay"; exit 1; }
grep -q "profile 'classic' written to $work/c.vprof" "$work/replay" ||
	{ echo "FAIL: no line about the profile"; cat "$work/replay"; fail=1; }
"$pinball" vplist -top 3 "$work/c.vprof" >"$work/list" || { echo "FAIL vplist"; exit 1; }
expect_classic "$work/list" "$work/out" replay $n

# The same program run under the JIT without recording, keeping the default 256 distinct
# values an instruction (the range stays exact).
(cd "$work" && "$logger" -log 0 -vprofile classic -- "$app" $n >"$work/out0" 2>"$work/log0") ||
	{ echo "FAIL logger -log 0"; cat "$work/log0"; exit 1; }
"$pinball" vplist -top 3 "$work/classic.vprof" >"$work/list0" || { echo "FAIL vplist"; exit 1; }
expect_classic "$work/list0" "$work/out0" "logger -log 0" 256+
exit $fail
