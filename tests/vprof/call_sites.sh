#!/usr/bin/env bash
# Usage: call_sites.sh LOGGER REPLAYER PINBALL APP VP_MEMORY
# Context values: a profiler asking for the thread and the call site sees the load in
# tests/apps/value_behaviour's callee as called from its two call sites (the calls before
# the return addresses the program printed: 3 times from one, 5 from the other), in thread
# 0; and `pinball vplist -contexts` shows them.
logger=$1 replayer=$2 pinball=$3 app=$4 vp_memory=$5
. "$(dirname "$0")/vprof_lib.sh"

"$logger" -log:basename "$work/pb/v" -- "$app" 10 >"$work/out" 2>"$work/log" ||
	{ echo "FAIL recording"; cat "$work/log"; exit 1; }
"$replayer" -replay:echo 0 -vprofile "$vp_memory" -vprofile_out "$work/c.vprof" "$work/pb/v.0" \
	2>"$work/replay" || { echo "FAIL replay"; cat "$work/replay"; exit 1; }
callee=$(printed "$work/out" callee)
# A direct call is 5 bytes: the call instruction is 5 bytes before its return address.
site_a=$(printf '0x%x' $(($(printed "$work/out" return_a) - 5)))
site_b=$(printf '0x%x' $(($(printed "$work/out" return_b) - 5)))
check "the callee's load, by call site" \
	"$(printf '0x2a 3 0x0 %s\n0x2a 5 0x0 %s\n' "$site_a" "$site_b" | sort)" \
	"$(values_of "$work/c.vprof" "$callee")"
"$pinball" vplist -contexts "$work/c.vprof" >"$work/list" || fail=1
check "vplist -contexts" \
	"$(printf '5 [thread 0, called from %s]\n3 [thread 0, called from %s]' "$site_b" "$site_a")" \
	"$(hotlist "$work/list" "$callee" | awk 'NR > 2 { print $1, $4, $5, $6, $7, $8 }')"
exit $fail
