#!/usr/bin/env bash
# The `pinball` tool on a synthetic pinball: info, dump and verify answer as documented;
# truncated, flipped, missing and foreign parts make verify exit 1 with one line naming
# the part; bad usage gives one "pinball: error:" line and a non-zero exit.
# Usage: cli_test.sh PINBALL_TOOL PINBALL_SYNTH
set -euo pipefail
tool=$1
synth=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$synth" "$work/orig/p" 2>/dev/null || { mkdir -p "$work/orig" && "$synth" "$work/orig/p"; }

# info: the things a user wants first.
info=$("$tool" info "$work/orig/p")
for want in "region start  control start:ssc:11223344" "region stop   control stop:icount:5000" \
	"threads       3 at start" "instructions  15003" "events        30 syscalls" \
	"pages         124 (496.0 KiB), 100 with data, 24 all-zero" "ratio" "events.1000"; do
	grep -qF -- "$want" <<<"$info" || fail "info lacks '$want': $info"
done

# verify: OK and exit 0.
out=$("$tool" verify "$work/orig/p") || fail "verify of an intact pinball failed: $out"
[ "$out" = "OK $work/orig/p" ] || fail "verify printed '$out'"

# dump: one record a line, each starting with its part.
dump=$("$tool" dump "$work/orig/p")
[ "$(grep -c '^events.1000 ' <<<"$dump")" -eq 50 ] || fail "dump: not 50 events.1000 lines"
[ "$(grep -c '^pages ' <<<"$dump")" -eq 103 ] || fail "dump: not 103 pages lines (100 data, 3 zero runs)"
[ "$(grep -c '^meta part ' <<<"$dump")" -eq 8 ] || fail "dump: not 8 meta part lines"
part=$("$tool" dump "$work/orig/p" --part events.1007)
[ "$(grep -c ' syscall nr=' <<<"$part")" -eq 10 ] || fail "dump --part: not 10 syscalls"
[ "$(grep -vc '^events.1007 ' <<<"$part")" -eq 0 ] || fail "dump --part: lines of other parts"

# A broken pinball: verify exits 1 with exactly one line naming the file.
expect_refused() { # what file
	local out status=0
	out=$("$tool" verify "$work/case/p" 2>&1) || status=$?
	[ "$status" -eq 1 ] || fail "$1: verify exit status $status ($out)"
	[ "$(wc -l <<<"$out")" -eq 1 ] || fail "$1: more than one line: $out"
	[[ "$out" == "pinball: error: "*"$2"* ]] || fail "$1: line does not name $2: $out"
}
fresh() { rm -rf "$work/case"; cp -a "$work/orig" "$work/case"; }

for f in "$work"/orig/p.*; do
	name=${f##*/}
	size=$(stat -c %s "$f")
	for len in 0 10 63 64 70 80 $((size / 2)) $((size - 1)); do
		fresh
		truncate -s "$len" "$work/case/$name"
		expect_refused "$name truncated to $len" "$name"
	done
	for off in 0 9 40 63 64 66 75 $((size / 3)) $((size - 20)) $((size - 1)); do
		fresh
		byte=$(od -An -tu1 -j "$off" -N1 "$f" | tr -d ' ')
		printf "$(printf '\\%03o' $(((byte ^ 0x10) & 255)))" |
			dd of="$work/case/$name" bs=1 seek="$off" conv=notrunc status=none
		expect_refused "$name with byte $off flipped" "$name"
	done
done

fresh
rm "$work/case/p.pages"
expect_refused "missing p.pages" "p.pages: cannot open"

fresh
"$synth" "$work/other" 2>/dev/null || true
cp "$work/other.end" "$work/case/p.end"
expect_refused "p.end of another pinball" "p.end: offset 16: pinball id differs"

# Usage errors: one line, non-zero.
for args in "" "info" "frob $work/orig/p" "info $work/nothing" "dump $work/orig/p --part nope" \
	"verify $work/orig/p extra"; do
	status=0
	# shellcheck disable=SC2086 # word splitting wanted
	out=$("$tool" $args 2>&1) || status=$?
	[ "$status" -ne 0 ] || fail "'pinball $args' exited 0"
	[ "$(wc -l <<<"$out")" -eq 1 ] && [[ "$out" == "pinball: error: "* ]] ||
		fail "'pinball $args' printed: $out"
done
echo "pinball CLI: all checks passed"
