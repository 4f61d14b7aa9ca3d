#!/usr/bin/env bash
# Usage: champsim_outputs.sh LOGGER REPLAYER TAMPER APP
# The output side of -trace champsim: raw, .gz and .xz traces hold the same records; bad
# knobs, unwritable outputs and corrupt pinballs give one line and exit 2 before anything
# is written; a diverging replay (exit 1) leaves no trace behind, complete or partial; a
# write error (/dev/full) ends the run with the reason and a non-zero exit.
set -uo pipefail
logger=$1 replayer=$2 tamper=$3 app=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0
"$logger" -log:basename pb/good -- "$app" 20000 >/dev/null 2>&1 || { echo "FAIL: recording"; exit 1; }
"$tamper" pb/good.0 pb/bad.0 || exit 1
mkdir out
for f in t t.gz t.xz; do
	"$replayer" -replay:echo 0 -trace champsim -o out/$f pb/good.0 2>/dev/null ||
		{ echo "FAIL: tracing into $f"; fail=1; }
done
if cmp -s out/t <(gzip -dc out/t.gz) && cmp -s out/t <(xz -dc out/t.xz) && [ -s out/t ]; then
	echo "ok   raw, gzip and xz: the same $(($(stat -c %s out/t) / 64)) records"
else
	echo "FAIL: the raw, gzip and xz traces differ"
	fail=1
fi
check() { # NAME EXIT REGEX ARGS...
	local name=$1 want=$2 regex=$3 out status
	shift 3
	out=$("$replayer" -replay:echo 0 "$@" 2>&1)
	status=$?
	if [ $status -ne "$want" ] || [ "$(wc -l <<<"$out")" -ne 1 ] || ! grep -Eq -- "$regex" <<<"$out"; then
		echo "FAIL $name: exit $status: $out"
		fail=1
	else
		echo "ok   $name: $out"
	fi
}
mkdir fresh
check bad_format 2 "^replayer: error: knob '-trace' takes champsim, not 'pin'" \
	-trace pin -o fresh/t pb/good.0
check no_output 2 "^replayer: error: -trace needs an output file" -trace champsim pb/good.0
check no_format 2 "^replayer: error: -o needs a trace format" -o fresh/t pb/good.0
check missing_dir 2 "^replayer: error: cannot write 'nodir/t': No such file or directory" \
	-trace champsim -o nodir/t pb/good.0
check directory 2 "^replayer: error: cannot write 'fresh': Is a directory" \
	-trace champsim -o fresh pb/good.0
chmod 555 fresh
if [ "$(id -u)" != 0 ]; then
	check read_only_dir 2 "^replayer: error: cannot write 'fresh/t': Permission denied" \
		-trace champsim -o fresh/t pb/good.0
fi
chmod 755 fresh
cp -r pb corrupt
head -c 100 pb/good.0.pages >corrupt/good.0.pages
check corrupt_pinball 2 "^replayer: error: .*good\.0\.pages" -trace champsim -o fresh/t \
	corrupt/good.0
check diverging 1 "^replay: DIVERGED at tid 0 icount [0-9]+" -trace champsim -o fresh/t.xz pb/bad.0
# A device that refuses writes: the replay's verdict, then the error, and exit 1.
out=$("$replayer" -replay:echo 0 -trace champsim -o /dev/full pb/good.0 2>&1)
status=$?
if [ $status -eq 0 ] || ! grep -q "^replayer: error: -trace: cannot write '/dev/full': No space left on device$" <<<"$out"; then
	echo "FAIL full_device: exit $status: $out"
	fail=1
else
	echo "ok   full_device: exit $status: $(tail -1 <<<"$out")"
fi
if [ -n "$(ls -A fresh)" ]; then
	echo "FAIL: the failed runs left files: $(ls -A fresh)"
	fail=1
else
	echo "ok   nothing left behind by the failed runs"
fi
exit $fail
