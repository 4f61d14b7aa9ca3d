#!/usr/bin/env bash
# Usage: full_disk.sh LOGGER
# Pinballs that do not fit on their file system (a tmpfs of 600 KiB, mounted in a mount
# namespace of the test's own): each is named in one line, nothing of it stays, the app
# goes on as natively (a child's exit status is its own; the shell after it runs), and the
# logger exits 1 at the run's end; a region that ends mid-run lets the app finish too.
# Skipped (77) where no mount namespace can be had.
set -uo pipefail
logger=$1
source "$(dirname "$0")/../support/scratch.sh"
mkdir small
unshare -rm true 2>/dev/null || { echo "SKIP: no mount namespace (unshare -rm)"; exit 77; }

in_small_fs() {
	unshare -rm bash -c "mount -t tmpfs -o size=600k tmpfs '$work/small' && $*"
}

in_small_fs "'$logger' -log:basename '$work/small/pb/run' -- /bin/bash -c \
	'/usr/bin/python3 -c \"print(1)\"; echo child \$?; echo after'; echo logger \$?; \
	ls -A '$work/small/pb' > '$work/left.txt'" >out.txt 2>err.txt
[ "$(cat out.txt)" = "$(printf '1\nchild 0\nafter\nlogger 1')" ] ||
	fail "the run printed: $(cat out.txt); stderr: $(cat err.txt)"
[ ! -s left.txt ] || fail "left behind: $(cat left.txt)"
[ "$(grep -c 'No space left on device$' err.txt)" -eq 2 ] || fail "the errors: $(cat err.txt)"
! grep -v '^logger: error: .*: No space left on device$' err.txt ||
	fail "other lines on stderr: $(cat err.txt)"

in_small_fs "'$logger' -log:basename '$work/small/pb/run' -control stop:icount:1000000 -- \
	/usr/bin/python3 -c 'print(sum(range(10**6)))'; echo logger \$?" >out.txt 2>err.txt
[ "$(cat out.txt)" = "$(printf '499999500000\nlogger 1')" ] ||
	fail "mid-run: $(cat out.txt); stderr: $(cat err.txt)"
echo PASS
