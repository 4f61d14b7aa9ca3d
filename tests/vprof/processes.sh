#!/usr/bin/env bash
# Usage: processes.sh LOGGER REPLAYER PINBALL
# Under logger -log 0, each process image writes a profile of its own: the shell the user
# started writes FILE; the echo its forked child execs, and the echo the shell execs at the
# end, write FILE.PID.1 (their process's first followed image). None is overwritten.
logger=$1 pinball=$3
. "$(dirname "$0")/vprof_lib.sh"
(cd "$work" && "$logger" -log 0 -vprofile classic -vprofile_out p.vprof -- \
	/bin/sh -c '/bin/echo a; exec /bin/echo b' >out 2>log) || { echo "FAIL run"; cat "$work/log"; exit 1; }
check "three profiles" "p.vprof p.vprof.N.1 p.vprof.N.1" \
	"$(cd "$work" && ls p.vprof* | sed 's/\.[0-9]*\.1$/.N.1/' | xargs)"
check "three lines about them" "3" "$(grep -c "profile 'classic' written to $work/p.vprof" "$work/log")"
for f in "$work"/p.vprof*; do
	"$pinball" vplist -limit 1 "$f" >/dev/null || { echo "FAIL: vplist $f"; fail=1; }
done
exit $fail
