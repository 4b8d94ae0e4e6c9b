#!/usr/bin/python3
"""Parses Prometheus text format (0.0.4) from stdin with prometheus_client's own parser and
prints the metric families as JSON: {name: {"type": ..., "samples": [[name, labels, value]]}},
with NaN and infinite values as the strings "NaN", "+Inf" and "-Inf". Exits 1 if the text does not parse, 3 if the parser is not installed."""
import json
import math
import sys

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    print("python3-prometheus-client is not installed (apt-get install python3-prometheus-client)",
          file=sys.stderr)
    sys.exit(3)



def number(value):
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return value


try:
    families = {
        family.name: {
            "type": family.type,
            "samples": [[s.name, s.labels, number(s.value)] for s in family.samples],
        }
        for family in text_string_to_metric_families(sys.stdin.read())
    }
except Exception as error:  # the parser raises ValueError and others for malformed text
    print(f"not Prometheus text format: {error}", file=sys.stderr)
    sys.exit(1)
print(json.dumps(families))
