# Sourced by scripts/demo and scripts/test: make sure the Debian packages are there,
# then configure and build into build/. Exits the calling script on any failure.

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$REPO_ROOT/build}

# Every package the build, the tests and the demo need.
REQUIRED_PACKAGES=(build-essential cmake pkg-config gdb binutils
	libzydis-dev liblz4-dev libzstd-dev libprotobuf-c-dev protobuf-c-compiler check clang libclang-rt-14-dev
	liblzma-dev zlib1g-dev)

missing_packages() {
	local pkg
	for pkg in "${REQUIRED_PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' ||
			printf '%s ' "$pkg"
	done
}

install_packages() {
	local missing
	missing=$(missing_packages)
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "Missing Debian packages. Install them with:" >&2
		echo "  sudo apt-get install -y $missing" >&2
		exit 1
	fi
	echo "Installing Debian packages: $missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq || { echo "apt-get update failed" >&2; exit 1; }
	# shellcheck disable=SC2086 # one word per package
	apt-get install -y -qq $missing >/dev/null || { echo "apt-get install failed" >&2; exit 1; }
}

build_project() {
	mkdir -p "$BUILD_DIR"
	cmake -S "$REPO_ROOT" -B "$BUILD_DIR" >"$BUILD_DIR/configure.log" 2>&1 || {
		cat "$BUILD_DIR/configure.log" >&2
		echo "cmake configure failed" >&2
		exit 1
	}
	cmake --build "$BUILD_DIR" -j "$(nproc)" || { echo "build failed" >&2; exit 1; }
}

setup_and_build() {
	install_packages
	build_project
}
