#!/usr/bin/env bash
# Usage: sampled.sh LOGGER REPLAYER PINBALL APP
# -vprofile_sample N: the profile of one trace buffer in N per thread. On
# tests/apps/value_behaviour with enough iterations for tens of buffers: the load of 42 is
# profiled in a share of its executions near 1/N (every execution without sampling), still
# 100% invariant; the profile says it is sampled (file and vplist) and is the same bytes
# twice; regions are followed while records are skipped; a period of 0 and a bad 'sampled' line are refused.
logger=$1 replayer=$2 pinball=$3 app=$4
. "$(dirname "$0")/vprof_lib.sh"
n=400000

"$logger" -log:basename "$work/pb/v" -- "$app" $n >"$work/out" 2>"$work/log" ||
	{ echo "FAIL recording"; cat "$work/log"; exit 1; }
load=$(printed "$work/out" load42)
profile() { # OUT KNOBS...
	local out=$1
	shift
	"$replayer" -replay:echo 0 -vprofile classic -vprofile_out "$out" "$@" "$work/pb/v.0" \
		>/dev/null 2>"$work/replay" || { echo "FAIL replay $*"; cat "$work/replay"; exit 1; }
}
profile "$work/all.vprof"
profile "$work/s1.vprof" -vprofile_sample 4
profile "$work/s2.vprof" -vprofile_sample 4

read -r all_exec all_samples < <(insn_counts "$work/all.vprof" "$load")
check "every execution of the load without sampling" "$n $n" "$all_exec $all_samples"
read -r exec samples < <(insn_counts "$work/s1.vprof" "$load")
if ((exec > n / 8 && exec < n / 2 && samples == exec)); then
	echo "ok   sampled 1 in 4: the load profiled $exec times of $n"
else
	echo "FAIL sampled 1 in 4: the load profiled $exec times ($samples samples) of $n"
	fail=1
fi
check "sampled: its only value is 42" "0x2a $exec 0x0 0x0" "$(values_of "$work/s1.vprof" "$load")"
check "the file says it is sampled" "sampled 4" "$(sed -n 6p "$work/s1.vprof")"
check "no such line without sampling" "" "$(grep '^sampled' "$work/all.vprof")"
if cmp -s "$work/s1.vprof" "$work/s2.vprof"; then
	echo "ok   the same sampled profile twice"
else
	echo "FAIL two sampled profiles of one pinball differ"
	diff "$work/s1.vprof" "$work/s2.vprof" | head
	fail=1
fi
"$pinball" vplist -top 1 "$work/s1.vprof" >"$work/list" || { echo "FAIL vplist"; exit 1; }
check "vplist says it is sampled" \
	"sampled: 1 trace buffer in 4 of each thread (its first, then one every 4); the counts are of the executions in them" \
	"$(sed -n 2p "$work/list")"
check "the load's hotlist" "$load  $exec executions: 100.00%, 0x2a" \
	"$(hotlist "$work/list" "$load" | awk '
		NR == 1 { head = $1 "  " $2 " " $3 }
		/invariance/ { inv = $0; sub(/.*invariance /, "", inv); sub(/,.*/, "", inv) }
		NR == 3 { top = $3 }
		END { print head ": " inv ", " top }')"

# A region's start and stop noted while the thread skips records: its next sampled buffer
# starts on the right side (the counter's phase, between SSC marks 1 and 2, is sampled; the
# load before it and the chase after it are not).
counter=$(printed "$work/out" counter) chase=$(printed "$work/out" chase)
for period in 2 3 5; do
	profile "$work/r$period.vprof" -vprofile_sample $period -control start:ssc:1,stop:ssc:2
	read -r exec samples < <(insn_counts "$work/r$period.vprof" "$counter")
	if ((exec > 0 && exec < n && samples == exec)); then
		echo "ok   sampled 1 in $period inside a region: the counter profiled $exec times of $n"
	else
		echo "FAIL sampled 1 in $period inside a region: the counter profiled ${exec:-0} times"
		fail=1
	fi
	check "sampled 1 in $period: neither the load before the region nor the chase after it" "" \
		"$(insn_counts "$work/r$period.vprof" "$load")$(insn_counts "$work/r$period.vprof" "$chase")"
done

refused "-vprofile_sample 0" "-vprofile_sample must be at least 1" \
	"$replayer" -replay:echo 0 -vprofile classic -vprofile_sample 0 \
	-vprofile_out "$work/zero.vprof" "$work/pb/v.0"
sed '6s/.*/sampled 1/' "$work/s1.vprof" >"$work/bad.vprof"
refused "a 'sampled' line of 1" "bad.vprof:6: a bad 'sampled' line" "$pinball" vplist "$work/bad.vprof"
exit $fail
