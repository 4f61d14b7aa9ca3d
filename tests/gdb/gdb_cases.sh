#!/usr/bin/env bash
# Usage: gdb_cases.sh BIN APPS SCRIPTS CASE
# Unmodified gdb against pintrace's stub, scripted (gdb -batch -x) through scripts/gdb_record
# and scripts/gdb_replay (reverse_*: reverse execution on replays). BIN holds logger, replayer and pinball; APPS the test programs
# gdb_target (a call chain, a watched global, exit status 30 % 7 = 2; SIGUSR1 twice with
# "signals"), gdb_threads (a "worker" thread; exit status 6), gdb_relay (two threads take
# turns writing a global) and ticker (LINES MS).
set -uo pipefail
bin=$1 apps=$2 scripts=$3 case=$4
command -v gdb >/dev/null || { echo "SKIP: no gdb"; exit 77; }
export PINTRACE_LOGGER=$bin/logger PINTRACE_REPLAYER=$bin/replayer
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
target=$apps/gdb_target
fail() {
	echo "FAIL $case: $*"
	[ -f out ] && sed 's/^/  out: /' out
	exit 1
}
ok() { echo "ok   $case: $*"; }
has() { grep -qE -- "$1" out || fail "expected /$1/"; }
# session TOOL EXPECTED-STATUS GDB-COMMANDS ARGS...: scripts/gdb_TOOL -x on the commands
session() {
	local tool=$1 want=$2
	printf 'set confirm off\n%s\n' "$3" >cmds.gdb
	shift 3
	timeout 120 "$scripts/gdb_$tool" -x cmds.gdb "$@" >out 2>&1
	local status=$?
	[ $status -eq "$want" ] || fail "gdb_$tool exit status $status, expected $want"
}
# record PINBALL PROGRAM ARGS...: a whole-run pinball PINBALL.0, without gdb
record() {
	local pinball=$1
	shift
	"$bin/logger" -log:basename "$pinball" -- "$@" >/dev/null 2>&1
	[ -e "$pinball.0.meta" ] || fail "no pinball $pinball.0"
}
# The value gdb printed for `echo NAME=` / `print` pairs: value NAME
value() { sed -n "s/^$1=\\\$[0-9]* = //p" out | head -n 1; }

case $case in
logger_session) # break, a local, the backtrace, steps, a watchpoint, exit status
	session record 2 'break square
continue
print x
bt
next
next
print result
finish
delete
watch counter
continue
continue
delete
continue' -o pb/s "$target" 4
	has 'Breakpoint 1, square \(x=1\)'
	has '^\$1 = 1$'
	has '^#1 .* in accumulate \(n=4\)'
	has '^#2 .* in main '
	has '^\$2 = 1$' # result after two steps
	has 'Value returned is \$3 = 1'
	has 'Old value = 0'
	has 'New value = 1'
	has 'Old value = 1'
	has 'New value = 5'
	has 'exited with code 02'
	has 'total 30 counter 30 code unchanged' # the breakpoints never showed in app memory
	[ ! -e pb/s.0 ] || fail "a region was recorded without 'pin record on'"
	ok "breakpoint, locals, backtrace, steps, watchpoint, exit status 2, code unchanged"
	;;
threads) # thread list, names, a breakpoint in the second thread, detach
	session record 6 'break worker_step
continue
info threads
print i
detach' -o pb/t "$apps/gdb_threads"
	has 'Thread 2 "worker" hit Breakpoint 1, worker_step \(i=1\)'
	has '^  1    Thread 1 "gdb_threads" '
	has '^\* 2    Thread 2 "worker" +worker_step'
	has 'detached'
	has 'worker total 6'
	ok "two threads listed with their names, breakpoint hit in thread 2, detach"
	;;
record_replay) # pin record on/off at two breakpoints: the pinball holds exactly that stretch
	session record 2 'break accumulate
continue
pin icount
pin record on
delete
break square if x == 3
continue
pin icount
pin record off
delete
continue' -o pb/r "$target" 4
	has 'Started recording region number 0'
	has 'Stopped recording region number 0'
	counts=($(sed -n 's/^thread 1: \([0-9]*\) instructions$/\1/p' out))
	[ ${#counts[@]} -eq 2 ] || fail "expected two icounts, got '${counts[*]}'"
	between=$((counts[1] - counts[0]))
	info=$("$bin/pinball" info pb/r.0) || fail "pinball info: $info"
	recorded=$(sed -n 's/^  instructions *\([0-9]*\) .*/\1/p' <<<"$info")
	[ "$recorded" = "$between" ] || fail "pinball holds $recorded instructions, gdb counted $between"
	grep -q 'region start  gdb gdb:record on' <<<"$info" || fail "region start: $info"
	replay=$("$bin/replayer" pb/r.0 2>&1) || fail "replay: $replay"
	grep -q "replay: OK $between instructions" <<<"$replay" || fail "replay: $replay"
	# gdb_replay finds the program from the pinball: symbols and the backtrace
	session replay 0 'bt' pb/r.0
	has '^#0  accumulate \(n=4\) at '
	has '^#1  .* in main '
	ok "region of $between instructions between the breakpoints; $replay"
	;;
replay_session) # the same stop in the recording and in its replay shows the same state
	show='echo rsp=
print/x $rsp
echo x=
print x
echo counter=
print counter
up
echo caller_total=
print total
down'
	session record 2 "break accumulate
continue
pin record on
delete
break square if x == 3
continue
$show
delete
continue" -o pb/p "$target" 4
	for name in rsp x counter caller_total; do
		eval "rec_$name=\$(value $name)"
	done
	[ -n "$rec_rsp" ] && [ "$rec_x" = 3 ] && [ "$rec_counter" = 5 ] && [ "$rec_caller_total" = 5 ] ||
		fail "recording: rsp=$rec_rsp x=$rec_x counter=$rec_counter total=$rec_caller_total"
	session replay 0 "pin icount
break square if x == 3
continue
$show
delete
watch counter
continue
delete
continue" pb/p.0 "$target"
	for name in rsp x counter caller_total; do
		eval "rep=\$(value $name) rec=\$rec_$name"
		[ "$rep" = "$rec" ] || fail "$name: replay $rep, recording $rec"
	done
	has '^thread 1: 0 instructions$'
	has 'Old value = 5'
	has 'New value = 14'
	has 'replay: OK'
	ok "rsp $rec_rsp, x $rec_x, counter $rec_counter, total $rec_caller_total in both; a watchpoint; verdict OK"
	;;
signals) # the app's signals stop it; gdb passes the first (continue) and not the second
	session record 2 'continue
continue
signal 0' -o pb/g "$target" 4 signals
	[ "$(grep -c 'Program received signal SIGUSR1' out)" -eq 2 ] || fail "expected two SIGUSR1 stops"
	has 'usr1 handled 1'
	ok "two SIGUSR1 stops, one passed to the handler, one suppressed"
	;;
inspect) # registers beyond the GPRs, writes to a register and to memory, monitor help and
	# status, pin X, access and read watchpoints
	session record 6 'break *accumulate
continue
set var $rdi = 5
set var counter = 7
info registers fs_base
echo YMM=
print $ymm0.v8_int32
echo MXCSR=
print $mxcsr
monitor help
monitor status
pin status
delete
awatch counter
continue
delete
rwatch counter
continue
continue' -o pb/i "$target" 4
	has '^fs_base +0x[0-9a-f]{6,} '
	[ "$(value YMM)" = "{1, 2, 3, 4, 5, 6, 7, 8}" ] || fail "ymm0 as eight ints: $(value YMM)"
	has '^MXCSR=\$[0-9]+ = \[ IM DM ZM OM UM PM \]$'
	has '^monitor commands:$'
	has '^  record on +start recording'
	[ "$(grep -c '^thread 1 stopped at 0x[0-9a-f]*, 1 threads' out)" -eq 2 ] ||
		fail "monitor status and pin status"
	grep -A3 'Hardware access (read/write) watchpoint 2: counter' out | tr '\n' ' ' >flat
	grep -q 'Old value = 7 New value = 1' flat || fail "awatch at the first write: $(cat flat)"
	grep -A3 'Hardware read watchpoint 3: counter' out | tr '\n' ' ' >flat
	grep -q 'Value = 55' flat || fail "rwatch at the read: $(cat flat)"
	has '^[0-9]+\s+printf\("total %d counter %d code %s\\n", total, counter,$'
	# accumulate(5) as gdb set %rdi, after counter was set to 7; exit status 55 % 7
	has 'total 55 counter 55 code unchanged'
	ok "n set to 5 in rdi, counter to 7 in memory; fs_base, ymm0, mxcsr; monitor help and status, pin status; awatch at the first write, rwatch at the read"
	;;
no_python) # gdb without Python: no pin command, the monitor forms record a region that replays
	mkdir -p nopy
	printf '#!/bin/sh\ncase "$*" in *"python import gdb"*) exit 1 ;; esac\nexec %s -nx "$@"\n' \
		"$(command -v gdb)" >nopy/gdb
	chmod +x nopy/gdb
	PATH=$PWD/nopy:$PATH session record 2 'break square if x == 2
continue
monitor record on
delete
break square if x == 4
continue
monitor record off
delete
continue' -o pb/n "$target" 4
	has 'gdb has no Python'
	has 'Started recording region number 0'
	has 'Stopped recording region number 0'
	replay=$("$bin/replayer" pb/n.0 2>&1) || fail "replay: $replay"
	grep -q '^replay: OK ' <<<"$replay" || fail "replay: $replay"
	ok "the script says gdb has no Python; monitor record on/off made pinball pb/n.0; $replay"
	;;
reverse_lines) # reverse-next, reverse-step, reverse-finish on source lines; pin icount forward
	record pb/l "$target" 4
	session replay 0 'break square if x == 3
continue
delete
next
reverse-next
finish
reverse-step
reverse-finish
pin icount
pin icount 108000
pin icount
continue' pb/l.0 "$target"
	lines=$(sed -n 's/^\([0-9][0-9]*\)\t.*/\1/p' out | head -6 | tr '\n' ' ')
	# square: 18 `int result = x * x;`, 19 `return result;`, 20 `}`; 26 the call in accumulate
	[ "$lines" = "18 19 18 26 20 26 " ] || fail "source lines stepped through: $lines"
	has 'Value returned is \$1 = 9'
	has '^square \(x=3\) at .*gdb_target.c:20$'
	has '^0x[0-9a-f]+ in accumulate \(n=4\) at .*gdb_target.c:26$'
	has '^thread 1 at icount 108000, pc 0x[0-9a-f]+$'
	has '^thread 1: 108000 instructions$'
	has 'replay: OK'
	ok "next 19, reverse-next 18, finish 9, reverse-step into square's end, reverse-finish to the call, forward to icount 108000; verdict OK"
	;;
exec_file) # gdb given no program finds it through the stub (qXfer:exec-file) and its symbols
	record pb/e "$target" 4
	"$bin/replayer" -appdebug -appdebug_file "$PWD/port" pb/e.0 >replay.out 2>&1 &
	pid=$!
	for _ in $(seq 100); do [ -s "port.$pid" ] && break; sleep 0.05; done
	[ -s "port.$pid" ] || fail "no port file"
	timeout 60 gdb -batch -nx -ex 'set confirm off' -ex "target remote 127.0.0.1:$(head -n 1 "port.$pid")" \
		-ex 'break accumulate' -ex continue -ex 'bt 1' -ex continue >out 2>&1
	wait "$pid"
	cat replay.out >>out
	has '^Breakpoint 1, accumulate \(n=4\) at .*gdb_target.c:[0-9]+$'
	has 'replay: OK'
	ok "gdb without a program argument: symbols of $(basename "$target") through the stub; verdict OK"
	;;
replay_libraries) # a whole-run replay: libc, mapped during the region, has its symbols
	record pb/l "$target" 4
	session replay 0 'break printf
continue
bt 2
info sharedlibrary
continue' pb/l.0 "$target"
	has '^Breakpoint 1, .*printf'
	has '^#1 .* in main \('
	has '^0x[0-9a-f]+ +0x[0-9a-f]+ +Yes .*/libc\.so\.6$'
	has 'replay: OK'
	ok "a breakpoint in libc's printf, main's frame above it, libc listed with its symbols"
	;;
fault) # a fault stops the app at the faulting instruction, before its handler or its death
	session record 3 'continue
bt 1
info registers rip
continue' -o pb/f "$target" 4 segv_handled
	has 'Program received signal SIGSEGV, Segmentation fault\.'
	has '^#0 +(0x[0-9a-f]+ in )?fault_here \(where=0x0\)'
	has 'segv handled'
	session record 139 'continue
continue' -o pb/f "$target" 4 segv
	has 'Program received signal SIGSEGV, Segmentation fault\.'
	has 'Program terminated with signal SIGSEGV, Segmentation fault\.'
	for how in segv_handled segv; do # the replays stop at the fault too, and stay exact
		record pb/$how "$target" 4 $how
		session replay 0 'continue
bt 1
continue' pb/$how.0 "$target"
		has 'Program received signal SIGSEGV, Segmentation fault\.'
		has '^#0 +(0x[0-9a-f]+ in )?fault_here \(where=0x0\)'
		has 'replay: OK '
	done
	# From the recorded death, back two instructions (inside the block the replay ends in)
	# and forward to the fault again.
	session replay 0 'continue
reverse-stepi
reverse-stepi
echo BACK=
print $pc == (char *)fault_here + 8
stepi
stepi
continue' pb/segv.0 "$target"
	[ "$(value BACK)" = 1 ] || fail "reverse-stepi twice from the fault: $(value BACK)"
	[ "$(grep -c 'Program received signal SIGSEGV' out)" -eq 2 ] || fail "expected the fault twice"
	has 'Program terminated with signal SIGSEGV, Segmentation fault\.'
	ok "stopped at the fault in fault_here, recording and replaying; back from it and forward to it again; then the handler ran, or the app died of it"
	;;
interrupt) # Ctrl-C (gdb's SIGINT, as from a terminal) stops the running app; detach lets it go
	session record 0 'shell (sleep 0.5; kill -INT $PPID) &
continue
pin icount
info threads
detach' -o pb/i "$apps/ticker" 60 50
	has 'Program received signal SIGINT, Interrupt.'
	has '^thread 1: [0-9]+ instructions$'
	has '^\* 1    Thread 1 "ticker"'
	has 'ticker done'
	ok "interrupted, inspected, detached; the app finished"
	;;
busy_port) # a port in use: one line naming it, exit status 2, nothing left behind
	"$bin/logger" -appdebug -appdebug_file first -log 0 -- "$target" >first.out 2>&1 &
	first=$!
	for _ in $(seq 200); do [ -s "first.$first" ] && break; sleep 0.02; done
	port=$(cat "first.$first") || fail "no port file from the first logger"
	"$bin/logger" -appdebug -appdebug_port "$port" -log 0 -- "$target" >out 2>&1
	status=$?
	kill -9 $first
	[ $status -eq 2 ] || fail "exit status $status, expected 2"
	[ "$(wc -l <out)" -eq 1 ] || fail "expected one line"
	has "^logger: error: gdb stub: cannot listen on 127.0.0.1:$port: Address already in use$"
	ok "$(cat out)"
	;;
gdb_dies) # gdb killed in a region: the app goes on; the region ends at its exit, complete
	session record 2 'break accumulate
continue
pin record on
delete
break square if x == 2
continue
python import os, signal; os.kill(os.getpid(), signal.SIGKILL)' -o pb/d "$target" 4
	has 'Started recording region number 0'
	has 'total 30 counter 30 code unchanged'
	ls pb | grep -qv '^d\.0\.' && fail "leftovers: $(ls pb)"
	replay=$("$bin/replayer" -replay:echo 0 pb/d.0 2>&1) || fail "replay: $replay"
	grep -q '^replay: OK' <<<"$replay" || fail "replay: $replay"
	ok "the app finished (status 2), its region is a whole pinball: $replay"
	;;
kill_in_region) # gdb's kill in a region: the process ends and no pinball stays, not even half
	session record 137 'break accumulate
continue
pin record on
next
kill' -o pb/k "$target" 4
	has 'Started recording region number 0'
	has 'the debugger killed the program'
	[ -z "$(ls -A pb 2>/dev/null)" ] || fail "left behind: $(ls pb)"
	ok "killed (status 137), nothing left in pb/"
	;;
replay_gdb_dies) # gdb killed during a replay: the replay goes on to its verdict
	session record 2 'break accumulate
continue
pin record on
delete
continue' -o pb/q "$target" 4
	session replay 0 'break square
continue
python import os, signal; os.kill(os.getpid(), signal.SIGKILL)' pb/q.0 "$target"
	has 'replay: OK'
	ok "$(grep 'replay: OK' out)"
	;;
reverse_stepi) # back three instructions and forward three: the same pc and registers
	record pb/s "$target" 4
	regs='info registers rip rsp rbp rax rbx rcx rdx rsi rdi r8 r9 r10 r11 r12 r13 r14 r15 eflags'
	session replay 0 "reverse-stepi
monitor goto 999999999
break square
continue
continue
echo BEFORE\n
$regs
echo END\n
reverse-stepi
reverse-stepi
reverse-stepi
echo BACK\n
info registers rip
echo END\n
stepi
stepi
stepi
echo AFTER\n
$regs
echo END\n
monitor checkpoints
pin icount 50000
pin icount
delete
continue" -c 20000 pb/s.0 "$target"
	between() { sed -n "/^$1/,/^END/p" out | grep -v -e "^$1" -e '^END'; }
	before=$(between BEFORE) after=$(between AFTER)
	[ "$(wc -l <<<"$before")" -eq 18 ] || fail "registers before: $before"
	[ "$before" = "$after" ] || fail "registers differ after three steps back and forth:
$(diff <(echo "$before") <(echo "$after"))"
	[ "$(between BACK | awk '{print $2}')" != "$(awk '/^rip/ {print $2}' <<<"$before")" ] ||
		fail "reverse-stepi did not move"
	has '^No more reverse-execution history\.' # reverse-stepi at the region's start
	has '^error: thread 1 ends at icount [0-9]+: the replay can stop at 0 to [0-9]+$'
	has 'Breakpoint 1, square \(x=2\)'
	has "the region's start \(process"
	has '^  +[0-9]+  total 20[0-9]{3}: thread 1 at icount 20[0-9]{3}, ' # a periodic checkpoint
	has '^thread 1 at icount 50000, pc 0x'
	has '^thread 1: 50000 instructions$'
	has 'replay: OK'
	ok "pc and $(wc -l <<<"$before") registers equal after reverse-stepi x3, stepi x3; goto; verdict OK"
	;;
reverse_watch) # reverse-continue to the last write of a watched global, old and new values
	record pb/w "$target" 4
	session replay 0 'break square if x == 4
continue
echo COUNTER=
print counter
delete
watch counter
reverse-continue
reverse-continue
continue
delete
continue' pb/w.0 "$target"
	[ "$(value COUNTER)" = 14 ] || fail "counter at square(4): $(value COUNTER)"
	# going back the writes of 14 and 5 undo themselves (gdb: old = later, new = earlier)
	grep -A5 'Hardware watchpoint 2: counter' out | tr '\n' ' ' >flat
	grep -Eq 'Old value = 14 New value = 5 .* in accumulate \(n=4\) at .*gdb_target.c:[0-9]+ [0-9]+\s+counter = total;' flat ||
		fail "first reverse-continue: $(cat flat)"
	grep -q 'Old value = 5 New value = 1 ' flat || fail "second reverse-continue: $(cat flat)"
	grep -q 'Old value = 1 New value = 5 ' flat || fail "forward again: $(cat flat)"
	has 'replay: OK'
	ok "back to the writes of 14 and 5, forward to 5 again; verdict OK"
	;;
reverse_threads) # reverse-continue in a multithreaded replay stops in the thread that ran
	record pb/m "$apps/gdb_threads"
	session replay 0 'break worker_step
continue
continue
continue
delete
break gdb_threads.c:28
continue
delete
break worker_step
reverse-continue
echo I=
print i
info threads
reverse-continue
echo J=
print i
delete
continue' pb/m.0 "$apps/gdb_threads"
	has 'Thread 1 "gdb_threads" hit Breakpoint 2, main \(\) at .*gdb_threads.c:28'
	[ "$(value I)" = 3 ] && [ "$(value J)" = 2 ] || fail "i after reverse-continue: $(value I), $(value J)"
	has '^\* [0-9]+ +Thread 2 "worker" +worker_step \(i=3\)'
	has 'replay: OK'
	ok "from main after the join back to worker_step (i=3) then (i=2) in thread 2 (named as recorded); verdict OK"
	;;
reverse_mt_checkpoints) # checkpoints while two threads live; copies of them run on to OK
	record pb/r "$apps/gdb_relay"
	src=$scripts/../tests/apps/gdb_relay.c
	line=$(grep -n 'printf("relay' "$src" | cut -d: -f1) write=$(grep -n 'relay = value;' "$src" | cut -d: -f1)
	session replay 0 "break gdb_relay.c:$line
continue
monitor checkpoints
watch relay
reverse-continue
info threads
reverse-continue
info threads
delete
break gdb_relay.c:$write if value == 101
reverse-continue
echo RELAY=
print relay
delete
continue" -c 500000 pb/r.0 "$apps/gdb_relay"
	mt=$(grep -cE '^  +[0-9]+  total [0-9]+: thread [12] at icount [0-9]+, pc 0x[0-9a-f]+, 2 threads \(process' out)
	[ "$mt" -ge 10 ] || fail "$mt checkpoints taken while both threads lived: $(grep total out)"
	grep -A4 'Thread 2 "gdb_relay" hit Hardware watchpoint 2: relay' out | tr '\n' ' ' >flat
	grep -Eq 'Old value = 399 New value = 398 .* in pass \(me=1, value=399\)' flat ||
		fail "first reverse-continue: $(cat flat)"
	grep -A4 'Thread 1 "gdb_relay" hit Hardware watchpoint 2: relay' out | tr '\n' ' ' >flat
	grep -Eq 'Old value = 398 New value = 397 .* in pass \(me=0, value=398\)' flat ||
		fail "second reverse-continue: $(cat flat)"
	has '^\* 1 +Thread 1 "gdb_relay" .* in pass \(me=0, value=398\)'
	has 'Thread 2 "gdb_relay" hit Breakpoint 3, pass \(me=1, value=101\) at .*gdb_relay.c:'"$write"
	[ "$(value RELAY)" = 100 ] || fail "relay before the write of 101: $(value RELAY)"
	has '^relay 399, work [0-9a-f]+$'
	has 'replay: OK'
	ok "$mt checkpoints with both threads; back to the writes of 399 (thread 2), 398 (thread 1), 101; on to the end from there: verdict OK"
	;;
*)
	fail "unknown case"
	;;
esac
