#!/usr/bin/env bash
# Usage: user_namespace.sh LOGGER
# unshare(CLONE_NEWUSER) needs a process of one thread. Without recording the app is alone
# in its process and `unshare -r` works; while the logger records, its writer threads make
# the kernel refuse (EINVAL, as for any multithreaded process), and the logger says why
# once. Skipped (77) where this machine allows no user namespace.
set -uo pipefail
logger=$1
fail() { echo "FAIL: $*"; exit 1; }
unshare -r true 2>/dev/null || { echo "SKIP: no unprivileged user namespaces here"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
"$logger" -log 0 -- unshare -r true 2>err || fail "-log 0: unshare -r failed: $(cat err)"
[ ! -s err ] || fail "-log 0: unexpected messages: $(cat err)"
"$logger" -log:basename pb -- unshare -r true 2>err && fail "recording: unshare -r succeeded"
[ "$(grep -c 'logger: warning: unshare of a user namespace failed (EINVAL): it needs a process of one thread, and the runtime runs [0-9]* of its own' err)" = 1 ] ||
	fail "recording: no one-line explanation: $(cat err)"
echo "ok   unshare -r works under -log 0; while recording it fails as the kernel says, explained once"
