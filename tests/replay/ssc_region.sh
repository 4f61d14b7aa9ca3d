#!/usr/bin/env bash
# Usage: ssc_region.sh LOGGER REPLAYER PINBALL_TOOL PROGRAM
# Records the region between the demo's SSC marks; the replay must be OK, and -icount on the
# replay must equal the instruction count the pinball records.
set -uo pipefail
logger=$1 replayer=$2 pinball=$3 app=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$logger" -log:basename "$work/pb/r" -control start:ssc:11223344,stop:ssc:55667788 \
	-- "$app" 200000 >/dev/null || exit 1
recorded=$("$pinball" info "$work/pb/r.0" | awk '$1 == "instructions" { print $2 }')
out=$("$replayer" -icount -- "$work/pb/r.0" 2>&1)
echo "$out"
grep -q "^replay: OK $recorded instructions" <<<"$out" || { echo "expected OK with $recorded"; exit 1; }
grep -qx "icount total $recorded" <<<"$out" || { echo "-icount differs from $recorded"; exit 1; }
[ "$recorded" -gt 1000000 ] || { echo "the region is implausibly small: $recorded"; exit 1; }
