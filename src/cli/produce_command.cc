// `brook produce TOPIC`: one record per line of stdin.
#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "cli/command_support.h"
#include "cli/commands.h"

namespace brook::cli {
namespace {

constexpr std::string_view kCommand = "produce";

constexpr std::string_view kUsage = R"(usage: brook produce TOPIC [options] < lines

Writes one record per line of stdin to TOPIC. A line is KEY<TAB>VALUE (split at the first
separator) or just VALUE, which gets a null key. Lines end at '\n', which is not part of the
record; every other byte is kept as is (a '\r' too). An empty line is a record with an empty
value. Keyed records go to the partition murmur2(KEY) picks (as the Java client), the others
round-robin, unless --partition is given. At the end prints "produced N records to TOPIC" to
stderr.

  --partition P         write every record to partition P
  --timestamp MS        record timestamp, ms since the Unix epoch (default: the time of sending)
  --key-separator SEP   what separates key from value (default a TAB; any non-empty string)
  --null-marker STR     a key or value equal to STR is sent as null (a value: a tombstone)
  --data-dir DIR        the embedded data dir (default ./brook-data)
  --bootstrap-servers HOST:PORT[,HOST:PORT...]
                        the Kafka cluster to write to instead

example:
  printf 'alice\t1\nbob\t2\nno key here\n' | brook produce scores
)";

constexpr OptionSpec kOptions[] = {
    kDataDirOption,
    kBootstrapServersOption,
    {.name = "partition", .takes_value = true},
    {.name = "timestamp", .takes_value = true},
    {.name = "key-separator", .takes_value = true},
    {.name = "null-marker", .takes_value = true},
};
constexpr std::string_view kTopic[] = {"TOPIC"};

struct ProduceOptions {
  std::string topic;
  std::optional<Partition> partition;
  std::optional<Timestamp> timestamp;
  std::string key_separator = "\t";
  std::optional<std::string> null_marker;
};

Result<ProduceOptions> produce_options(const ParsedArgs& args) {
  if (auto s = check_positionals(args, kTopic, 1); !s.ok()) return error(s);
  ProduceOptions options{.topic = args.positionals()[0]};
  auto partition = args.int_value("partition", 0, std::numeric_limits<std::int32_t>::max());
  if (!partition) return error(partition.error());
  if (*partition) options.partition = Partition(static_cast<std::int32_t>(**partition));
  auto timestamp = args.int_value("timestamp", 0, std::numeric_limits<std::int64_t>::max());
  if (!timestamp) return error(timestamp.error());
  if (*timestamp) options.timestamp = Timestamp(**timestamp);
  options.key_separator = args.value_or("key-separator", "\t");
  if (options.key_separator.empty()) {
    return error(Status::invalid_argument("--key-separator must not be empty"));
  }
  options.null_marker = args.value("null-marker");
  return options;
}

Timestamp now() {
  return Timestamp(std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count());
}

// The record a line of input describes.
ProducerRecord to_record(const ProduceOptions& options, const std::string& line) {
  ProducerRecord record{.topic = options.topic,
                        .partition = options.partition,
                        .timestamp = options.timestamp.value_or(now())};
  const auto split = line.find(options.key_separator);
  if (split == std::string::npos) {
    record.value = line;
  } else {
    record.key = line.substr(0, split);
    record.value = line.substr(split + options.key_separator.size());
  }
  if (options.null_marker) {
    if (record.key == options.null_marker) record.key.reset();
    if (record.value == options.null_marker) record.value.reset();
  }
  return record;
}

Status produce(internal::LogBackend& log, const ProduceOptions& options) {
  // Unknown topic or partition: fail before reading any input.
  auto description = log.admin().describe_topic(options.topic);
  if (!description) return description.error();
  if (options.partition && options.partition->value() >= description->partitions) {
    return Status::invalid_argument(fmt::format("topic '{}' has no partition {} (it has {})",
                                                options.topic, options.partition->value(),
                                                description->partitions));
  }
  auto producer = log.make_producer({.client_id = "brook-cli"});
  if (!producer) return producer.error();
  std::int64_t count = 0;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (auto s = (*producer)->send(to_record(options, line)); !s.ok()) return s;
    ++count;
  }
  if (std::cin.bad()) return Status::io_error("cannot read stdin");
  if (auto s = (*producer)->flush(); !s.ok()) return s;
  fmt::print(stderr, "produced {} to {}\n", count_of(count, "record"), options.topic);
  return {};
}

}  // namespace

int run_produce(std::span<const std::string> args) {
  return run_command(kCommand, kUsage, args, kOptions, false, produce_options, produce);
}

}  // namespace brook::cli
