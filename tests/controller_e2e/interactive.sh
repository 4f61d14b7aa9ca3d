#!/usr/bin/env bash
# Usage: interactive.sh LOGGER REPLAYER APPS CASE
# The interactive controller against bad clients and hostile files: its replies, a client
# that sends nothing, events that are not armed, and the port file (private, removed at
# every end of the process, never written through a symbolic link). APPS is the folder of
# tests/apps: ticker (LINES MS: prints a line every MS milliseconds, LINES times), sets_gs
# (a fatal error of the logger) and dies_by_signal.
set -uo pipefail
logger=$1 replayer=$2 apps=$3 case=$4
ticker=$apps/ticker
client=$(dirname "$0")/../../scripts/ctrl_client
work=$(mktemp -d)
trap 'kill $pid 2>/dev/null; rm -rf "$work"' EXIT
pid=
fail() {
	echo "FAIL $case: $*"
	[ -f "$work/out" ] && sed 's/^/  out: /' "$work/out"
	[ -f "$work/log" ] && sed 's/^/  log: /' "$work/log"
	exit 1
}
ok() { echo "ok   $case: $*"; }

# start_logger KNOBS... -- PROGRAM...: the logger in the background with an interactive
# start/stop chain; waits for its port file ($port_file).
start_logger() {
	"$logger" -controller_log "$work/log" -control start:interactive,stop:interactive \
		-interactive-file "$work/ctl" "$@" >"$work/out" 2>&1 &
	pid=$!
	port_file=$work/ctl.$pid
	for _ in $(seq 200); do [ -s "$port_file" ] && return; sleep 0.02; done
	fail "no port file $port_file"
}
send() { # EXPECTED-REPLY EXPECTED-STATUS EVENT: one client, its reply and exit status
	local out status
	out=$("$client" "$port_file" "$3" 2>&1)
	status=$?
	[ "$out" = "$1" ] && [ $status -eq "$2" ] ||
		fail "'$3': expected [$1] status $2, got [$out] status $status"
	ok "'$3' -> $out"
}
finish() { # waits for the logger; it must exit 0 and leave no port file behind
	wait $pid || fail "logger exit status $?"
	[ ! -e "$port_file" ] || fail "port file left behind after exit"
	pid=
	ok "the logger exited 0 and removed $port_file"
}
events() { awk '{ print $1, $2 }' "$work/log" | tr '\n' ',' ; }
# run_once PLANT PROGRAM...: the logger in the foreground, with an interactive start, on
# PROGRAM. Its pid is known before it starts: bash runs PLANT with that pid as $$ and execs
# the logger, so PLANT can put files at the port file's name ($W/ctl.$$); the app, in the
# same process, finds its port file as "$W/ctl.$$" too. Sets $status and $port_file.
export W=$work
run_once() {
	local plant=$1
	shift
	bash -c 'echo $$ >"$W/pid"; eval "$0"; exec "$@"' "$plant" "$logger" -log 0 \
		-control start:interactive -interactive-file "$W/ctl" -- "$@" >"$work/out" 2>&1
	status=$?
	port_file=$W/ctl.$(cat "$W/pid")
}
gone() { # WHAT: the port file must be gone
	[ ! -e "$port_file" ] || fail "$1: port file left behind"
	ok "$1: status $status, port file removed"
}

case $case in
record) # a region between a client's start and stop is recorded, and replays
	start_logger -log 1 -log:basename "$work/pb/x" -- "$ticker" 12 250
	[ "$(stat -c %a "$port_file")" = 600 ] || fail "port file mode $(stat -c %a "$port_file")"
	ok "port file $port_file is private (0600)"
	send ok 0 start
	sleep 0.6
	send ok 0 stop
	finish
	[ "$(events)" = "fired start,fired stop," ] || fail "events: $(events)"
	out=$("$replayer" -replay:echo 0 "$work/pb/x.0" 2>&1) || fail "replay: $out"
	ok "events fired: $(events) replay: $out"
	;;
idle_client) # a client that connects and sends nothing delays the next one by 2 s at most
	start_logger -log 0 -- "$ticker" 20 250
	exec 4<>"/dev/tcp/127.0.0.1/$(cat "$port_file")" || fail "cannot connect"
	begin=$(date +%s%N)
	send ok 0 start
	ms=$((($(date +%s%N) - begin) / 1000000))
	[ "$ms" -lt 4000 ] || fail "the second client waited $ms ms"
	ok "the second client was served after $ms ms"
	read -r -t 5 idle_reply <&4 || true
	[ "$idle_reply" = "error: no command within 2 seconds" ] || fail "idle client: [$idle_reply]"
	ok "the idle client was told: $idle_reply"
	exec 4>&-
	send ok 0 stop
	finish
	;;
not_armed) # an event no alarm waits for is refused; the listener keeps serving
	start_logger -log 0 -- "$ticker" 20 250
	send "error: no stop alarm is armed" 1 stop
	send ok 0 start
	# The start may still be on its way: this stop waits for it, then finds its alarm armed.
	send ok 0 stop
	send "error: no start alarm is armed" 1 start
	send "error: no stop alarm is armed" 1 stop
	finish
	[ "$(events)" = "fired start,fired stop," ] || fail "events: $(events)"
	ok "events fired: $(events)"
	;;
port_file) # planted files, and removal at every kind of end
	run_once 'ln -s "$W/target" "$W/ctl.$$"' /bin/true
	want="logger: error: interactive controller: '$port_file' is a symbolic link: not writing the port there"
	[ $status -eq 2 ] && [ "$(cat "$work/out")" = "$want" ] || fail "symlink: status $status"
	[ ! -e "$work/target" ] && [ -L "$port_file" ] || fail "wrote through the symbolic link"
	ok "a symbolic link at the port file's name is refused: $(cat "$work/out")"

	# A stale regular file (an earlier process with our pid) is replaced, privately.
	run_once 'echo stale >"$W/ctl.$$"; chmod 644 "$W/ctl.$$"' \
		sh -c 'head -n 1 "$W/ctl.$$"; stat -c %a "$W/ctl.$$"'
	[ $status -eq 0 ] && grep -Eqx '[0-9]+
600' <<<"$(cat "$work/out")" || fail "stale file: status $status"
	gone "a stale file replaced by the port, mode 0600"

	# Every end removes it: a fatal error of the logger (the app sets %gs, after an exec the
	# logger follows, which writes the file anew), deaths by signal, a program that cannot
	# run (the driver exits before the app starts).
	run_once : sh -c 'test -f "$W/ctl.$$" && exec "$0"' "$apps/sets_gs"
	[ $status -eq 1 ] && grep -q "^logger: error: the app sets its %gs base" "$work/out" ||
		fail "fatal error: status $status"
	gone "a fatal error"
	for how in segv term abort; do
		run_once : sh -c 'test -f "$W/ctl.$$" && exec "$0" "$1"' "$apps/dies_by_signal" "$how"
		sig=$(kill -l $((status - 128)) 2>/dev/null)
		[ "$sig" = "$(sed 's/segv/SEGV/; s/term/TERM/; s/abort/ABRT/' <<<"$how")" ] ||
			fail "death by $how: status $status"
		gone "death by SIG$sig"
	done
	# Killed from outside while the app runs (a background job ignores SIGINT: SIGTERM).
	start_logger -log 0 -- "$ticker" 40 250
	for _ in $(seq 200); do grep -q '^tick 1$' "$work/out" && break; sleep 0.02; done
	kill -TERM $pid
	wait $pid
	status=$?
	pid=
	[ $status -eq 143 ] || fail "kill -TERM: status $status"
	gone "killed by SIGTERM from outside"
	run_once : /nonexistent/program
	[ $status -eq 127 ] || fail "missing program: status $status"
	gone "a program that cannot run"
	;;
*)
	echo "unknown case $case"
	exit 2
	;;
esac
