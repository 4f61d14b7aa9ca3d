#!/usr/bin/env bash
# Usage: lazy_file_pages.sh LOGGER REPLAYER PINBALL_TOOL PROGRAM [ARGS...]
# A whole-run recording maps libc inside its region: in first-touch mode the mmap of a file
# records no bytes, and only the pages the region touched come, each tagged with its mmap
# (pinball format 1.6), fewer than the mapping holds; the replay puts them in place and says
# OK, with the output of the run. The -log:fat recording of the same run records the
# mappings whole: its pinball is larger.
set -uo pipefail
logger=$1 replayer=$2 pinball=$3
shift 3
source "$(dirname "$0")/../support/scratch.sh"

"$@" >native.out || fail "the program failed natively"
"$logger" -log:basename lazy/run -- "$@" >rec.out 2>rec.err || fail "logger: $(cat rec.err)"
"$logger" -log:basename fat/run -log:fat 1 -- "$@" >/dev/null 2>fat.err || fail "fat: $(cat fat.err)"
cmp -s native.out rec.out || fail "the recorded run printed other output"
"$pinball" dump lazy/run.0 >dump.txt || fail "pinball dump"

libc_mmaps=$(grep -E '^events\.[0-9]+ .* syscall nr=9 .*path=.*/libc\.so' dump.txt)
[ -n "$libc_mmaps" ] || fail "no mmap of libc inside the region"
if grep -v ' writes=0 ' <<<"$libc_mmaps" | grep -q .; then
	fail "an mmap of libc records bytes: $(grep -v ' writes=0 ' <<<"$libc_mmaps" | head -1)"
fi
# The pages libc's mmaps span, and the pages of mappings made in the region.
spanned=0
while read -r args; do
	len=$(cut -d, -f2 <<<"$args")
	spanned=$((spanned + (len + 4095) / 4096))
done < <(sed -E 's/.* args=([^ ]*) .*/\1/' <<<"$libc_mmaps")
tagged=$(grep -c '^pages .* at_mmap tid=' dump.txt)
[ "$tagged" -gt 0 ] || fail "no page is tagged with its mmap"
[ "$tagged" -lt "$spanned" ] || fail "$tagged tagged pages for $spanned pages of libc"
# Every tagged page names an mmap event of its thread at that count.
while read -r tid icount; do
	grep -qE "^events\.$tid icount=$icount syscall nr=9 " dump.txt ||
		fail "a page tagged with thread $tid icount $icount, where no mmap is"
done < <(sed -nE 's/^pages .* at_mmap tid=([0-9]+) icount=([0-9]+)$/\1 \2/p' dump.txt | sort -u)

"$replayer" lazy/run.0 >rep.out 2>rep.err || fail "replay: $(cat rep.err)"
grep -q '^replay: OK ' rep.err || fail "replay: $(cat rep.err)"
cmp -s rec.out rep.out || fail "the replay echoed other output"
lazy=$(du -bc lazy/run.0.* | tail -1 | cut -f1) fat=$(du -bc fat/run.0.* | tail -1 | cut -f1)
[ "$lazy" -lt "$fat" ] || fail "the pinball is $lazy bytes, with -log:fat $fat"
echo "ok: libc's mmaps span $spanned pages, $tagged recorded as touched; replay OK"
echo "ok: the pinball is $lazy bytes, $fat with -log:fat (mappings whole)"
