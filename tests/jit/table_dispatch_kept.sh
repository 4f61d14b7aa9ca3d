#!/usr/bin/env bash
# Usage: table_dispatch_kept.sh LOGGER TABLE_DISPATCH
# Jumps through constant tables in translations kept across runs (-jit:persist): the
# second run takes the 10 fragments the first kept before the tables changed, those that
# jump through the tables among them (it translates 8, the ones made after the change, not
# 13), fills its own tables' entries as the first did, exits 190 and counts 105
# instructions, as the first run and the program natively.
logger=$1 program=$2
. "$(dirname "$0")/kept_runs.sh"
for run in first second; do
	kept_run $run 190 105
	grep -q 'jumps through constant tables: 2 tables, 8 entries filled$' "$work/err" ||
		fail "$run run: not 8 entries filled in 2 tables"
done
grep -q 'jit stats: fragments 8, ' "$work/err" || fail "second run: not 8 fragments translated"
grep -q 'kept fragments used 10$' "$work/err" || fail "second run: not 10 kept fragments used"
echo "kept table jumps: as natively, 10 fragments taken, 8 translated"
