// Reading a topic from the CLI: a consumer of its partitions and the end of each as the reading
// started, so that a command can tell when it has read everything that was there.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/log_backend.h"

namespace brook::cli {

struct TopicReader {
  std::unique_ptr<internal::Consumer> consumer;
  std::map<internal::TopicPartition, Offset>
      end;  // the last stable offset when the reader was opened

  // Whether every partition is read up to its end. An empty poll does not say so (on Kafka a
  // fetch may still be on its way); the position does, once past the end's transaction markers.
  Result<bool> reached_end() const;
};

// The first stored offset and the end (the last stable offset) of a partition.
struct PartitionRange {
  Offset start;
  Offset end;
};

// The range of each of the `partitions` partitions of `topic`, by partition number.
Result<std::vector<PartitionRange>> partition_ranges(internal::LogBackend& log,
                                                     const std::string& topic,
                                                     std::int32_t partitions);

// A reader of `topic` (only `partition` if given: kInvalidArgument if the topic has no such
// partition), read_committed. With a `group`, each partition starts at the group's committed
// offset; without, at the beginning if `from_beginning`, else at the end.
Result<TopicReader> open_topic_reader(internal::LogBackend& log, const std::string& topic,
                                      std::optional<Partition> partition, const std::string& group,
                                      bool from_beginning);

}  // namespace brook::cli
