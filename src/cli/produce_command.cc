// `brook produce TOPIC`: one record per line of stdin.
#include <fmt/format.h>

#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "cli/command_support.h"
#include "cli/commands.h"
#include "cli/produce_input.h"
#include "cli/topic_reader.h"
#include "core/wall_clock.h"

namespace brook::cli {
namespace {

constexpr std::string_view kCommand = "produce";

constexpr std::string_view kUsage = R"(usage: brook produce TOPIC [options] < lines

Writes one record per line of stdin to TOPIC. Lines end at '\n', which is not part of the
record. Keyed records go to the partition murmur2(KEY) picks (as the Java client), the others
round-robin, unless a partition is given. At the end prints "produced N records to TOPIC" to
stderr. A line that cannot be read stops the command: the lines before it are written, it and
the lines after it are not, and the message says so (exit 1). A write the log refuses (a full
disk, say) stops it too: the message names the line, and says how many records the topic took
of those sent before it (by how much its end offsets moved: the records of others writing to it
at the same time count too).

--format text (the default): a line is KEY<TAB>VALUE (split at the first separator) or just
VALUE, which gets a null key; every other byte is kept as is (a '\r' too). An empty line is a
record with an empty value.
--format jsonl: a line is a JSON object
  {"key": K, "value": V, "timestamp": MS, "headers": {"name": "text", ...}, "partition": P}
where "value" is required (null for a tombstone) and the others optional; a key or value that
is a JSON string is written as its text, null as null, any other JSON value as its JSON text.

  --format text|jsonl   how a line describes a record (default text)
  --partition P         write every record to partition P (a JSON line's "partition" wins)
  --timestamp MS        record timestamp, ms since the Unix epoch (default: the time of sending;
                        a JSON line's "timestamp" wins)
  --timestamp-field F   take each record's timestamp (ms) from field F of its value, a JSON
                        object (wins over the others)
  --key-separator SEP   text: what separates key from value (default a TAB; any non-empty string)
  --null-marker STR     text: a key or value equal to STR is sent as null (a value: a tombstone)
  --data-dir DIR        the embedded data dir (default ./brook-data)
  --bootstrap-servers HOST:PORT[,HOST:PORT...]
                        the Kafka cluster to write to instead

examples:
  printf 'alice\t1\nbob\t2\nno key here\n' | brook produce scores
  printf '{"key":"alice","value":{"score":1},"timestamp":1700000000000}\n' |
      brook produce scores --format jsonl
)";

constexpr OptionSpec kOptions[] = {
    kDataDirOption,
    kBootstrapServersOption,
    {.name = "format", .takes_value = true},
    {.name = "partition", .takes_value = true},
    {.name = "timestamp", .takes_value = true},
    {.name = "timestamp-field", .takes_value = true},
    {.name = "key-separator", .takes_value = true},
    {.name = "null-marker", .takes_value = true},
};
constexpr std::string_view kTopic[] = {"TOPIC"};

Result<ProduceInput> produce_options(const ParsedArgs& args) {
  if (auto s = check_positionals(args, kTopic, 1); !s.ok()) return error(s);
  ProduceInput options{.topic = args.positionals()[0]};
  const std::string format = args.value_or("format", "text");
  if (format == "jsonl") {
    options.format = ProduceInput::Format::kJsonl;
    for (const char* text_only : {"key-separator", "null-marker"}) {
      if (args.has(text_only)) {
        return error(Status::invalid_argument(
            fmt::format("--{} is for --format text (a JSON line has null)", text_only)));
      }
    }
  } else if (format != "text") {
    return error(
        Status::invalid_argument(fmt::format("--format: '{}' is not text or jsonl", format)));
  }
  auto partition = args.int_value("partition", 0, std::numeric_limits<std::int32_t>::max());
  if (!partition) return error(partition.error());
  if (*partition) options.partition = Partition(static_cast<std::int32_t>(**partition));
  auto timestamp = args.int_value("timestamp", 0, std::numeric_limits<std::int64_t>::max());
  if (!timestamp) return error(timestamp.error());
  if (*timestamp) options.timestamp = Timestamp(**timestamp);
  options.timestamp_field = args.value("timestamp-field");
  options.key_separator = args.value_or("key-separator", "\t");
  if (options.key_separator.empty()) {
    return error(Status::invalid_argument("--key-separator must not be empty"));
  }
  options.null_marker = args.value("null-marker");
  return options;
}

// The sum of the end offsets of `topic`'s partitions.
Result<std::int64_t> end_offsets(internal::LogBackend& log, const std::string& topic,
                                 std::int32_t partitions) {
  auto ranges = partition_ranges(log, topic, partitions);
  if (!ranges) return error(ranges.error());
  std::int64_t sum = 0;
  for (const auto& range : *ranges) sum += range.end.value();
  return sum;
}

Status produce(internal::LogBackend& log, const ProduceInput& input) {
  // Unknown topic or partition: fail before reading any input.
  auto description = log.admin().describe_topic(input.topic);
  if (!description) return description.error();
  if (input.partition && input.partition->value() >= description->partitions) {
    return Status::invalid_argument(fmt::format("topic '{}' has no partition {} (it has {})",
                                                input.topic, input.partition->value(),
                                                description->partitions));
  }
  auto producer = log.make_producer({.client_id = "brook-cli"});
  if (!producer) return producer.error();
  const auto ends_before = end_offsets(log, input.topic, description->partitions);
  if (!ends_before) return ends_before.error();
  std::int64_t count = 0;
  std::string line;
  // Stops at line `count + 1`, which is not written, nor the rest. What came before is, unless
  // a write failed (`problem` came from the log): then says how much of it the topic took.
  auto stop_at = [&](const Status& problem, bool write_failed) {
    std::string before = fmt::format("produced {} to {} (the lines before it),",
                                     count_of(count, "record"), input.topic);
    if (write_failed || !(*producer)->flush().ok()) {
      auto ends = end_offsets(log, input.topic, description->partitions);
      before = fmt::format("sent {} to {} (the lines before it), of which {} took {};",
                           count_of(count, "record"), input.topic, input.topic,
                           ends ? std::to_string(*ends - *ends_before) : "an unknown number");
    }
    return Status(problem.code(),
                  fmt::format("line {}: {}; {} line {} and the lines after it not written",
                              count + 1, problem.message(), before, count + 1));
  };
  while (std::getline(std::cin, line)) {
    auto record = read_record(input, line, internal::wall_clock());
    if (!record) return stop_at(record.error(), false);
    if (auto s = (*producer)->send(std::move(*record)); !s.ok()) return stop_at(s, true);
    ++count;
  }
  if (std::cin.bad()) return stop_at(Status::io_error("cannot read stdin"), false);
  if (auto s = (*producer)->flush(); !s.ok()) {
    return Status(s.code(), fmt::format("{}: the {} sent to {} may be written in part", s.message(),
                                        count_of(count, "record"), input.topic));
  }
  fmt::print(stderr, "produced {} to {}\n", count_of(count, "record"), input.topic);
  return {};
}

}  // namespace

int run_produce(std::span<const std::string> args) {
  return run_command(kCommand, kUsage, args, kOptions, false, produce_options, produce);
}

}  // namespace brook::cli
