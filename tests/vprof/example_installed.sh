#!/usr/bin/env bash
# Usage: example_installed.sh BUILD_DIR EXAMPLES_DIR USER_GUIDE APP LOGGER
# `cmake --install` puts the plug-in interface where a plug-in author finds it: the example
# profilers (examples/vprof), compiled with nothing but the installed pkg-config file's
# flags, run under the installed replayer, which also finds its bundled profilers by name.
# The array walk of tests/apps/value_behaviour has a stride of +8 bytes every time; its load
# of 42 loads 42. The user guide shows vp_loads.c as it is.
build=$1 examples=$2 guide=$3 app=$4 logger=$5
. "$(dirname "$0")/vprof_lib.sh"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1 ||
	{ echo "FAIL: cmake --install"; cat "$work/install.log"; exit 1; }
PKG_CONFIG_PATH=$(dirname "$(find "$work/prefix" -name pintrace-vprofiler.pc)")
export PKG_CONFIG_PATH
flags=$(pkg-config --cflags pintrace-vprofiler) || { echo "FAIL: pkg-config"; exit 1; }
for name in stride loads; do
	# shellcheck disable=SC2086
	cc -shared -fPIC -O2 -Wall -Wextra -Werror $flags "$examples/vp_$name.c" -o "$work/vp-$name.so" ||
		{ echo "FAIL: compiling vp_$name.c against the installed header"; exit 1; }
done
check "the user guide's plug-in is examples/vprof/vp_loads.c" "" \
	"$(awk '/^### Writing a profiler/ { on = 1 } on && /^```c$/ { code = 1; next }
		code && /^```$/ { exit } code' "$guide" | diff - "$examples/vp_loads.c")"

"$logger" -log:basename "$work/pb/v" -- "$app" 10 >"$work/out" 2>"$work/log" ||
	{ echo "FAIL recording"; cat "$work/log"; exit 1; }
bin=$work/prefix/bin
"$bin/replayer" -replay:echo 0 -vprofile "$work/vp-stride.so" -vprofile_out "$work/s.vprof" \
	"$work/pb/v.0" 2>"$work/replay" || { echo "FAIL replay"; cat "$work/replay"; exit 1; }
"$bin/pinball" vplist "$work/s.vprof" >"$work/list" || { echo "FAIL vplist"; exit 1; }
check "the array walk's stride" \
	"  stride (bytes): 255 samples, 1 distinct, invariance 100.00%, range +8 .. +8
             255  100.00%  +8" \
	"$(hotlist "$work/list" "$(printed "$work/out" stride)" | tail -n +2)"
"$bin/replayer" -replay:echo 0 -vprofile "$work/vp-loads.so" -vprofile_out "$work/l.vprof" \
	"$work/pb/v.0" 2>"$work/replay3" || { echo "FAIL replay"; cat "$work/replay3"; exit 1; }
"$bin/pinball" vplist "$work/l.vprof" >"$work/list3" || { echo "FAIL vplist"; exit 1; }
check "the load of 42" "  loaded (8 bytes): 10 samples, 1 distinct, invariance 100.00%, range 42 .. 42" \
	"$(hotlist "$work/list3" "$(printed "$work/out" load42)" | sed -n 2p)"
"$bin/replayer" -replay:echo 0 -vprofile classic -vprofile_out "$work/c.vprof" "$work/pb/v.0" \
	2>"$work/replay2"
check "the installed replayer finds its bundled profilers" "0" "$?"
exit $fail
