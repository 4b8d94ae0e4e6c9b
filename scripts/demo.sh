#!/usr/bin/env bash
# The main demo on a fresh Debian 12 machine: installs what is missing, builds what the demo
# needs (Release, in build-release: the library, the examples' topologies and `brook-demo`) and
# runs `brook-demo`, which writes synthetic logs and stock trades to a fresh embedded log and
# runs every example as a real Streams application over them. Nothing else to install or start.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

brook_install_deps
brook_configure build-release Release -DBROOK_BUILD_TESTS=OFF -DBROOK_BUILD_BENCH=OFF
cmake --build "$BROOK_ROOT/build-release" -j "$BROOK_JOBS" --target brook_demo

# The demo's data dir goes under the build tree, so nothing lands in the sources.
exec "$BROOK_ROOT/build-release/bin/brook-demo" --data-dir "$BROOK_ROOT/build-release/demo-data"
