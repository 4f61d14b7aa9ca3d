#!/usr/bin/env bash
# Usage: memory_values.sh LOGGER REPLAYER PINBALL APP VP_MEMORY
# The values memory operands load and store (jit_insert_trace_memory, read after the
# instruction), on tests/apps/memory_values, whose every value is known: 8, 4, 2 and 1-byte
# loads (one whose base register the load overwrites), stores, an add to memory, a push and
# a pop; a call (which ends its block) and REP string instructions have none. The address
# profiler gives a REP string instruction its first address, and none when it runs no
# iteration.
logger=$1 replayer=$2 pinball=$3 app=$4 vp_memory=$5
. "$(dirname "$0")/vprof_lib.sh"
pc() { printf '0x%x' $((16#$(nm "$app" | awk -v s="$1" '$3 == s { print $1 }'))); }

"$logger" -log:basename "$work/pb/m" -- "$app" 2>"$work/log" ||
	{ echo "FAIL recording"; cat "$work/log"; exit 1; }
"$replayer" -vprofile "$vp_memory" -vprofile_out "$work/m.vprof" "$work/pb/m.0" 2>"$work/replay" ||
	{ echo "FAIL replay"; cat "$work/replay"; exit 1; }
"$logger" -log 0 -vprofile "$vp_memory" -vprofile_out "$work/m0.vprof" -- "$app" 2>"$work/log0" ||
	{ echo "FAIL logger -log 0"; cat "$work/log0"; exit 1; }
for profile in m m0; do
	for expect in mv_load8=0x1122334455667788 mv_load1=0x77 mv_load2=0x5566 mv_load4=0x11223344 \
		mv_store8=0xabcdef mv_rmw=0xabcdf4 mv_push=0x1234 mv_pop=0x1234 mv_store1=0x5a; do
		label=${expect%=*} value=${expect#*=}
		check "$profile: $label" "$value 10" \
			"$(values_of "$work/$profile.vprof" "$(pc "$label")" | cut -d' ' -f1,2)"
	done
	for label in mv_call mv_rep mv_rep_none; do
		check "$profile: $label runs, no value captured" "10 0" \
			"$(insn_counts "$work/$profile.vprof" "$(pc "$label")")"
	done
done

"$replayer" -vprofile address -vprofile_out "$work/a.vprof" "$work/pb/m.0" 2>"$work/replay2" ||
	{ echo "FAIL replay"; cat "$work/replay2"; exit 1; }
data=$(pc data)
check "address: rep movsb's first load and store" \
	"$(printf '%s 10 0x0 0x0\n0x%x 10 0x0 0x0' "$data" $(($(pc scratch) + 16)) | sort)" \
	"$(values_of "$work/a.vprof" "$(pc mv_rep)")"
check "address: rep movsb with rcx 0 accesses nothing" "10 0" \
	"$(insn_counts "$work/a.vprof" "$(pc mv_rep_none)")"
exit $fail
