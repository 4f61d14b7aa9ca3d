#!/usr/bin/env bash
# Usage: refused.sh LOGGER REPLAYER PINBALL APP MALFORMED_DIR
# Bad plug-ins and bad profiles are refused with one line naming the problem and a non-zero
# exit, never a crash: a library without the table, one built for another interface
# version, one without its process function, one whose rule names no mnemonic, one whose
# init refuses, a missing file, an unknown bundled name; -vprofile while recording, with
# -trace or -appdebug; an output that cannot be written; vplist on a missing, a truncated and a garbled profile.
logger=$1 replayer=$2 pinball=$3 app=$4 dir=$5
. "$(dirname "$0")/vprof_lib.sh"

"$logger" -log:basename "$work/pb/v" -- "$app" 10 >/dev/null 2>"$work/log" ||
	{ echo "FAIL recording"; cat "$work/log"; exit 1; }
while IFS='|' read -r plugin text; do
	refused "replayer -vprofile $plugin" "$text" \
		"$replayer" -vprofile "$plugin" -vprofile_out "$work/x.vprof" "$work/pb/v.0"
	refused "logger -log 0 -vprofile $plugin" "$text" \
		"$logger" -log 0 -vprofile "$plugin" -vprofile_out "$work/x.vprof" -- "$app" 10
done <<EOF_PLUGINS
$dir/vp-malformed-1.so|no 'pintrace_vprofiler' table: not a value profiler
$dir/vp-malformed-2.so|built for value-profiler interface version 99, this pintrace has version 1
$dir/vp-malformed-3.so|its table has no process function (required)
$dir/vp-malformed-4.so|rule 0: no instruction has the mnemonic 'frobnicate'
$dir/vp-malformed-5.so|its init refused to start (it returned 7)
$work/none.so|cannot open
nonesuch|not a file, nor the name of a bundled profiler
EOF_PLUGINS
refused "-vprofile while recording" "-vprofile needs -log 0" \
	"$logger" -vprofile classic -- "$app" 10
refused "-vprofile_out in a missing directory" "cannot write '$work/no/x.vprof'" \
	"$replayer" -vprofile classic -vprofile_out "$work/no/x.vprof" "$work/pb/v.0"
refused "-vprofile_values 0" "-vprofile_values must be at least 1" \
	"$replayer" -vprofile classic -vprofile_values 0 "$work/pb/v.0"
refused "-vprofile with -trace" "-trace and -vprofile cannot go together" \
	"$replayer" -vprofile classic -trace champsim -o "$work/t" "$work/pb/v.0"
refused "-vprofile with -appdebug" "-vprofile and -appdebug cannot go together" \
	"$replayer" -vprofile classic -appdebug -- "$work/pb/v.0"

"$replayer" -replay:echo 0 -vprofile classic -vprofile_out "$work/good.vprof" "$work/pb/v.0" \
	2>/dev/null || { echo "FAIL replay"; exit 1; }
head -c 2000 "$work/good.vprof" >"$work/truncated.vprof"
first=$(grep -n '^insn ' "$work/good.vprof" | head -n 1 | cut -d: -f1)
sed "${first}s/^insn 0x[0-9a-f]*/insn zz/" "$work/good.vprof" >"$work/garbled.vprof"
refused "vplist of a missing profile" "cannot read '$work/none.vprof'" \
	"$pinball" vplist "$work/none.vprof"
refused "vplist of a truncated profile" "" "$pinball" vplist "$work/truncated.vprof"
refused "vplist of a garbled profile" "garbled.vprof:$first: a bad 'insn' line" \
	"$pinball" vplist "$work/garbled.vprof"
refused "vplist of a pinball" "not a value profile" "$pinball" vplist "$work/pb/v.0.meta"
refused "vplist -plugin of a bad plug-in" "built for value-profiler interface version 99" \
	"$pinball" vplist -plugin "$dir/vp-malformed-2.so" "$work/good.vprof"
refused "vplist -top x" "-top wants a positive count" "$pinball" vplist -top x "$work/good.vprof"
exit $fail
