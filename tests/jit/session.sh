#!/usr/bin/env bash
# Usage: session.sh LOGGER SIEVE
# -jit:session (on by default): the programs a run execs keep their translations for each
# other in a directory of the run's own in $TMPDIR, removed at its end. A shell that runs
# the sieve four times: the first translates it and keeps nothing (most programs of a run
# run once), the second translates it and keeps it, the next two take its translations
# (-jit:stats), the output is the native one; the programs exec'd run with address-space
# randomisation off, while the process the user started keeps a random layout; with
# -jit:session 0 nothing is kept. The directory is gone at the run's end, also when the
# run dies of a signal; one left by a run killed outright goes at the next run's start,
# one whose process still runs stays. A $TMPDIR where no directory can be made, or that is
# not there, costs the sharing only.
set -uo pipefail
logger=$1 sieve=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TMPDIR=$work/tmp
mkdir "$TMPDIR"
fail() {
	echo "session: $*"
	exit 1
}
leftovers() { ls "$TMPDIR" | grep '^pintrace-jit\.'; }
kept_per_process() { sed -n 's/.*jit stats: kept fragments used \([0-9]*\).*/\1/p' "$work/jit.err"; }

script="$sieve 3000; $sieve 3000; $sieve 3000; $sieve 3000"
sh -c "$script" >"$work/native.out" || fail "the native run failed"
"$logger" -log 0 -jit:stats 1 -- sh -c "$script" >"$work/jit.out" 2>"$work/jit.err"
status=$?
[ "$status" -eq 0 ] || fail "exit status $status: $(head -3 "$work/jit.err")"
cmp -s "$work/native.out" "$work/jit.out" || fail "stdout differs from the native run's"
read -r -a used <<<"$(kept_per_process | tr '\n' ' ')"
[ "${#used[@]}" -eq 3 ] ||
	fail "the last 3 of 4 sieves should keep translations, the run says: ${used[*]}"
[ "${used[0]}" -eq 0 ] && [ "${used[1]}" -gt 0 ] && [ "${used[2]}" -gt 0 ] ||
	fail "kept fragments used by the sieves: ${used[*]} (expected 0, then the second's)"
[ -z "$(leftovers)" ] || fail "the session directory stayed: $(leftovers)"
echo "4 sieves, as natively: kept fragments used (from the second on) ${used[*]};" \
	"no directory left"

# (the shell's own echo lists the directory: no program of its own runs before; the run's
# table of `cpuid` answers is no translation, jit/cpuid_table.h)
files=$("$logger" -log 0 -- sh -c "$sieve 10 >/dev/null; echo \"\$TMPDIR\"/pintrace-jit.*/*")
files=$(tr ' ' '\n' <<<"$files" | grep -v '/cpuid$')
[ "$(wc -w <<<"$files")" -eq 1 ] && [[ $files == *.seen ]] ||
	fail "after a program's first process the directory should hold its mark alone: $files"
echo "a program's first process leaves a mark, no translations"

"$logger" -log 0 -jit:session 0 -jit:stats 1 -- sh -c "$script" >"$work/jit.out" 2>"$work/jit.err"
[ -z "$(kept_per_process)" ] || fail "-jit:session 0 kept translations: $(kept_per_process)"
cmp -s "$work/native.out" "$work/jit.out" || fail "-jit:session 0: stdout differs"
echo "-jit:session 0: nothing kept"

# (the shell reads its own map with a builtin: no exec)
stack_of_started() {
	"$logger" -log 0 -- sh -c 'while read -r line; do
		case $line in *"[stack]"*) echo "$line" ;; esac
	done </proc/$$/maps; cat /proc/self/personality'
}
first=$(stack_of_started) second=$(stack_of_started)
native_stack() { grep '\[stack\]' /proc/self/maps; }
if [ "$(native_stack)" = "$(native_stack)" ]; then
	echo "address-space randomisation is off on this machine: the started process's layout not checked"
else
	[ "$(sed -n 1p <<<"$first")" != "$(sed -n 1p <<<"$second")" ] ||
		fail "the process started lost its random layout: its stack at the same place twice"
fi
personality=$(sed -n 2p <<<"$first")
[ $((0x$personality & 0x40000)) -ne 0 ] ||
	fail "a program exec'd runs with randomisation on (personality $personality)"
echo "the process started has a random layout, the programs it execs run without"

status=$( ("$logger" -log 0 -- sh -c "$sieve 10 >/dev/null; kill -TERM \$\$") 2>/dev/null
	echo $?)
[ "$status" -eq 143 ] || fail "a run killed by SIGTERM exits $status"
[ -z "$(leftovers)" ] || fail "the session directory of a run killed by SIGTERM stayed"
echo "a run that dies of SIGTERM removes its directory"

sh -c 'exit 0' &
dead=$!
wait "$dead"
mkdir "$TMPDIR/pintrace-jit.$dead.ABCDEF" "$TMPDIR/pintrace-jit.$$.ABCDEF"
: >"$TMPDIR/pintrace-jit.$dead.ABCDEF/x.jit"
"$logger" -log 0 -- /bin/true || fail "a run with old session directories around failed"
[ ! -e "$TMPDIR/pintrace-jit.$dead.ABCDEF" ] || fail "a dead run's directory stayed"
[ -d "$TMPDIR/pintrace-jit.$$.ABCDEF" ] || fail "a running process's directory was removed"
echo "a dead run's directory goes at the next start, a live one's stays"

unusable=("$work/missing")
mkdir "$work/readonly" && chmod 555 "$work/readonly"
[ "$(id -u)" -ne 0 ] && unusable+=("$work/readonly") # (root writes there all the same)
for tmp in "${unusable[@]}"; do
	TMPDIR=$tmp "$logger" -log 0 -jit:stats 1 -- sh -c "$script" >"$work/jit.out" 2>"$work/jit.err"
	status=$?
	[ "$status" -eq 0 ] || fail "TMPDIR $tmp: exit status $status: $(head -3 "$work/jit.err")"
	cmp -s "$work/native.out" "$work/jit.out" || fail "TMPDIR $tmp: stdout differs"
	[ -z "$(kept_per_process)" ] || fail "TMPDIR $tmp: translations kept somewhere: $(kept_per_process)"
done
echo "a TMPDIR that cannot hold the directory (${#unusable[@]} kinds): as natively, nothing kept"
