#!/usr/bin/env bash
# Usage: flags_ahead_kept.sh LOGGER FLAGS_AHEAD
# Translations whose count updates rely on the flags being written first where their
# branches go (jit/flags_ahead.c), kept across runs (-jit:persist): two runs that leave
# the targets as built (exit 6, 170 instructions), the second taking 32 kept fragments; a
# third, whose program changes the targets before it calls them, must not take the
# translations that relied on their old bytes (it takes 22): exit 12 and 194 instructions,
# as natively (6 if it took them: their count updates clear the carry the new targets
# read).
logger=$1 program=$2
. "$(dirname "$0")/kept_runs.sh"
kept_run first 6 170 unchanged
kept_run second 6 170 unchanged
grep -q 'kept fragments used 32$' "$work/err" || fail "second run: not 32 kept fragments used"
kept_run third 12 194 changed
grep -q 'kept fragments used 22$' "$work/err" || fail "third run: not 22 kept fragments used"
echo "kept flags judgements: taken where their targets are unchanged, not where they changed"
