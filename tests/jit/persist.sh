#!/usr/bin/env bash
# Usage: persist.sh LOGGER SIEVE SMC CHAIN_SMC THREADS COUNT_AFTER_FAULTS CODE_BY_ARGUMENT
#                   REPLAYER STAMP_AFTER_FORK
# -jit:persist DIR: each program runs natively, then twice under the logger keeping its
# translations in DIR; stdout and exit status are the native ones both times, and the
# second run takes fragments from the file the first one wrote (-jit:stats). Self-modifying
# code still runs its new code, and so does code written at the same address with other
# bytes in another run; -icount counts the same with kept code; a file damaged in
# its records or its code, or cut short, costs its use and nothing else, and so does one
# that others may write; a dead writer's temporary file goes at the next save, and so does
# the file of the program's previous build; a DIR that
# cannot be made is a one-line error. Address-space
# randomisation is off for the app with the knob, as it was without. A recording keeps
# its translations too, and its pinballs replay, counting what one made without does; so
# does a replay, for the next replays of the program's pinballs (same layout); a
# run whose instrumentation depends on its state (-mix) keeps nothing and says so once.
set -uo pipefail
logger=$1 sieve=$2 smc=$3 chain_smc=$4 threads=$5 count_after_faults=$6 code_by_argument=$7
replayer=$8 stamp_after_fork=$9
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
kept=$work/kept
fail() {
	echo "persist: $*"
	exit 1
}
# The last process's figure (a shell's children print theirs first).
stat_of() { sed -n "s/.*jit stats: $1 \([0-9]*\).*/\1/p" "$work/jit.err" | tail -1; }

# run PROGRAM ARGS: under the logger with kept code; sets status.
run() {
	(cd "$work" && "$logger" -log 0 -jit:persist "$kept" -jit:stats 1 -- "$@" \
		>"$work/jit.out" 2>"$work/jit.err")
	status=$?
}

# check LABEL PROGRAM ARGS: as natively on every run; prints the kept fragments used.
check() {
	local label=$1
	shift
	(cd "$work" && "$@" >"$work/native.out" 2>/dev/null)
	native=$?
	for pass in first second; do
		run "$@"
		[ "$status" -eq "$native" ] ||
			fail "$label, $pass run: exit status $status, natively $native: $(head -3 "$work/jit.err")"
		cmp -s "$work/native.out" "$work/jit.out" || fail "$label, $pass run: stdout differs"
	done
	used=$(stat_of "kept fragments used")
	[ "${used:-0}" -gt 0 ] || fail "$label: the second run used no kept fragment"
	echo "$label: as natively twice; the second run used $used kept fragments and" \
		"translated $(stat_of fragments)"
}

check sieve "$sieve" 5000
full=$used
[ "$(stat_of fragments)" -lt $((full / 4)) ] ||
	fail "sieve: the second run translated $(stat_of fragments) fragments, with $full kept"
check self-modifying "$smc"
check chain-rewritten "$chain_smc"
check threads "$threads"
check "shell and children" sh -c "expr 6 \* 7; $sieve 100"

# Code at the same address, other bytes from run to run: each run runs its own.
for n in 5 9 5 12; do
	run "$code_by_argument" "$n"
	[ "$status" -eq 77 ] && { echo "code by argument: its address is taken (skipped)"; break; }
	[ "$status" -eq "$n" ] || fail "code written for $n ran as $status (a kept translation of other bytes?)"
done
echo "code by argument: each run ran its own bytes"

# A shell's forked children keep what they translate between fork and exit (their parent
# never runs it) in a second file: by the third run, no process translates more than a few
# fragments (the second may still: children that ran different code overwrote each other).
for pass in 1 2 3; do
	run bash -c '(exit 0); (exit 0); expr 6 \* 7'
	[ "$status" -eq 0 ] && [ "$(cat "$work/jit.out")" = 42 ] || fail "subshells, run $pass: exit $status"
done
most=$(sed -n 's/.*jit stats: fragments \([0-9]*\),.*/\1/p' "$work/jit.err" | sort -n | tail -1)
ls "$kept"/*.forked.jit >/dev/null 2>&1 || fail "no file of forked children's translations"
[ "${most:-99}" -le 10 ] || fail "subshells: a process translated $most fragments in the third run"
echo "subshells: at most $most fragments translated by any process of the third run"

# A writer killed before renaming its file leaves NAME.<pid>.tmp: the next writer removes
# it once that pid is gone, and leaves a running writer's alone.
sh -c 'exit 0' &
dead=$!
wait $dead
touch "$kept/0123456789abcdef.jit.$dead.tmp" "$kept/0123456789abcdef.jit.$$.tmp"
run expr 2 + 2
[ ! -e "$kept/0123456789abcdef.jit.$dead.tmp" ] && [ -e "$kept/0123456789abcdef.jit.$$.tmp" ] ||
	fail "temporary files after a save: $(ls "$kept" | tr '\n' ' ')"
rm "$kept/0123456789abcdef.jit.$$.tmp"
echo "a dead writer's temporary file: removed by the next save"

# A program's files of another build (of the runtime or of the program: another key, the
# same family) are never read again: its next save removes them, and leaves other programs'.
expr_file=$(ls -t "$kept"/*.jit | head -1)
family=$(basename "$expr_file" | cut -c1-16)
others=$(ls "$kept" | grep -vc "^$family-")
mv "$expr_file" "$kept/$family-0123456789abcdef.jit"
run expr 2 + 2
[ ! -e "$kept/$family-0123456789abcdef.jit" ] && [ -e "$expr_file" ] &&
	[ "$(ls "$kept" | grep -vc "^$family-")" -eq "$others" ] ||
	fail "another build's file after a save: $(ls "$kept" | tr '\n' ' ')"
echo "another build's file of the program: removed by the next save, $others others kept"

# The count is the same whether the code is kept or new.
for pass in first second; do
	(cd "$work" && "$logger" -log 0 -icount -jit:persist "$kept" -jit:stats 1 -- \
		"$count_after_faults" >"$work/jit.out" 2>"$work/jit.err")
	status=$?
	[ "$status" -eq 70 ] && grep -q '^icount total 2243$' "$work/jit.err" ||
		fail "-icount, $pass run: exit $status: $(grep -v 'jit stats' "$work/jit.err" | head -3)"
done
[ "$(stat_of "kept fragments used")" -gt 0 ] || fail "-icount: no kept fragment used"
echo "-icount: 2243 both times, $(stat_of "kept fragments used") kept fragments used"

# Damage: a byte of the records, a byte of the code, the file cut short.
kept=$work/damaged
run "$sieve" 5000
file=$(ls "$kept"/*.jit 2>/dev/null)
run "$sieve" 5000
[ -f "$file" ] && [ "$(stat_of "kept fragments used")" -eq "$full" ] || fail "no clean start"
records=$(od -An -t u8 -j 32 -N 8 "$file" | tr -d ' ')
flip() { printf '\x5a' | dd of="$file" bs=1 seek="$1" conv=notrunc status=none; }
damage() {
	local what=$1 want=$2
	cp "$file" "$work/clean"
	$3
	run "$sieve" 5000
	[ "$status" -eq 0 ] && cmp -s "$work/native.out" "$work/jit.out" ||
		fail "$what: exit $status, or stdout differs"
	used=$(stat_of "kept fragments used")
	case $want in
	none) [ "$used" -eq 0 ] || fail "$what: $used kept fragments used" ;;
	fewer) [ "$used" -lt "$full" ] || fail "$what: all $used kept fragments used" ;;
	esac
	cp "$work/clean" "$file"
	chmod 644 "$file"
	echo "$what: $used kept fragments used, the program as natively"
}
"$sieve" 5000 >"$work/native.out"
records_damaged() { flip $((records + 200)); }
code_damaged() { flip $((56 + 24 * $(od -An -t u4 -j 12 -N 4 "$file" | tr -d ' ') + 100)); }
cut_short() { truncate -s $((records + 100)) "$file"; }
group_writable() { chmod g+w "$file"; }
damage "a byte of the records" none records_damaged
damage "a byte of the code" fewer code_damaged
damage "the file cut short" none cut_short
damage "the file writable by its group" none group_writable

# Address-space randomisation off with the knob (kept code is used where it was made).
[ "$("$logger" -log 0 -jit:persist "$work/kept" -- cat /proc/self/personality)" = 00040000 ] ||
	fail "the app's personality is not ADDR_NO_RANDOMIZE"
[ "$("$logger" -log 0 -- cat /proc/self/personality)" = "$(cat /proc/self/personality)" ] ||
	fail "without -jit:persist, the app's personality changed"

# Recording: the second run takes kept fragments (made with the recorder's callouts at
# ld.so's cpuid and the like: a -log 0 run's would not do), and every pinball replays and
# counts the instructions a recording without the knob counts. With threads, what comes
# after the second thread's birth (slice checks by the threads' state) is not kept, and
# the flush then retires what was: the pinballs must replay, whatever is used.
# record LABEL PINBALL [-jit:persist DIR] -- PROGRAM ARGS: sets count.
record() {
	local label=$1 pb=$2
	shift 2
	(cd "$work" && "$logger" -log:basename "$pb" -jit:stats 1 "$@" >"$work/jit.out" \
		2>"$work/jit.err") || fail "$label: exit $?: $(head -3 "$work/jit.err")"
	count=$(sed -n 's/^logger: wrote .*: \([0-9]*\) instructions.*/\1/p' "$work/jit.err")
	replay=$("$replayer" "$pb.0" 2>&1 >/dev/null | grep '^replay:')
	grep -q "^replay: OK $count instructions" <<<"$replay" ||
		fail "$label: recorded $count instructions, then $replay"
}
for program in "$sieve 3000" "$threads"; do
	name=$(basename "${program%% *}")
	record "$name without the knob" "$work/pb-plain" -- $program
	plain=$count
	for pass in first second; do
		record "$name recorded, $pass run" "$work/pb-$pass" -jit:persist "$work/recorded" \
			-- $program
		[ "$name" != "$(basename "$sieve")" ] || [ "$count" -eq "$plain" ] ||
			fail "$name recorded with kept code: $count instructions, $plain without"
	done
	used=$(stat_of "kept fragments used")
	[ "$name" != "$(basename "$sieve")" ] || [ "${used:-0}" -gt 0 ] ||
		fail "$name recorded: the second run used no kept fragment"
	echo "$name recorded: both pinballs replay ($count instructions), ${used:-0} kept" \
		"fragments used the second time"
done

# A translation kept out of a region (by a forked child, which is not recorded: no callout
# at its rdtsc) is not taken in one: the parent's rdtsc is recorded, and its pinball replays.
rm -rf "$work/stamps"
record "rdtsc in the child" "$work/pb-child" -jit:persist "$work/stamps" -- "$stamp_after_fork" child
record "rdtsc in the parent" "$work/pb-parent" -jit:persist "$work/stamps" -- "$stamp_after_fork" parent
[ "$(stat_of "kept fragments used")" -gt 0 ] || fail "rdtsc in the parent: no kept fragment used"
echo "rdtsc after a fork: the parent's pinball replays, $(stat_of "kept fragments used") kept" \
	"fragments used"

# Replays keep translations too: two pinballs of the sieve recorded with the knob (the same
# layout), each replayed with it: the second replay takes the first's translations, and
# every replay counts what was recorded; a pinball replayed again translates only its first
# block (it begins the replay, with a check of the replay's state), not even the blocks
# with the replay's callouts at ld.so's cpuid and the like (their argument is the
# instruction's kind: kept too; a build that did not keep them translated 24). A pinball with threads keeps nothing (its replay
# checks budgets by the threads' state) and says so once.
rm -rf "$work/replays"
# replay LABEL PINBALL: with -jit:persist, verdict OK with count instructions.
replay() {
	"$replayer" -jit:persist "$work/replays" -jit:stats 1 "$2.0" >/dev/null 2>"$work/jit.err"
	grep -q "^replay: OK $count instructions" "$work/jit.err" ||
		fail "$1: $(grep -v 'jit stats' "$work/jit.err" | head -3)"
}
record "sieve 3000" "$work/pb-a" -jit:persist "$work/recorded" -- "$sieve" 3000
replay "sieve 3000 replayed" "$work/pb-a"
replay "sieve 3000 replayed again" "$work/pb-a"
[ "$(stat_of "fragments")" -le 1 ] ||
	fail "a pinball replayed again translated $(stat_of "fragments") fragments"
record "sieve 2000" "$work/pb-b" -jit:persist "$work/recorded" -- "$sieve" 2000
replay "sieve 2000 replayed" "$work/pb-b"
used=$(stat_of "kept fragments used")
[ "${used:-0}" -gt 0 ] || fail "the second pinball's replay used no kept fragment"
record "threads" "$work/pb-t" -- "$threads"
replay "threads replayed" "$work/pb-t"
[ "$(grep -c "warning: -jit:persist keeps nothing" "$work/jit.err")" -eq 1 ] ||
	fail "threads replayed with -jit:persist: $(head -3 "$work/jit.err")"
echo "replays: a pinball replayed again translated its first block; the second sieve's took $used" \
	"kept fragments; threads keep nothing, said once"

# -mix instruments code by its state: nothing kept, said once (not by each process).
rm -rf "$work/mixed"
out=$(cd "$work" && "$logger" -log 0 -mix -omix /dev/null -jit:persist "$work/mixed" -- \
	sh -c 'true; /bin/true' 2>&1)
[ "$(grep -c "warning: -jit:persist keeps nothing in this run" <<<"$out")" -eq 1 ] &&
	[ -z "$(ls "$work/mixed")" ] || fail "-mix with -jit:persist: $out"

out=$("$logger" -log 0 -jit:persist /proc/none/kept -- true 2>&1)
status=$?
[ "$status" -eq 2 ] && [ "$(wc -l <<<"$out")" -eq 1 ] &&
	grep -q "^logger: error: cannot create the -jit:persist directory '/proc/none/kept'" <<<"$out" ||
	fail "an impossible directory: exit $status: $out"
echo "persist: OK"
