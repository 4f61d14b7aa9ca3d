#!/usr/bin/env bash
# Usage: help_matches_guide.sh LOGGER REPLAYER USER_GUIDE
# Every knob of the logger and the replayer is in its `-h` with its default, and in the user
# guide's knob tables (one knob a row) with the same default: the logger's `-h` is its own
# table and the table of the knobs both tools have, the replayer's `-h` its own table and
# that same one. Prints the differences.
set -uo pipefail
logger=$1 replayer=$2 guide=$3
fail=0

# "NAME DEFAULT" per knob line of a tool's -h ("  -knob VALUE  what it does (default X)").
from_help() {
	"$1" -h | sed -n 's/^  \(-[^ ]*\) .*[( ]default \([^)]*\))$/\1 \2/p'
}

# "NAME DEFAULT" per row of the first knob table after the heading line $1: the name is the
# first word of the first cell's first `code`, the default the second cell without its
# backticks (an escaped \| is no cell border).
from_guide() {
	awk -v heading="$1" '
		$0 == heading { in_section = 1; next }
		in_section && /^\| knob \| default \| meaning \|$/ { in_table = 1; next }
		in_table && /^\|---/ { next }
		in_table && !/^\|/ { exit }
		in_table {
			gsub(/\\\|/, "\001")
			split($0, cell, "|")
			name = cell[2]
			sub(/^[^`]*`/, "", name)
			sub(/[ `].*/, "", name)
			def = cell[3]
			gsub(/`/, "", def)
			gsub(/^ +| +$/, "", def)
			print name, def
		}' "$guide"
}

shared=$(from_guide "### Knobs of both the logger and the replayer")
# TOOL PROGRAM HEADING: the tool's -h against its table and the shared one.
compare() {
	local tool=$1 help tables twice
	help=$(from_help "$2" | sort)
	tables=$( { from_guide "$3"; echo "$shared"; } | sort)
	twice=$(cut -d' ' -f1 <<<"$tables" | uniq -d)
	if [ "$(wc -l <<<"$help")" -lt 20 ]; then
		echo "FAIL: $tool -h lists $(wc -l <<<"$help") knobs with defaults"
		fail=1
	elif [ -n "$twice" ]; then
		echo "FAIL: the guide lists knobs of $tool twice: $twice"
		fail=1
	elif ! diff -u --label "$tool -h" --label "docs/user-guide.md" <(echo "$help") \
		<(echo "$tables"); then
		echo "FAIL: $tool -h and the user guide's tables differ (above)"
		fail=1
	else
		echo "ok   $tool: $(wc -l <<<"$help") knobs, the same defaults in -h and the guide"
	fi
}
[ "$(wc -l <<<"$shared")" -ge 20 ] || { echo "FAIL: no table of the shared knobs in $guide"; exit 1; }
compare logger "$logger" "## logger"
compare replayer "$replayer" "## replayer"
exit $fail
