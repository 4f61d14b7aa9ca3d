#!/usr/bin/env bash
# Usage: table_dispatch_kept.sh LOGGER TABLE_DISPATCH
# Jumps through constant tables in translations kept across runs (-jit:persist): the
# second run takes the 10 fragments the first kept before the tables changed, those that
# jump through the tables among them (it translates 8, the ones made after the change, not
# 13), fills its own tables' entries as the first did, exits 190 and counts 105
# instructions, as the first run and the program natively.
set -uo pipefail
logger=$1 program=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
	echo "table_dispatch_kept: $*"
	exit 1
}
for run in first second; do
	"$logger" -log 0 -icount -jit:stats 1 -jit:persist "$work/kept" -- "$program" \
		>"$work/out" 2>"$work/err"
	status=$?
	cat "$work/err"
	[ "$status" -eq 190 ] || fail "$run run: exit status $status, not 190"
	grep -qx 'icount total 105' "$work/err" || fail "$run run: not 105 instructions"
	grep -q 'jumps through constant tables: 2 tables, 8 entries filled$' "$work/err" ||
		fail "$run run: not 8 entries filled in 2 tables"
done
grep -q 'jit stats: fragments 8, ' "$work/err" || fail "second run: not 8 fragments translated"
grep -q 'kept fragments used 10$' "$work/err" || fail "second run: not 10 kept fragments used"
echo "kept table jumps: as natively, 10 fragments taken, 8 translated"
