#!/usr/bin/env bash
# Usage: echo_streams.sh LOGGER REPLAYER OUTPUT_STREAMS_APP DISPOSITIONS_APP
# A replay shows exactly what reached the recording's stdout and stderr, by any route (dup,
# F_DUPFD, writev, a pipe, sendfile, splice, copy_file_range; not what was redirected
# away), whether stdout is a file or a pipe; and a replay does not depend on the replayer's
# own environment: its stdout closed early (`| head`), SIGINT and SIGHUP ignored.
set -uo pipefail
logger=$1 replayer=$2 app=$3 dispositions=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
cd "$work" || exit 1

# stdout and stderr to files, compared separately
"$app" . >native.out 2>native.err || { echo "the app failed natively"; exit 1; }
"$logger" -log:basename pb/f -- "$app" . >rec.out 2>rec.err
"$replayer" pb/f.0 >rep.out 2>rep.err
grep -v '^logger: ' rec.err >rec.app.err
grep -v '^replay: ' rep.err >rep.app.err
for stream in out err; do
	if ! cmp -s native.$stream rec.$stream && ! cmp -s native.$stream rec.app.$stream; then
		echo "std$stream differs between the native run and the recording"
		fail=1
	fi
done
if ! cmp -s rec.out rep.out || ! cmp -s rec.app.err rep.app.err; then
	echo "the replay's stdout or stderr differs from the recording's:"
	diff rec.out rep.out | head
	diff rec.app.err rep.app.err | head
	fail=1
fi
grep -q '^replay: OK ' rep.err || { echo "replay (files): $(cat rep.err)"; fail=1; }

# both streams into one pipe
"$app" . 2>&1 | cat >native.pipe
"$logger" -q -log:basename pb/p -- "$app" . 2>&1 | cat >rec.pipe
"$replayer" pb/p.0 2>&1 | grep -v '^replay: ' | cat >rep.pipe
if ! cmp -s native.pipe rec.pipe || ! cmp -s rec.pipe rep.pipe; then
	echo "through a pipe, native, recording and replay differ:"
	diff native.pipe rec.pipe | head
	diff rec.pipe rep.pipe | head
	fail=1
fi

# the replayer's stdout closes after 10 bytes
"$replayer" pb/f.0 2>head.err | head -c 10 >head.out
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ] || ! grep -q '^replay: OK ' head.err || ! cmp -s head.out <(head -c 10 rec.out); then
	echo "with its stdout closed early the replay did not go on (exit $status): $(cat head.err)"
	fail=1
fi

# the replayer's own ignored signals are not the app's (recorded with the defaults)
"$logger" -log:basename pb/s -- "$dispositions" >sig.rec 2>/dev/null
(trap '' INT HUP QUIT TERM PIPE; exec "$replayer" pb/s.0) >sig.rep 2>sig.err
if ! grep -q '^replay: OK ' sig.err || ! cmp -s sig.rec sig.rep; then
	echo "with signals ignored by the replayer's parent, the replay differs: $(cat sig.err)"
	diff sig.rec sig.rep
	fail=1
fi
[ $fail -eq 0 ] && echo "echo exact with files, pipes, a closed stdout and ignored signals"
exit $fail
