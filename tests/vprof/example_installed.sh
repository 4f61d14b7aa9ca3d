#!/usr/bin/env bash
# Usage: example_installed.sh BUILD_DIR EXAMPLE_SOURCE APP LOGGER
# `cmake --install` puts the plug-in interface where a plug-in author finds it: the example
# profiler (examples/vprof/vp_stride.c), compiled with nothing but the installed
# pkg-config file's flags, runs under the installed replayer, which also finds its bundled
# profilers by name; the array walk of tests/apps/value_behaviour has a stride of +8 bytes
# every time.
build=$1 source=$2 app=$3 logger=$4
. "$(dirname "$0")/vprof_lib.sh"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1 ||
	{ echo "FAIL: cmake --install"; cat "$work/install.log"; exit 1; }
PKG_CONFIG_PATH=$(dirname "$(find "$work/prefix" -name pintrace-vprofiler.pc)")
export PKG_CONFIG_PATH
flags=$(pkg-config --cflags pintrace-vprofiler) || { echo "FAIL: pkg-config"; exit 1; }
# shellcheck disable=SC2086
cc -shared -fPIC -O2 -Wall -Wextra -Werror $flags "$source" -o "$work/vp-stride.so" ||
	{ echo "FAIL: compiling the example against the installed header"; exit 1; }

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
"$bin/replayer" -replay:echo 0 -vprofile classic -vprofile_out "$work/c.vprof" "$work/pb/v.0" \
	2>"$work/replay2"
check "the installed replayer finds its bundled profilers" "0" "$?"
exit $fail
