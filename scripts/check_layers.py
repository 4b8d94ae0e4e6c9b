#!/usr/bin/env python3
"""Fails when a file includes what its layer may not (docs/architecture.md, "Layers").

Checks src/**/*.{h,cc} (tests excepted: they may reach anything) and include/brook/**.h:
  - a layer of src/ includes only itself, the layers below it (LAYER_DEPS) and the public
    headers (brook/...);
  - a third-party library is included only where it belongs (LIBRARY_HOMES);
  - a public header includes only the standard library, nlohmann/json and brook/... headers;
  - only the JSON headers (JSON_HEADERS) include nlohmann/json, and no other public header
    includes them: the core headers stay free of it (parsing it adds about 0.8 s to every
    translation unit that includes it).
Prints every violation as FILE:LINE: what; exit 1 if any. --self-test checks the checker on a
small tree with one violation of each kind.
"""
import argparse
import pathlib
import re
import sys
import tempfile

# What each layer of src/ may include besides itself and the public headers.
LAYER_DEPS = {
    "core": set(),
    "serde": {"core"},
    "dsl": {"core"},
    "topology": {"core"},
    "processor": {"core"},
    "state": {"core"},
    "backend": {"core"},
    "runtime": {"core", "state", "backend"},
    "serve": {"core", "runtime"},
    "cdc": {"core", "backend"},
    "testing": {"core", "runtime"},
    "cli": {"core", "backend", "cdc"},
}
# Library include prefix -> the directory (under the root) whose files alone may include it.
LIBRARY_HOMES = {
    "rocksdb/": "src/state/rocksdb/",
    "librdkafka/": "src/backend/kafka/",
    "httplib.h": "src/serve/",
    "libpq-fe.h": "src/cdc/",
    "avro.h": "src/serde/avro_serde.cc",
}
# The public headers that bring nlohmann/json, included by applications where they use them.
JSON_HEADERS = {"brook/json_serde.h", "brook/avro_serde.h", "brook/change_event.h",
                "brook/serve.h"}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def violations(root: pathlib.Path):
    sources = sorted(p for p in (root / "src").rglob("*") if p.suffix in (".h", ".cc"))
    headers = sorted((root / "include" / "brook").rglob("*.h"))
    for path in sources + headers:
        relative = path.relative_to(root).as_posix()
        if relative.endswith("_test.cc"):
            continue
        public = relative.startswith("include/")
        layer = None if public else relative.split("/")[1]
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            quoted, name = match.group(1) == '"', match.group(2)
            where = f"{relative}:{number}"
            for prefix, home in LIBRARY_HOMES.items():
                if name.startswith(prefix) and not relative.startswith(home):
                    yield f"{where}: includes <{name}>, which only {home} may"
            if public:
                header = relative.removeprefix("include/")
                if header not in JSON_HEADERS and (name.startswith("nlohmann/")
                                                   or name in JSON_HEADERS):
                    yield f"{where}: includes {name}: only the JSON headers may (JSON_HEADERS)"
                if quoted and not name.startswith("brook/"):
                    yield f'{where}: a public header includes "{name}" (only brook/... headers)'
                elif not quoted and "/" in name and not name.startswith("nlohmann/"):
                    yield f"{where}: a public header includes <{name}> (only the standard " \
                          "library and nlohmann/json)"
                continue
            if not quoted or name.startswith("brook/"):
                continue
            target = name.split("/")[0]
            if target == layer:
                continue
            if layer not in LAYER_DEPS:
                yield f"{where}: {layer}/ is not a known layer (add it to LAYER_DEPS)"
            elif target not in LAYER_DEPS:
                yield f'{where}: includes "{name}", not in any layer'
            elif target not in LAYER_DEPS[layer]:
                allowed = ", ".join(sorted(LAYER_DEPS[layer])) or "none"
                yield f'{where}: {layer} includes "{name}" from {target} (it may include: ' \
                      f"{allowed})"


def self_test() -> int:
    with tempfile.TemporaryDirectory() as directory:
        root = pathlib.Path(directory)
        files = {
            "src/state/bad_layer.cc": '#include "runtime/stream_task.h"\n',
            "src/core/bad_library.cc": "#include <rocksdb/db.h>\n",
            "src/backend/fine.cc": '#include "core/log.h"\n#include <librdkafka/rdkafka.h>\n',
            "src/backend/kafka/fine.cc": "#include <librdkafka/rdkafka.h>\n",
            "src/cli/bad_example.cc": '#include "stock_stats.h"\n',
            "src/state/fine_test.cc": '#include "runtime/stream_task.h"\n',
            "include/brook/bad.h": '#include "core/log.h"\n#include <fmt/format.h>\n',
            "include/brook/json_serde.h": '#include <string>\n#include <nlohmann/json.hpp>\n'
                                          '#include "brook/status.h"\n',
            "include/brook/core.h": '#include "brook/json_serde.h"\n#include <nlohmann/json.hpp>\n',
        }
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        found = list(violations(root))
        expected = ["src/state/bad_layer.cc:1", "src/core/bad_library.cc:1",
                    "src/cli/bad_example.cc:1", "src/backend/fine.cc:2", "include/brook/bad.h:1",
                    "include/brook/bad.h:2", "include/brook/core.h:1", "include/brook/core.h:2"]
        places = [v.split(": ")[0] for v in found]
        if sorted(places) != sorted(expected):
            print("self-test FAILED: expected violations at", expected, "found:", *found,
                  sep="\n  ")
            return 1
        print(f"self-test: the {len(expected)} planted violations were found")
        return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parent.parent)
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    found = list(violations(args.root))
    for violation in found:
        print(violation)
    if found:
        print(f"{len(found)} include(s) break the layer rules (docs/architecture.md)")
        return 1
    print("layers: every include follows the rules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
