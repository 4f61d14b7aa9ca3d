#!/usr/bin/env bash
# Usage: addresses.sh LOGGER REPLAYER PINBALL APP
# The address profiler on tests/apps/value_behaviour: the pointer chase's load addresses
# are exactly the node pointers the program printed, each loaded once a round (three
# rounds); the array walk's are the array's 256 elements; the same pinball profiled twice
# gives the same profile, byte for byte.
logger=$1 replayer=$2 pinball=$3 app=$4
. "$(dirname "$0")/vprof_lib.sh"

"$logger" -log:basename "$work/pb/v" -- "$app" 100 >"$work/out" 2>"$work/log" ||
	{ echo "FAIL recording"; cat "$work/log"; exit 1; }
for k in 1 2; do
	"$replayer" -replay:echo 0 -vprofile address -vprofile_out "$work/a$k.vprof" \
		"$work/pb/v.0" 2>"$work/replay$k" || { echo "FAIL replay"; cat "$work/replay$k"; exit 1; }
done

chase=$(printed "$work/out" chase)
check "the chase loads from the printed nodes, 3 times each" \
	"$(awk '$1 == "node" { print $2, 3, "0x0", "0x0" }' "$work/out" | sort)" \
	"$(values_of "$work/a1.vprof" "$chase")"
check "the chase ran 3 rounds of 16" "48 48" "$(insn_counts "$work/a1.vprof" "$chase")"

stride=$(printed "$work/out" stride)
values=$(values_of "$work/a1.vprof" "$stride")
first=$(sort <<<"$values" | head -1 | cut -d' ' -f1)
check "the array walk: 256 addresses 8 bytes apart, once each" \
	"$(for i in $(seq 0 255); do printf '0x%x 1 0x0 0x0\n' $((first + 8 * i)); done | sort)" \
	"$values"

check "profiling the pinball twice gives identical profiles" "same" \
	"$(cmp -s "$work/a1.vprof" "$work/a2.vprof" && echo same || echo different)"
"$pinball" vplist "$work/a1.vprof" >"$work/l1" && "$pinball" vplist "$work/a2.vprof" >"$work/l2" ||
	fail=1
check "and identical hotlists" "same" "$(cmp -s "$work/l1" "$work/l2" && echo same || echo different)"
check "the chase's hotlist" "load address: 48 samples, 16 distinct, invariance 6.25%" \
	"$(hotlist "$work/l1" "$chase" | sed -n 's/^ *\(load address: [^,]*, [^,]*, [^,]*\),.*/\1/p')"
exit $fail
