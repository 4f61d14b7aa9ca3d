#!/usr/bin/env bash
# Usage: pinpoints.sh PINPOINTS REPLAYER SIMPOINT PHASES_APP LONG_PHASES_APP THREADS_APP
# The PinPoints flow (scripts/pinpoints) on tests/apps/phases, whose three phases of 2
# million instructions each are known: with 100000-instruction intervals, interval i lies
# in phase i / 20. The heavy simulation points (weight >= 0.1) must fall one in each phase,
# the weights must sum to 1, and every region pinball must replay OK with at most an
# interval's instructions. simpoint refuses a file without vectors with one line.
# Then on tests/apps/long_phases (2.5 billion instructions, its second phase from the
# 2.2 billionth): with 100-million-instruction intervals, each region starts at its
# interval times 100 million (counts past 2^31 included), in order, and the second phase
# has its point. A multithreaded program (tests/apps/threads) stops the flow after its
# recording with one line (relogging takes single-threaded pinballs), exit 2.
set -uo pipefail
pinpoints=$1 replayer=$2 simpoint=$3 app=$4 long_app=$5 threads_app=$6
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
PINTRACE_BIN=$(dirname "$replayer") "$pinpoints" -i 100000 -k 10 -o pp -- "$app" >flow.out 2>&1 ||
	{ bad "the flow failed"; cat flow.out; exit 1; }
sum=$(awk -F, 'NR > 1 { s += $4 } END { printf "%.6f", s }' pp/regions.csv)
[ "$sum" = "1.000000" ] || bad "the weights sum to $sum"
phases=$(awk -F, 'NR > 1 && $4 >= 0.1 { p = int($5 / 20); print (p > 2 ? 2 : p) }' pp/regions.csv |
	sort | tr '\n' ' ')
[ "$phases" = "0 1 2 " ] || bad "the heavy points fall in phases '$phases', not one in each of 0 1 2"
regions=0
while IFS=, read -r region start length weight interval pinball; do
	[ "$region" = region ] && continue
	out=$("$replayer" -replay:echo 0 -icount -oicount r.icount "$pinball" 2>&1)
	n=$(sed -nE 's/^icount total ([0-9]+)$/\1/p' r.icount)
	if ! grep -q '^replay: OK' <<<"$out" || [ -z "$n" ] || [ "$n" -gt "$length" ] || [ "$n" = 0 ]; then
		bad "region $region ($pinball, from $start): $out; $n instructions"
	fi
	regions=$((regions + 1))
done <pp/regions.csv
echo "# nothing" >empty.bb
out=$("$simpoint" -loadFVFile empty.bb -saveSimpoints s -saveSimpointWeights w 2>&1)
status=$?
if [ $status -ne 1 ] || [ "$(wc -l <<<"$out")" -ne 1 ] || ! grep -q "^simpoint: error: .*no basic-block vectors" <<<"$out"; then
	bad "simpoint on a file without vectors: exit $status: $out"
fi
PINTRACE_BIN=$(dirname "$replayer") "$pinpoints" -i 100000000 -k 3 -o long -- "$long_app" \
	>long.out 2>&1 || { bad "the flow failed on $long_app"; cat long.out; exit 1; }
while IFS=, read -r region start length weight interval pinball; do
	[ "$region" = region ] && continue
	[ "$start" = "$((interval * 100000000))" ] ||
		bad "long_phases: region $region (interval $interval) starts at $start"
done <long/regions.csv
awk -F, 'NR > 1 { print $2 }' long/regions.csv | sort -n -c 2>/dev/null ||
	bad "long_phases: the regions are not in the order they run: $(cat long/regions.csv)"
second=$(awk -F, 'NR > 1 && $5 >= 22 && $5 <= 24 { print $6 }' long/regions.csv | head -n 1)
if [ -z "$second" ]; then
	bad "long_phases: no point in the second phase: $(cat long/regions.csv)"
elif ! "$replayer" -replay:echo 0 "$second" 2>&1 | grep -q '^replay: OK 99999[0-9]\{3\} instructions'; then
	bad "long_phases: the second phase's region $second does not replay 100 million instructions"
fi
PINTRACE_BIN=$(dirname "$replayer") "$pinpoints" -o mt -- "$threads_app" >mt.out 2>&1
status=$?
if [ $status -ne 2 ] || ! grep -q "^pinpoints: error: the run has [0-9]* threads: " mt.out || [ -e mt/whole.bb ]; then
	bad "a multithreaded program: exit $status, $(tail -1 mt.out)"
fi
[ $fail = 0 ] && echo "ok: $regions region pinballs replay; heavy points one per phase; weights sum to 1;" \
	"regions past 2^31 instructions start at their intervals; a multithreaded run stops early"
exit $fail
