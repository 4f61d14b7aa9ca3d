#!/usr/bin/env bash
# Usage: regions.sh LOGGER REPLAYER PINBALL APP EXACT_APP
# -vprofile follows -control: between SSC marks 1 and 2 of tests/apps/value_behaviour only
# the counter's phase is profiled (its 100 increments, and nothing of the load of 42 before
# it nor of the chase after it); on a replay, and under logger -log 0. The classic profiler
# (every instruction) profiles exactly the instructions -icount counts in a region, whose
# ends fall inside blocks or at their starts (tests/apps/footprint_exact).
logger=$1 replayer=$2 pinball=$3 app=$4 exact=$5
. "$(dirname "$0")/vprof_lib.sh"
control=start:ssc:1,stop:ssc:2

# PROFILE PROGRAM_OUTPUT HOW
expect_region() {
	local load counter chase
	load=$(printed "$2" load42)
	counter=$(printed "$2" counter)
	chase=$(printed "$2" chase)
	check "$3: the counter is in the region" "100 100" "$(insn_counts "$1" "$counter")"
	check "$3: the load before it and the chase after it are not" "" \
		"$(insn_counts "$1" "$load")$(insn_counts "$1" "$chase")"
}

"$logger" -log:basename "$work/pb/v" -- "$app" 100 >"$work/out" 2>"$work/log" ||
	{ echo "FAIL recording"; cat "$work/log"; exit 1; }
"$replayer" -replay:echo 0 -control "$control" -vprofile classic -vprofile_out "$work/r.vprof" \
	"$work/pb/v.0" 2>"$work/replay" || { echo "FAIL replay"; cat "$work/replay"; exit 1; }
expect_region "$work/r.vprof" "$work/out" replay

"$logger" -log 0 -control "$control" -vprofile classic -vprofile_out "$work/l.vprof" -- \
	"$app" 100 >"$work/out0" 2>"$work/log0" || { echo "FAIL logger -log 0"; cat "$work/log0"; exit 1; }
expect_region "$work/l.vprof" "$work/out0" "logger -log 0"

# A region that starts in the middle of a block: from the counter's instruction on.
counter=$(printed "$work/out" counter)
"$replayer" -replay:echo 0 -control "start:address:$counter" -vprofile classic \
	-vprofile_out "$work/a.vprof" "$work/pb/v.0" 2>"$work/replay2" ||
	{ echo "FAIL replay"; cat "$work/replay2"; exit 1; }
check "start:address:counter: every increment" "100 100" "$(insn_counts "$work/a.vprof" "$counter")"
check "start:address:counter: not the load before it" "" \
	"$(insn_counts "$work/a.vprof" "$(printed "$work/out" load42)")"
for control in start:icount:100,stop:icount:500 start:icount:101,stop:icount:403 \
	start:address:0x401033,stop:address:0x40103e; do
	counted=$("$logger" -log 0 -control "$control" -icount -vprofile classic \
		-vprofile_out "$work/e.vprof" -- "$exact" 2>&1 | awk '$2 == "tid=0" { print $3 }')
	check "$control: as many executions as -icount counts ($counted)" "$counted" \
		"$(awk '$1 == "insn" { n += $4 } END { print n }' "$work/e.vprof")"
done
exit $fail
