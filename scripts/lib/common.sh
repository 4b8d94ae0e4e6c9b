# Shared by the scripts in scripts/ (source it, don't run it): the apt packages Brook needs
# on Debian 12, installing the missing ones, and the CMake configure + build step.

# Everything a developer, the demo and CI need. Edit this list only.
BROOK_APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev librapidcheck-dev
  nlohmann-json3-dev libfmt-dev libavro-dev librocksdb-dev librdkafka-dev libabsl-dev libjemalloc-dev
  kcat maven openjdk-17-jdk-headless gdb
  libcpp-httplib-dev chromium python3-prometheus-client
  postgresql-15 libpq-dev
  clang-format-16 clang-tidy-16 clang-16 libclang-rt-16-dev llvm-16
)
# LLVM 16, not Debian 12's default 14: clang-format 14 mangles requires-clauses (it joins
# them to the declaration), and clang-tidy 14 cannot parse std::expected<T, Status> (clang
# 14 lacks conditionally trivial destructors, P0848). Use these names, not the bare ones. clang-16
# and its runtimes (libFuzzer, the sanitizers) build the sanitizer half of the tests and the
# fuzz targets; llvm-16's symbolizer names the functions and lines of their reports.
BROOK_CLANG_FORMAT=clang-format-16
BROOK_CLANG_TIDY=clang-tidy-16

# brook_sanitizer_env: exports the options of the processes of a sanitizer build (clang-16):
# reports symbolized with stack traces; UBSan halts on every report but those tests/ubsan.supp
# lists (the checks it recovers from, see CMakeLists.txt). Options already set come after ours.
brook_sanitizer_env() {
  export ASAN_SYMBOLIZER_PATH=/usr/bin/llvm-symbolizer-16
  export UBSAN_SYMBOLIZER_PATH=/usr/bin/llvm-symbolizer-16
  UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$BROOK_ROOT/tests/ubsan.supp${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
  export UBSAN_OPTIONS
}

BROOK_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# Parallel jobs: the number of cores, at most 2 (the machines have 2 cores, 24 GiB).
BROOK_JOBS="$(nproc)"
if ((BROOK_JOBS > 2)); then BROOK_JOBS=2; fi

# Installs the packages of BROOK_APT_PACKAGES that are not installed yet (apt-get update
# once, only if something is missing). Uses sudo when not root.
brook_install_deps() {
  local missing=() pkg
  for pkg in "${BROOK_APT_PACKAGES[@]}"; do
    [[ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" == *"ok installed" ]] || missing+=("$pkg")
  done
  if ((${#missing[@]} == 0)); then return 0; fi
  echo "Installing missing packages: ${missing[*]}"
  local sudo=()
  if ((EUID != 0)); then
    command -v sudo >/dev/null || { echo "error: not root and no sudo; install: ${missing[*]}" >&2; return 1; }
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
}

# brook_configure <build dir> <build type> [extra cmake args...]: configures (Ninja) the
# tree in $BROOK_ROOT/<build dir>. brook_build: the same, then builds it.
brook_configure() {
  local dir="$BROOK_ROOT/$1" type="$2"
  shift 2
  # When a build's compiler changes, CMake deletes its cache and configures with the compiler
  # alone, dropping the other options (a sanitizer build would come out without sanitizers): a
  # build made with another compiler (build-asan used g++ until 2026-12-07) starts afresh.
  local want="${CXX:-c++}" arg cached
  for arg in "$@"; do
    if [[ "$arg" == -DCMAKE_CXX_COMPILER=* ]]; then want="${arg#*=}"; fi
  done
  if [[ -f "$dir/CMakeCache.txt" ]]; then
    cached="$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$dir/CMakeCache.txt")"
    if [[ "$(realpath -e "$(command -v "$cached")")" != "$(realpath -e "$(command -v "$want")")" ]]; then
      echo "$dir was configured with $cached: configuring it afresh with $want"
      rm -rf "$dir/CMakeCache.txt" "$dir/CMakeFiles"
    fi
  fi
  cmake -S "$BROOK_ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" "$@"
}
brook_build() {
  brook_configure "$@"
  cmake --build "$BROOK_ROOT/$1" -j "$BROOK_JOBS"
}

# brook_configure_tests: configures build-test as scripts/test.sh builds it (line tables only,
# -O1: the code generation of the template-heavy tests is most of the build's time).
brook_configure_tests() {
  brook_configure build-test RelWithDebInfo -DBROOK_SANITIZE=OFF \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
}

# brook_build_sanitized_tests: builds build-asan as scripts/test.sh --sanitize tests it: Debug
# with clang-16, ASan + UBSan, line tables only, without bench/.
brook_build_sanitized_tests() {
  brook_build build-asan Debug -DBROOK_SANITIZE=ON -DBROOK_BUILD_BENCH=OFF \
    -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16
}

# brook_build_fuzzers: builds the libFuzzer targets (tests/fuzz/) in build-fuzz: clang-16,
# ASan + UBSan, -O1.
brook_build_fuzzers() {
  brook_configure build-fuzz Debug -DBROOK_FUZZ=ON -DCMAKE_C_COMPILER=clang-16 \
    -DCMAKE_CXX_COMPILER=clang++-16 "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1" \
    -DBROOK_BUILD_TESTS=OFF -DBROOK_BUILD_EXAMPLES=OFF -DBROOK_BUILD_BENCH=OFF >/dev/null
  cmake --build "$BROOK_ROOT/build-fuzz" -j "$BROOK_JOBS" --target brook_fuzzers
}

# brook_in_background_idle <log> <function>: runs one of this file's functions in the
# background at the lowest CPU and I/O priority (it takes only what the foreground leaves idle),
# its output in <log>, in a process group of its own: `kill -- -$brook_background_pid` stops it
# whole.
brook_in_background_idle() {
  mkdir -p "$(dirname "$1")"
  set -m  # job control: the job leads a process group of its own
  nice -n 19 ionice -c 3 bash -c 'set -euo pipefail; source "$1"; "$2"' _ \
    "$BROOK_ROOT/scripts/lib/common.sh" "$2" >"$1" 2>&1 &
  brook_background_pid=$!
  set +m
}

# brook_maven_jar <project dir> <cache dir>: builds the Maven project in <project dir> (its
# pom.xml and src/, a jar of `main`s) into <cache dir>/build — the jar and its runtime
# dependencies in lib/ (the pom's maven-dependency-plugin configuration) — unless that holds a
# build of these very sources; prints the classpath. Its Kafka version (<kafka.version>) must be
# the test broker's (tests/kafka/pom.xml). Maven's output goes to <cache dir>/mvn.log, and to
# stderr when it fails (then returns 1).
brook_maven_jar() {
  local project="$1" cache="$2" version broker_version sum
  version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$project/pom.xml")"
  broker_version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' \
    "$BROOK_ROOT/tests/kafka/pom.xml")"
  if [[ "$version" != "$broker_version" ]]; then
    echo "error: $project/pom.xml has Kafka $version, tests/kafka/pom.xml $broker_version" >&2
    return 1
  fi
  sum="$(cd "$project" && find pom.xml src -type f | LC_ALL=C sort | xargs sha256sum | sha256sum)"
  sum="${sum%% *}"
  if [[ "$(cat "$cache/sources.sha256" 2>/dev/null)" != "$sum" ]]; then
    echo "building $project (Kafka $version) with Maven into $cache" >&2
    mkdir -p "$cache"
    local tmp="$cache/build.tmp.$$"
    rm -rf "$tmp"
    if ! mvn -q -B -f "$project/pom.xml" -Dbrook.build.dir="$tmp" package \
      dependency:copy-dependencies >"$cache/mvn.log" 2>&1; then
      cat "$cache/mvn.log" >&2
      rm -rf "$tmp"
      echo "error: mvn could not build $project/pom.xml" >&2
      return 1
    fi
    rm -rf "$cache/build"
    mv "$tmp" "$cache/build"
    echo "$sum" >"$cache/sources.sha256"
  fi
  local jar
  jar="$(find "$cache/build" -maxdepth 1 -name '*.jar' | head -1)"
  echo "$jar:$cache/build/lib/*"
}

# The classpath of the Kafka Streams twins of the examples (tests/conformance/twins), built into
# the cache unless it holds a build of these sources.
brook_conformance_classpath() {
  brook_maven_jar "$BROOK_ROOT/tests/conformance/twins" \
    "${XDG_CACHE_HOME:-$HOME/.cache}/brook/conformance-twins"
}
