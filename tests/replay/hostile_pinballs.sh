#!/usr/bin/env bash
# Usage: hostile_pinballs.sh LOGGER REPLAYER MUTATE PROGRAM MAPS_AND_OUTPUT_APP
# Pinballs with valid checksums and one crafted defect each (mutate_pinball NAME): the
# replayer refuses them with a one-line error naming the defect (exit 2), or the replay ends
# in a DIVERGED verdict (exit 1); never a crash or a hang, and an OK only for a start state
# a real region may have (flag-df). Effects aimed at the replayer's own memory (its code
# cache, data and heap) are refused before anything is written or mapped there.
set -uo pipefail
logger=$1 replayer=$2 mutate=$3 app=$4 maps_app=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$logger" -log:basename "$work/good" -- "$app" >/dev/null 2>&1 || { echo "recording failed"; exit 1; }
fail=0
good=$work/good.0 # the pinball expect mutates
runner=()          # and what runs the replayer
expect() { # NAME STATUS REGEX
	rm -f "$work"/bad.*
	"$mutate" "$good" "$work/bad.0" "$1" >/dev/null || { echo "$1: cannot mutate"; fail=1; return; }
	out=$(timeout -s KILL 20 "${runner[@]}" "$replayer" -replay:echo 0 "$work/bad.0" 2>&1 | tail -1)
	status=${PIPESTATUS[0]}
	if [ "$status" -ne "$2" ] || ! grep -Eq "$3" <<<"$out"; then
		echo "$1: expected exit $2 and /$3/, got exit $status: $out"
		fail=1
	fi
}
expect rip0 2 "^replayer: error: the pinball's start rip 0x0 is not in recorded executable memory"
expect flag-tf 2 "^replayer: error: the pinball's start rflags 0x[0-9a-f]+ has flags a replay cannot reproduce"
# The direction flag set at the start, as in a region that starts inside a backward copy: it
# is replayed as given (string instructions run backwards: the debug trace is not the good
# pinball's), and this region still ends in its recorded state.
expect flag-df 0 "^replay: OK [0-9]+ instructions"
"$replayer" -replay:echo 0 -debugtrace -odebugtrace "$work/good.trace" "$work/good.0" 2>/dev/null
"$replayer" -replay:echo 0 -debugtrace -odebugtrace "$work/df.trace" "$work/bad.0" 2>/dev/null
if cmp -s "$work/good.trace" "$work/df.trace"; then
	echo "flag-df: the direction flag made no difference to the replay"
	fail=1
fi
expect flag-ac 1 "^replay: DIVERGED at tid 0 icount [0-9]+: the app died of signal 7"
expect write-outside 1 "^replay: DIVERGED .*: the recording has the kernel write [0-9]+ bytes at 0x10000, where the app has no writable memory"
expect page-outside 2 "^replayer: error: .*page 0x10000 is outside the memory map"
expect page-twice 2 "^replayer: error: .*page 0x[0-9a-f]+ is recorded twice"
expect map-overlap 2 "^replayer: error: .*memory map entries overlap"
expect end-icount 2 "^replayer: error: .*the schedule gives thread 0 [0-9]+ instructions, its end state"
expect slice 2 "^replayer: error: .*the schedule gives thread 0"
expect signo 2 "^replayer: error: .*a signal event of signal 99"
expect dest-reg 2 "^replayer: error: .*an instruction event of kind [0-9]+, register 17"
expect xsave-size 2 "^replayer: error: .*an impossible xsave size"

# The replayer's own memory: a replay whose stdout nobody reads stops in its echo, and its
# mappings show the code cache (rwx, 32 MiB arenas: jit/code_cache.c), and the replayer's
# data and heap. Without address randomisation (setarch -R) the mutants' replays have them
# at the same addresses; the code cache's place follows from the pinball's start.
"$logger" -log:basename "$work/maps" -- "$maps_app" >/dev/null 2>&1 || { echo "recording failed"; exit 1; }
mkfifo "$work/full"
exec 3<>"$work/full"
setarch -R "$replayer" "$work/maps.0" >"$work/full" 2>/dev/null &
pid=$!
self=$(readlink -f "$replayer")
for _ in $(seq 200); do
	# Once the code cache is there, the replayer has set itself up. (A read across its
	# execs may see a line cut short.)
	cache='' data='' heap=''
	while read -r range perms _ _ _ path; do
		[[ $range =~ ^[0-9a-f]+-[0-9a-f]+$ ]] || continue
		start=$(printf '0x%x' "0x${range%-*}")
		size=$((0x${range#*-} - start))
		case $perms:$path in
		rwxp:) [ $size -eq $((32 << 20)) ] && cache=${cache:-$start} ;;
		rw-p:"$self") data=${data:-$start} ;;
		rw-p:"[heap]") heap=$start ;;
		esac
	done <"/proc/$pid/maps"
	[ -n "$cache" ] && break
	sleep 0.05
done
kill $pid
wait $pid 2>/dev/null
exec 3<&-
if [ -z "$cache" ] || [ -z "$data" ] || [ -z "$heap" ]; then
	echo "the replayer's code cache ($cache), data ($data) or heap ($heap) not found"
	exit 1
fi
good=$work/maps.0
runner=(setarch -R)
not_writable="where the app has no writable memory"
# The kernel's writes of a syscall aimed there: refused before any is made.
for at in "$cache" "$data" "$heap"; do
	expect "write-at=$at" 1 "^replay: DIVERGED .*: the recording has the kernel write [0-9]+ bytes at $at, $not_writable"
done
# Mappings made there: the replayer claims every range the region maps before the replay
# starts, so one that is already the replayer's own is refused (at every retry: setarch -R
# keeps the layout) ...
for at in "$data" "$heap"; do
	for call in mmap mremap; do
		expect "$call-at=$at" 2 "^replayer: error: the range $at-0x[0-9a-f]+ that the region maps is in use by the replayer$"
	done
done
# ... and the code cache, made later, is never among them: here it goes elsewhere, and the
# mapping, now at its place, is not where the recorded pages of the file go.
expect "mmap-at=$cache" 1 "^replay: DIVERGED .*: mmap: the recording has a page at 0x[0-9a-f]+ of the mapping $cache-0x[0-9a-f]+, outside it"
# An unmapping that reports what no munmap returns: nothing of the replayer's is unmapped.
expect "munmap-at=$cache" 1 "^replay: DIVERGED .*: munmap gave 0x0, recorded $cache$"
[ $fail -eq 0 ] && echo "every crafted pinball refused or diverged as expected"
exit $fail
