#!/usr/bin/env bash
# Usage: tools.sh LOGGER REPLAYER PINBALL_TOOL MT_SCENARIOS
# Analysis tools run with the logger follow the global region (seed 000): every thread's
# -icount is its instruction count in the pinball, and the replay's -icount, -mix and
# -footprint reports equal the logger's. With -pinplay-control 0 they keep their per-thread
# regions: an ssc mark that only the main thread executes counts the main thread alone.
set -uo pipefail
logger=$1 replayer=$2 pinball=$3 app=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
region=(-control start:ssc:11223344,stop:ssc:55667788)
# "tid count" lines, by tid: from pinball info, and from an -icount report (threads the
# pinball has, given as a pattern of tids).
pinball_counts() { "$pinball" info "$1" | awk '$1 == "thread" { print $2, $3 }' | sort -n; }
icount_counts() {
	sed -n 's/^icount tid=\([0-9]*\) \([0-9]*\)$/\1 \2/p' "$1" | awk -v keep="$2" \
		'BEGIN { n = split(keep, k, " "); for (i = 1; i <= n; i++) want[k[i]] = 1 } $1 in want' |
		sort -n
}
for scenario in racy exits sleeper; do
	for run in 1 2 3; do
		rm -rf "$work"/*
		"$logger" -log:basename "$work/p" "${region[@]}" -icount -oicount "$work/rec.icount" \
			-mix -omix "$work/rec.mix" -footprint -ofootprint "$work/rec.footprint" \
			-- "$app" "$scenario" >/dev/null || fail "$scenario: recording"
		recorded=$(pinball_counts "$work/p.0")
		tids=$(cut -d' ' -f1 <<<"$recorded" | tr '\n' ' ')
		logged=$(icount_counts "$work/rec.icount" "$tids")
		[ "$logged" = "$recorded" ] ||
			fail "$scenario: the logger's -icount is not the pinball's: $logged / $recorded"
		"$replayer" -replay:echo 0 -icount -oicount "$work/rep.icount" -mix -omix "$work/rep.mix" \
			-footprint -ofootprint "$work/rep.footprint" "$work/p.0" 2>"$work/rep.err" ||
			fail "$scenario: replay: $(cat "$work/rep.err")"
		replayed=$(icount_counts "$work/rep.icount" "$tids")
		[ "$replayed" = "$recorded" ] ||
			fail "$scenario: the replay's -icount is not the pinball's: $replayed / $recorded"
		# The replay knows only the pinball's threads (the logger's other ones count 0),
		# and makes them in its own order.
		grep -v ' 0$' "$work/rec.mix" | sort | cmp -s - <(grep -v ' 0$' "$work/rep.mix" | sort) ||
			fail "$scenario: -mix differs: $(diff "$work/rec.mix" "$work/rep.mix" | head -5)"
		cmp -s "$work/rec.footprint" "$work/rep.footprint" ||
			fail "$scenario: -footprint differs: $(diff "$work/rec.footprint" "$work/rep.footprint")"
	done
	echo "ok   $scenario: per-thread counts $(tr '\n' ',' <<<"$recorded")"
done

# -pinplay-control 0: the threads the racy scenario makes never see the mark.
rm -rf "$work"/*
"$logger" -log:basename "$work/p" "${region[@]}" -pinplay-control 0 -icount \
	-oicount "$work/rec.icount" -- "$app" racy >/dev/null || fail "-pinplay-control 0: recording"
others=$(pinball_counts "$work/p.0" | awk '$1 != 0 && $2 > 0' | wc -l)
[ "$others" -ge 4 ] || fail "the pinball should count the four adding threads: $(pinball_counts "$work/p.0")"
grep -q '^icount tid=0 [1-9]' "$work/rec.icount" || fail "-pinplay-control 0: main thread not counted"
grep '^icount tid=[1-9]' "$work/rec.icount" | grep -qv ' 0$' &&
	fail "-pinplay-control 0: threads outside their own region are counted: $(cat "$work/rec.icount")"
echo "ok   -pinplay-control 0: only the main thread's own region is counted"
