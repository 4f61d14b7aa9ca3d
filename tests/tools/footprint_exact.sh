#!/usr/bin/env bash
# Usage: footprint_exact.sh LOGGER REPLAYER APP
# -footprint on tests/apps/footprint_exact, whose accesses are known exactly (see its
# comment): the whole run, a region between SSC marks, the same on stderr and in the
# -ofootprint file, and the replay of a recorded run (whole, and its SSC region).
set -uo pipefail
logger=$1 replayer=$2 app=$3
. "$(dirname "$0")/../support/checks.sh"
. "$(dirname "$0")/footprint_lib.sh"

# The data as its comment says; the code from _start to code_end, every byte of it.
whole=$(footprint_of "$app" 214 11 108 5 315 13)
check "whole run on stderr" "$whole" "$("$logger" -log 0 -footprint -- "$app" 2>&1)"
(cd "$work" && "$logger" -log 0 -footprint -ofootprint fp.txt -- "$app") || fail=1
check "whole run in the -ofootprint file" "$whole" "$(cat "$work/fp.txt")"

# Between the SSC marks: the 100 stores to A and the loop's single code line.
region="footprint loads lines 0 pages 0
footprint stores lines 100 pages 2
footprint code lines 1 pages 1
footprint total lines 101 pages 3"
check "SSC region" "$region" \
	"$("$logger" -log 0 -footprint -control start:ssc:1,stop:ssc:2 -- "$app" 2>&1)"

# Replaying a recording of the whole run touches what the run touched.
"$logger" -log:basename "$work/pb/run" -- "$app" >/dev/null 2>&1 || fail=1
replayed=$("$replayer" -replay:echo 0 -footprint -ofootprint "$work/replay.txt" \
	"$work/pb/run.0" 2>&1)
check "replay verdict" "replay: OK" "$(echo "$replayed" | grep -o '^replay: OK')"
check "replay of the whole run" "$whole" "$(cat "$work/replay.txt")"
# The controller on the replay: the same SSC region, cut out of the replayed run.
"$replayer" -replay:echo 0 -footprint -ofootprint "$work/replay_region.txt" \
	-control start:ssc:1,stop:ssc:2 "$work/pb/run.0" >/dev/null 2>&1 || fail=1
check "SSC region of the replay" "$region" "$(cat "$work/replay_region.txt")"
exit $fail
