// `brook consume TOPIC`: prints records, one per line.
#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/byte_format.h"
#include "cli/command_support.h"
#include "cli/commands.h"
#include "cli/json_record.h"
#include "cli/topic_reader.h"

namespace brook::cli {
namespace {

using namespace std::chrono_literals;
using internal::TopicPartition;

constexpr std::string_view kCommand = "consume";

constexpr std::string_view kUsage = R"(usage: brook consume TOPIC [options]

Prints the records of TOPIC to stdout, one per line: the value, preceded by the fields chosen
with --print-* in the order partition, offset, timestamp, key, separated by TABs. A null key
or value prints as "null". Keys and values are written byte for byte, unescaped: binary data
or values containing newlines or TABs print as they are. Reads every partition up to the end
it had when the command started (records of committed transactions only), then waits for new
ones: stops after --timeout-ms without a new record, after --max records, or on Ctrl-C
(SIGINT) or SIGTERM; prints "consumed N records from TOPIC" to stderr at the end.

Where it starts:
  without --group       at the end of each partition (only records written from now on), or
                        at the beginning with --from-beginning. Commits nothing.
  with --group G        at G's committed offsets (the beginning where G has none; so
                        --from-beginning changes nothing). At the end commits, for G, the
                        offsets after the last record printed of each partition: the next
                        consume with the same group continues from there. G reads the
                        partitions itself, without joining G's other members.

The embedded data dir is locked by one process, so no other process can write while this
one reads: without --from-beginning or --group there is nothing to print. On Kafka, records
written while it waits are printed.

  --from-beginning      start at the first record of each partition
  --group G             read and commit as consumer group G
  --partition P         read only partition P (default: every partition)
  --max N               stop after printing N records
  --timeout-ms MS       once at the end, stop after MS milliseconds without a new record
                        (default 1000; 0: stop as soon as the end is reached)
  --format text|jsonl   text (default): as above; jsonl: one JSON object a record, every
                        field: {"partition", "offset", "timestamp", "key", "value", "headers":
                        [{"key", "value"}]}, a key or value that is not UTF-8 text as base64 in
                        "key_base64" / "value_base64" (what brook produce --format jsonl reads)
  --key-format F, --value-format F
                        text: how keys / values print: string (default: the bytes as they
                        are), int32, int64, double (Kafka's big-endian serializers), hex,
                        base64, windowed:<F> ([key@window start]), session:<F>
                        ([key@start/end]); a record that does not fit is an error naming it
  --print-partition     print the partition number
  --print-offset        print the offset
  --print-timestamp     print the timestamp (ms since the Unix epoch)
  --print-key           print the key
  --data-dir DIR        the embedded data dir (default ./brook-data)
  --bootstrap-servers HOST:PORT[,HOST:PORT...]
                        the Kafka cluster to read from instead

example:
  brook consume scores --from-beginning --print-key
)";

constexpr OptionSpec kOptions[] = {
    kDataDirOption,
    kBootstrapServersOption,
    {.name = "from-beginning"},
    {.name = "group", .takes_value = true},
    {.name = "partition", .takes_value = true},
    {.name = "max", .takes_value = true},
    {.name = "timeout-ms", .takes_value = true},
    {.name = "format", .takes_value = true},
    {.name = "key-format", .takes_value = true},
    {.name = "value-format", .takes_value = true},
    {.name = "print-partition"},
    {.name = "print-offset"},
    {.name = "print-timestamp"},
    {.name = "print-key"},
};
constexpr std::string_view kTopic[] = {"TOPIC"};
constexpr auto kPollSlice = 100ms;  // how often a signal is noticed

struct ConsumeOptions {
  std::string topic;
  std::optional<Partition> partition;
  bool from_beginning = false;
  std::string group;
  std::int64_t max = std::numeric_limits<std::int64_t>::max();
  std::chrono::milliseconds timeout = 1000ms;
  bool print_partition = false;
  bool print_offset = false;
  bool print_timestamp = false;
  bool print_key = false;
  bool jsonl = false;
  ByteFormat key_format;
  ByteFormat value_format;
};

Result<ConsumeOptions> consume_options(const ParsedArgs& args) {
  if (auto s = check_positionals(args, kTopic, 1); !s.ok()) return error(s);
  ConsumeOptions options{.topic = args.positionals()[0],
                         .from_beginning = args.has("from-beginning"),
                         .group = args.value_or("group", ""),
                         .print_partition = args.has("print-partition"),
                         .print_offset = args.has("print-offset"),
                         .print_timestamp = args.has("print-timestamp"),
                         .print_key = args.has("print-key")};
  const std::string format = args.value_or("format", "text");
  options.jsonl = format == "jsonl";
  if (format != "text" && format != "jsonl") {
    return error(
        Status::invalid_argument(fmt::format("--format: '{}' is not text or jsonl", format)));
  }
  for (auto [name, target] : {std::pair{"key-format", &options.key_format},
                              std::pair{"value-format", &options.value_format}}) {
    if (auto text = args.value(name)) {
      auto parsed = parse_byte_format(*text);
      if (!parsed) {
        return error(
            Status::invalid_argument(fmt::format("--{}: {}", name, parsed.error().message())));
      }
      *target = *parsed;
    }
  }
  for (const char* print : {"print-partition", "print-offset", "print-timestamp", "print-key",
                            "key-format", "value-format"}) {
    if (options.jsonl && args.has(print)) {
      return error(Status::invalid_argument(
          fmt::format("--{} is for --format text (a JSON line has every field)", print)));
    }
  }
  if (args.has("group") && options.group.empty()) {
    return error(Status::invalid_argument("--group must not be empty"));
  }
  auto partition = args.int_value("partition", 0, std::numeric_limits<std::int32_t>::max());
  if (!partition) return error(partition.error());
  if (*partition) options.partition = Partition(static_cast<std::int32_t>(**partition));
  auto max = args.int_value("max", 1, std::numeric_limits<std::int64_t>::max());
  if (!max) return error(max.error());
  if (*max) options.max = **max;
  auto timeout = args.int_value("timeout-ms", 0, std::numeric_limits<std::int32_t>::max());
  if (!timeout) return error(timeout.error());
  if (*timeout) options.timeout = std::chrono::milliseconds(**timeout);
  return options;
}

volatile std::sig_atomic_t stop_requested = 0;
extern "C" void request_stop(int) { stop_requested = 1; }

// Ctrl-C and SIGTERM end the loop normally, so a group still commits what was printed.
void install_stop_handlers() {
  struct sigaction action = {};
  action.sa_handler = request_stop;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

// Appends `field` as `format` prints it, or "null"; kInvalidArgument naming the record if
// the bytes are not of the format.
Status append_field(std::string& line, const std::optional<std::string>& field,
                    const ByteFormat& format, std::string_view what, const ConsumerRecord& record) {
  if (!field) {
    line += "null";
    return Status();
  }
  auto text = format_bytes(format, *field);
  if (!text) {
    return Status::invalid_argument(fmt::format("{} of {}-{}@{}: {}", what, record.topic,
                                                record.partition.value(), record.offset.value(),
                                                text.error().message()));
  }
  line += *text;
  return Status();
}

Result<std::string> format_record(const ConsumeOptions& options, const ConsumerRecord& record) {
  if (options.jsonl) return json_line(record) + '\n';
  std::string line;
  if (options.print_partition) line += fmt::format("{}\t", record.partition.value());
  if (options.print_offset) line += fmt::format("{}\t", record.offset.value());
  if (options.print_timestamp) line += fmt::format("{}\t", record.timestamp.value());
  if (options.print_key) {
    if (auto s = append_field(line, record.key, options.key_format, "the key", record); !s.ok()) {
      return error(s);
    }
    line += '\t';
  }
  if (auto s = append_field(line, record.value, options.value_format, "the value", record);
      !s.ok()) {
    return error(s);
  }
  line += '\n';
  return line;
}

Status consume(internal::LogBackend& log, const ConsumeOptions& options) {
  auto reader = open_topic_reader(log, options.topic, options.partition, options.group,
                                  options.from_beginning);
  if (!reader) return reader.error();
  internal::Consumer& consumer = *reader->consumer;
  install_stop_handlers();
  std::map<TopicPartition, Offset> next;  // after the last printed record of each partition
  std::int64_t printed = 0;
  // When the end was reached, or the last record after it arrived: --timeout-ms counts from
  // there.
  std::optional<std::chrono::steady_clock::time_point> idle_since;
  while (!stop_requested && printed < options.max) {
    if (!idle_since) {
      auto at_end = reader->reached_end();
      if (!at_end) return at_end.error();
      if (*at_end) idle_since = std::chrono::steady_clock::now();
    }
    auto wait = std::chrono::milliseconds(kPollSlice);
    if (idle_since) {
      const auto left = options.timeout - (std::chrono::steady_clock::now() - *idle_since);
      if (left <= 0ms) break;
      wait = std::min(wait, std::chrono::ceil<std::chrono::milliseconds>(left));
    }
    auto records = consumer.poll(wait);
    if (!records) return records.error();
    for (const auto& record : *records) {
      auto line = format_record(options, record);
      if (!line) return line.error();
      if (std::fwrite(line->data(), 1, line->size(), stdout) != line->size()) {
        return Status::io_error("cannot write to stdout");
      }
      next[{record.topic, record.partition}] = Offset(record.offset.value() + 1);
      if (++printed == options.max) break;
    }
    if (idle_since && !records->empty()) idle_since = std::chrono::steady_clock::now();
  }
  // What was printed must be out before the group moves past it.
  if (std::fflush(stdout) != 0) return Status::io_error("cannot write to stdout");
  if (!options.group.empty() && !next.empty()) {
    if (auto s = consumer.commit(next); !s.ok()) return s;
  }
  fmt::print(stderr, "consumed {} from {}\n", count_of(printed, "record"), options.topic);
  return consumer.close();
}

}  // namespace

int run_consume(std::span<const std::string> args) {
  return run_command(kCommand, kUsage, args, kOptions, false, consume_options, consume);
}

}  // namespace brook::cli
