#!/usr/bin/env bash
# Usage: threads.sh LOGGER REPLAYER PINBALL APP VP_MEMORY
# A multithreaded replay (tests/apps/threads, 8 threads) profiled with the thread as
# context: the replay still ends OK, and the profile holds samples of the 9 threads.
logger=$1 replayer=$2 pinball=$3 app=$4 vp_memory=$5
. "$(dirname "$0")/vprof_lib.sh"

"$logger" -log:basename "$work/pb/t" -- "$app" >/dev/null 2>"$work/log" ||
	{ echo "FAIL recording"; cat "$work/log"; exit 1; }
"$replayer" -replay:echo 0 -vprofile "$vp_memory" -vprofile_out "$work/t.vprof" "$work/pb/t.0" \
	2>"$work/replay"
check "the replay ends OK" "0 1" "$? $(grep -c '^replay: OK' "$work/replay")"
check "samples of every thread" "0x0 0x1 0x2 0x3 0x4 0x5 0x6 0x7 0x8" \
	"$(awk '$1 == "value" { print $4 }' "$work/t.vprof" | sort -u | xargs)"
exit $fail
