#!/usr/bin/env bash
# Usage: replay_environment.sh LOGGER REPLAYER DISPOSITIONS_APP THREADS_APP SIGNALS_APP
# A good pinball replays OK, and identically (the same verdict, the same echo), whatever the
# replayer's own environment: every blockable signal blocked, signals ignored, few
# descriptors allowed, another working directory (the pinball named relative to it), an
# empty environment, many inherited descriptors, stdin closed. (A stdout closed early and
# the ignored signals of `nohup` are in echo_streams.sh too.)
set -uo pipefail
logger=$1 replayer=$2 dispositions=$3 threads=$4 signals=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
mkdir elsewhere
fail=0

# The environments: each runs the replayer on pinball $1 (a path relative to $work).
plain() { "$replayer" "$1"; }
blocked() { # every signal a process may block (not glibc's own 32 and 33)
	perl -MPOSIX -e 'sigprocmask(SIG_BLOCK, POSIX::SigSet->new(1 .. 31, 34 .. 64)) or die;
		exec @ARGV or die' "$replayer" "$1"
}
ignored() { (trap '' HUP INT QUIT USR1 USR2 PIPE ALRM TERM CHLD TSTP TTIN TTOU && exec "$replayer" "$1"); }
# Five descriptors: the fewest with which the dynamic loader still starts the replayer.
few_fds() { (ulimit -n 5 && exec "$replayer" "$1"); }
elsewhere() { (cd elsewhere && exec "$replayer" "../$1"); }
empty_env() { env -i "$replayer" "$1"; }
many_fds() { # 3 to 200 open, on a file, a pipe and a directory
	(
		for fd in $(seq 3 200); do
			case $((fd % 3)) in
			0) eval "exec $fd</dev/null" ;;
			1) eval "exec $fd<." ;;
			2) eval "exec $fd> >(cat >/dev/null)" ;;
			esac
		done
		exec "$replayer" "$1"
	)
}
stdin_closed() { "$replayer" "$1" <&-; }

"$logger" -log:basename pb/dispositions -- "$dispositions" >/dev/null 2>&1 &&
	"$logger" -log:basename pb/threads -- "$threads" >/dev/null 2>&1 &&
	"$logger" -log:basename pb/timer -- "$signals" timer >/dev/null 2>&1 ||
	{ echo "FAIL: the recordings"; exit 1; }
for pb in dispositions threads timer; do
	plain "pb/$pb.0" >"$pb.out" 2>"$pb.err"
	grep -q '^replay: OK ' "$pb.err" || { echo "FAIL: $pb: $(cat "$pb.err")"; fail=1; continue; }
	for env in blocked ignored few_fds elsewhere empty_env many_fds stdin_closed; do
		"$env" "pb/$pb.0" >"$pb.$env.out" 2>"$pb.$env.err"
		status=$?
		if [ $status -ne 0 ] || ! cmp -s "$pb.err" "$pb.$env.err" ||
			! cmp -s "$pb.out" "$pb.$env.out"; then
			echo "FAIL: $pb, $env: exit $status, $(tail -1 "$pb.$env.err")"
			diff "$pb.out" "$pb.$env.out" | head -5
			fail=1
		else
			echo "ok   $pb, $env: $(tail -1 "$pb.$env.err")"
		fi
	done
done
exit $fail
