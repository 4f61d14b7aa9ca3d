#!/usr/bin/env bash
# Usage: library_install.sh BUILD_DIR EXAMPLE_SOURCE PINBALL_APP LOGGER
# `cmake --install` puts the replay library, its header and its pkg-config file where a
# simulator finds them: the example simulator, compiled with nothing but
# `pkg-config --cflags --libs pintrace-replay`, replays a pinball with the installed replayer.
set -uo pipefail
build=$1 source=$2 app=$3 logger=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1 ||
	{ echo "FAIL: cmake --install"; cat "$work/install.log"; exit 1; }
libdir=$(dirname "$(find "$work/prefix" -name pintrace-replay.pc)")
export PKG_CONFIG_PATH=$libdir
flags=$(pkg-config --cflags --libs pintrace-replay) || { echo "FAIL: pkg-config"; exit 1; }
# shellcheck disable=SC2086
cc "$source" $flags -Wl,-rpath,"$(dirname "$libdir")" -o "$work/cachesim" ||
	{ echo "FAIL: compiling the example against the installed library"; exit 1; }
"$logger" -log:basename "$work/pb/x" -- "$app" 2000 >/dev/null 2>&1 || { echo "FAIL: recording"; exit 1; }
out=$(PINTRACE_REPLAYER=$work/prefix/bin/replayer "$work/cachesim" "$work/pb/x.0" 2>&1)
if ! grep -q '^cachesim: replay: OK' <<<"$out" || ! grep -Eq '^instructions [1-9]' <<<"$out"; then
	echo "FAIL: the installed example: $out"
	exit 1
fi
echo "ok: installed library, header and pkg-config file build and run the example"
