#!/usr/bin/env bash
# Usage: cases.sh LOGGER TARGETS CASE
# End-to-end checks of the controller on tests/apps/control_targets (built without PIE, so
# `nm` gives runtime addresses). Each case runs the logger with -controller_log and checks
# which events fired, in which order, on which thread, at which pc, and (-icount) how many
# instructions the regions hold.
set -uo pipefail
logger=$1 app=$2 case=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The app's functions, sorted by address, for naming pcs.
mapfile -t syms < <(nm "$app" | awk '$2 ~ /^[Tt]$/ { print $1, $3 }' | sort)

where() { # PC -> "name" at a function start, "name+0xOFF" inside one, "?" elsewhere
	local pc=$(($1)) best="" base=0 line addr
	for line in "${syms[@]}"; do
		addr=$((16#${line%% *}))
		[ "$addr" -le "$pc" ] || break
		base=$addr best=${line#* }
	done
	if [ -z "$best" ] || [ $((pc - base)) -gt 4096 ]; then
		echo "?"
	elif [ "$pc" -eq "$base" ]; then
		echo "$best"
	else
		printf '%s+0x%x\n' "$best" $((pc - base))
	fi
}

# run SCENARIO KNOBS...: runs the app; sets $events ("start:0@foo stop:0@bar ...") and
# $counts (the -icount total).
run() {
	local scenario=$1
	shift
	"$logger" -log 0 -icount -oicount "$work/icount" -controller_log "$work/log" "$@" \
		-- "$app" $scenario >"$work/out" 2>"$work/err"
	local status=$?
	if [ $status -ne 0 ] || ! grep -q "^${scenario%% *} done$" "$work/out"; then
		echo "the app did not run to completion (status $status):"
		cat "$work/out" "$work/err"
		exit 1
	fi
	events=""
	while read -r verb ev tid icount pc rest; do
		events+="${events:+ }${ev}:${tid#tid=}@$(where "${pc#pc=}")"
	done <"$work/log"
	counts=$(awk '/^icount total/ { print $3 }' "$work/icount")
	icounts=$(awk '{ sub("icount=", "", $4); print $4 }' "$work/log" | tr '\n' ' ')
}

expect() { # WHAT EXPECTED ACTUAL
	if [ "$2" != "$3" ]; then
		echo "FAIL $case: $1: expected [$2], got [$3]"
		cat "$work/log"
		exit 1
	fi
	echo "ok   $case: $1: $3"
}

case $case in
address) # start at symbol foo, stop at symbol bar
	run calls -control start:address:foo,stop:address:bar
	expect events "start:0@foo stop:0@bar" "$events"
	;;
icount_skip_length) # -control start:icount:N,stop:icount:M is -skip N -length M
	run calls -control start:icount:100000,stop:icount:3000
	a_events=$events a_icounts=$icounts a_counts=$counts
	run calls -skip 100000 -length 3000
	expect "same events" "$a_events" "$events"
	expect "same icounts" "$a_icounts" "$icounts"
	expect "same region size" "$a_counts" "$counts"
	read -r start stop <<<"$icounts"
	# Block granularity: the start fires at the block that would cross 100000.
	[ "$start" -le 100000 ] && [ "$start" -gt 99936 ] || expect "start within a block" "<=100000" "$start"
	[ $((stop - start)) -le 3000 ] && [ $((stop - start)) -gt 2936 ] ||
		expect "length within a block" "~3000" "$((stop - start))"
	echo "ok   $case: start at $start, stop at $stop, region $counts instructions"
	;;
precond) # start at foo only after the ssc mark: the foo before the mark does not count
	run calls -control start:address:foo,stop:address:bar
	plain=$counts
	run calls -control precond:ssc:11223344,start:address:foo,stop:address:bar
	expect events "start:0@foo stop:0@bar" "$events"
	run calls -control start:ssc:11223344,stop:address:bar
	from_mark=$counts
	run calls -control precond:ssc:11223344,start:address:foo,stop:address:bar
	[ "$counts" -lt "$from_mark" ] && [ "$from_mark" -lt "$plain" ] ||
		expect "region order" "precond < from-mark < plain" "$counts $from_mark $plain"
	echo "ok   $case: regions: precond $counts < from mark $from_mark < plain $plain"
	;;
bcast) # events marked broadcast
	run calls -control start:address:foo,bcast,stop:address:bar,bcast
	expect events "start:bcast@foo stop:bcast@bar" "$events"
	;;
tid) # only thread 0 is watched; an alarm for thread 1 never fires here
	run calls -control start:address:foo:tid0,stop:address:bar:tid0
	expect events "start:0@foo stop:0@bar" "$events"
	run calls -control start:address:foo:tid1,stop:address:bar:tid1
	expect events "" "$events"
	;;
uniform_icount) # precond:icount:200,uniform:800:500:5
	run calls -control precond:icount:200,uniform:800:500:5
	expect events "$(printf 'start:0@%s stop:0@%s ' x x x x x x x x x x | sed 's/ $//')" \
		"$(sed -E 's/@[^ ]+/@x/g' <<<"$events")"
	read -r -a ic <<<"$icounts"
	for k in 0 1 2 3 4; do
		s=${ic[$((2 * k))]} e=${ic[$((2 * k + 1))]}
		want=$((200 + 800 * k))
		[ $((want - s)) -ge 0 ] && [ $((want - s)) -lt 64 ] || expect "sample $k start" "~$want" "$s"
		[ $((e - s)) -gt 436 ] && [ $((e - s)) -le 564 ] || expect "sample $k length" "~500" "$((e - s))"
	done
	echo "ok   $case: samples at $icounts"
	;;
uniform_ssc) # precond:ssc:11223344,uniform:800:500:5
	run calls -control precond:ssc:11223344,uniform:800:500:5
	expect "event count" 10 "$(wc -w <<<"$events")"
	;;
waitfor) # start at boo only after foo,bar,foo,bar
	run calls -control precond:address:foo,precond:address:bar,repeat:2,name:c1 \
		-control start:address:boo,waitfor:c1
	expect events "start:0@boo" "$events"
	# the boo after the second foo,bar pair: the last call but none
	run calls -control start:address:boo,stop:address:boo
	read -r first_boo _ <<<"$icounts"
	run calls -control precond:address:foo,precond:address:bar,repeat:2,name:c1 \
		-control start:address:boo,waitfor:c1
	[ "$icounts" != "$first_boo " ] || expect "not the first boo" "later" "$icounts"
	echo "ok   $case: started at icount $icounts (first boo at $first_boo)"
	;;
enter_exit_same) # A->B->foo->C->D: start at foo, stop when foo returns: captures foo, C, D
	run nested -control start:enter_func:foo,stop:exit_func:foo
	expect events "start:0@foo stop:0@B+0x5" "$events"
	;;
exit_outermost) # A->bar->foo->C->bar: stop when the first (outermost) bar returns
	run nested -control start:enter_func:foo2,stop:exit_func:bar2
	expect events "start:0@foo2 stop:0@main+0x2e" "$(sed -E 's/main\+0x[0-9a-f]+/main+0x2e/' <<<"$events")"
	;;
exit_recursive) # A->foo->foo->foo->foo->C: stop when the first foo returns
	run nested -control start:enter_func:rfoo,stop:exit_func:rfoo
	expect "two events" 2 "$(wc -w <<<"$events")"
	expect start "start:0@rfoo" "${events%% *}"
	;;
ssc_exact) # the region between the marks holds exactly mov+nop+2001 instructions
	run region -control start:ssc:11223344,stop:ssc:55667788
	expect events "start:0@counted_region+0x4 stop:0@counted_region+0x15" \
		"$(sed -E 's/\+0x[0-9a-f]+ /+0x4 /; s/\+0x[0-9a-f]+$/+0x15/' <<<"$events")"
	expect "region icount" 2003 "$counts"
	;;
insns) # cpuid, magic, pcontrol, isa-category, itext: each at its exact instruction
	run insns -control start:cpuid:0x4567,stop:magic:0x1234 -control start:pcontrol:phase2 \
		-control start:itext:f390:count1
	expect events "start:0@main+cpuid stop:0@main+magic start:0@main+pause start:0@MPI_Pcontrol" \
		"$(awk '{ n = split($0, w, " "); for (i = 1; i <= n; i++) { split(w[i], p, "@");
			tag = (i == 1 ? "cpuid" : i == 2 ? "magic" : i == 3 ? "pause" : "");
			if (tag != "" && p[2] ~ /^main\+/) p[2] = "main+" tag; printf "%s%s@%s", (i > 1 ? " " : ""), p[1], p[2] } }' <<<"$events")"
	;;
int3) # the int3 fires the alarm and is not executed (natively it would kill the app)
	run int3 -control start:int3
	expect events "start:0@main+int3" "$(sed -E 's/main\+0x[0-9a-f]+/main+int3/' <<<"$events")"
	;;
isa) # isa-extension and isa-category match at the exact instruction
	run insns -control start:isa-category:MISC:count1
	read -r first <<<"$events"
	[ -n "$first" ] || expect "isa-category fired" "an event" "none"
	run insns -control start:isa-extension:BASE:count5,stop:isa-extension:BASE:count5
	expect "two events" 2 "$(wc -w <<<"$events")"
	read -r a b <<<"$icounts"
	# Every instruction of the BASE extension counts: from the 5th to the 10th after it.
	[ $((b - a)) -ge 5 ] || expect "BASE instructions between" ">=5" "$((b - a))"
	echo "ok   $case: isa-category:MISC at $first; BASE count5 at $icounts"
	;;
timeout) # fires after the wall time from the moment the alarm is armed
	begin=$(date +%s%N)
	run "spin long" -control start:timeout:1,stop:timeout:1
	total_ms=$((($(date +%s%N) - begin) / 1000000))
	expect events "start:0@? stop:0@?" "$(sed -E 's/@[^ ]+/@?/g' <<<"$events")"
	# The app runs for 4 s or more; the region lasts about a second of it.
	[ "$total_ms" -ge 4000 ] || expect "app ran long enough" ">=4000 ms" "$total_ms ms"
	[ "$counts" -gt 0 ] || expect "region holds instructions" ">0" "$counts"
	echo "ok   $case: app ran $total_ms ms, region $counts instructions"
	;;
bounds) # the largest values accepted never wrap around into firing at once
	run calls -control start:timeout:315360000
	expect "timeout of ten years" "" "$events"
	run calls -control start:icount:1000000000000000000
	expect "icount 10^18" "" "$events"
	run calls -control start:icount:1000,stop:icount:1000000000000000000:count1000000000000000000
	expect "icount 10^18 armed late" "start:0@?" "$(sed -E 's/@[^ ]+/@?/g' <<<"$events")"
	run calls -control uniform:1000000000000000000:1000000000000000000:1000000000000000000
	expect "uniform at its bounds" "start:0@?" "$(sed -E 's/@[^ ]+/@?/g' <<<"$events")"
	# One past them is refused before the app starts, naming the value and its column.
	out=$("$logger" -log 0 -control stop:timeout:18446744073709551615 -- "$app" calls 2>&1)
	expect "timeout 2^64-1: status" 2 "$?"
	expect "timeout 2^64-1: message" \
		"logger: -control: integer '18446744073709551615' out of range (at most 315360000) at column 14" "$out"
	;;
interactive) # events sent from another process through scripts/ctrl_client
	client=$(dirname "$0")/../../scripts/ctrl_client
	"$logger" -log 0 -icount -oicount "$work/icount" -controller_log "$work/log" \
		-control start:interactive,stop:interactive -interactive-file "$work/ctl" \
		-- "$app" spin long >"$work/out" 2>&1 &
	pid=$!
	for _ in $(seq 100); do [ -s "$work/ctl.$pid" ] && break; sleep 0.05; done
	"$client" "$work/ctl.$pid" start || expect "client start" ok "failed"
	sleep 0.3
	"$client" "$work/ctl.$pid" stop || expect "client stop" ok "failed"
	wait $pid || expect "app status" 0 "$?"
	events=$(awk '{ print $2 }' "$work/log" | tr '\n' ' ')
	expect events "start stop " "$events"
	counts=$(awk '/^icount total/ { print $3 }' "$work/icount")
	[ "$counts" -gt 1000 ] || expect "region holds instructions" ">1000" "$counts"
	echo "ok   $case: region of $counts instructions between the two client events"
	;;
local_retranslation) # arming and disarming retranslate only the blocks they affect
	stat() { grep -oE "(: |, )$1 [0-9]+" "$work/err" | awk '{ print $NF }'; }
	run calls -jit:stats -control start:icount:1000000000000
	base=$(stat fragments)
	for chain in start:isa-category:SYSCALL,stop:isa-category:SYSCALL,repeat \
		start:address:foo,stop:address:bar,repeat; do
		run calls -jit:stats -control "$chain"
		expect "$chain: full flushes" 0 "$(stat flushes)"
		armings=$(stat "partial flushes")
		extra=$(($(stat fragments) - base))
		# A full flush per arming would retranslate the ~$base blocks in use each time.
		[ "$armings" -gt 0 ] && [ "$extra" -le $((4 * armings + 8)) ] ||
			expect "$chain: blocks retranslated for $armings armings" \
				"<= $((4 * armings + 8))" "$extra"
		echo "ok   $case: $chain: $armings armings retranslated $extra of $base blocks"
	done
	;;
*)
	echo "unknown case $case"
	exit 2
	;;
esac
