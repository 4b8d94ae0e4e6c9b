#!/usr/bin/env bash
# Runs clang-tidy (checks in .clang-tidy) over Brook's sources: src/**/*.cc except the tests,
# with the compile commands of build-test (configured here if needed). Fails on any finding.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
(($# == 0)) || { echo "usage: $0" >&2; exit 2; }

brook_install_deps
cd "$BROOK_ROOT"
brook_configure build-test RelWithDebInfo >/dev/null  # writes compile_commands.json

# clang knows no -std=c++23 (c++2b), and libstdc++ 12 hides <expected> from compilers whose
# __cpp_concepts is below 202002L (clang 16 says 201907L but handles <expected> fine).
tidy_args=(-p build-test --quiet --warnings-as-errors='*'
           --extra-arg=-std=c++2b --extra-arg=-U__cpp_concepts --extra-arg=-D__cpp_concepts=202002L)

mapfile -t files < <(find src -name '*.cc' ! -name '*_test.cc' | sort)
echo "$BROOK_CLANG_TIDY: ${#files[@]} files"
status=0
# One clang-tidy per file, $BROOK_JOBS at a time; each file's output is printed in one piece,
# without the "N warnings generated." noise.
printf '%s\0' "${files[@]}" |
  xargs -0 -n 1 -P "$BROOK_JOBS" bash -c \
    'out=$("$0" "$@" 2>&1); rc=$?; grep -v " warnings\? generated\.$" <<<"$out"; exit $rc' \
    "$BROOK_CLANG_TIDY" "${tidy_args[@]}" || status=$?
if ((status == 0)); then
  echo "clang-tidy: no findings"
else
  echo "clang-tidy: FAILED (findings above)" >&2
  exit 1
fi
