# Sourced by scripts/gdb_record and scripts/gdb_replay: run a pintrace driver with -appdebug
# in the background, wait for its port file, and run gdb on it in the foreground.
# gdb_session PROGRAM-FOR-GDB GDB-SCRIPT DRIVER [ARGS...]: PROGRAM-FOR-GDB empty lets gdb
# ask the stub; GDB-SCRIPT empty for an interactive session, else gdb runs it in batch
# mode. Returns the driver's exit status.
gdb_session() {
	local program=$1 script=$2 driver=$3
	shift 3
	local work
	work=$(mktemp -d)
	"$driver" -appdebug -appdebug_file "$work/port" "$@" &
	local pid=$!
	local port_file=$work/port.$pid port=
	while kill -0 "$pid" 2>/dev/null; do
		[ -s "$port_file" ] && { port=$(head -n 1 "$port_file"); break; }
		sleep 0.05
	done
	if [ -z "$port" ]; then
		wait "$pid"
		local status=$?
		rm -rf "$work"
		echo "$(basename "$0"): the driver ended before gdb could attach" >&2
		return $((status ? status : 1))
	fi
	local gdb_args=(-q -ex "set pagination off" -ex "set sysroot /")
	if gdb -batch -ex "python import gdb" >/dev/null 2>&1; then
		gdb_args+=(-x "$PINTRACE_SCRIPTS/lib/pin.py")
	else
		echo "$(basename "$0"): gdb has no Python: use 'monitor record on|off', 'monitor icount'" >&2
	fi
	[ -n "$program" ] && gdb_args+=("$program")
	gdb_args+=(-ex "target remote 127.0.0.1:$port")
	[ -n "$script" ] && gdb_args=(-batch "${gdb_args[@]}" -x "$script")
	gdb "${gdb_args[@]}"
	wait "$pid"
	local status=$?
	rm -rf "$work"
	return $status
}
