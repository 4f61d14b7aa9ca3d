#!/usr/bin/env bash
# Usage: footprint_again.sh LOGGER REPLAYER APP
# -footprint on tests/apps/footprint_again, which loads the same 100 lines before its SSC
# region and again inside it: the region holds them, under the JIT and on a replay (what
# was marked outside the region counts for nothing inside it, nor hides anything there);
# and the whole run's lines include those of pages it unmapped before its end.
set -uo pipefail
logger=$1 replayer=$2 app=$3
. "$(dirname "$0")/../support/checks.sh"
. "$(dirname "$0")/footprint_lib.sh"

whole=$(footprint_of "$app" 100 2 200 4 200 4)
check "whole run (with lines of pages unmapped before the end)" "$whole" \
	"$("$logger" -log 0 -footprint -- "$app" 2>&1)"
region="footprint loads lines 100 pages 2
footprint stores lines 0 pages 0"
check "the lines loaded again in the region" "$region" \
	"$("$logger" -log 0 -footprint -control start:ssc:1,stop:ssc:2 -- "$app" 2>&1 | head -2)"

"$logger" -log:basename "$work/pb/run" -- "$app" >/dev/null 2>&1 || fail=1
"$replayer" -replay:echo 0 -footprint -ofootprint "$work/region.txt" \
	-control start:ssc:1,stop:ssc:2 "$work/pb/run.0" >/dev/null 2>&1 || fail=1
check "the same on a replay" "$region" "$(head -2 "$work/region.txt")"
"$replayer" -replay:echo 0 -footprint -ofootprint "$work/whole.txt" "$work/pb/run.0" \
	>/dev/null 2>&1 || fail=1
check "the whole replay" "$whole" "$(cat "$work/whole.txt")"
exit $fail
