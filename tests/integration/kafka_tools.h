// Kafka's own clients for interoperability tests: kcat and the Java console producer and
// consumer of the Kafka release scripts/kafka.sh runs (its jars, which that script resolves).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace brook::testing {

// ${XDG_CACHE_HOME:-$HOME/.cache}/brook/kafka-3.9.1/lib, where scripts/kafka.sh puts the jars.
// Fails the test (with what to do) if it is missing.
inline std::filesystem::path kafka_lib_dir() {
  const char* cache = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  const std::filesystem::path base = cache != nullptr && *cache != '\0' ? cache
                                     : home != nullptr ? std::filesystem::path(home) / ".cache"
                                                       : std::filesystem::path(".cache");
  const auto lib = base / "brook" / "kafka-3.9.1" / "lib";
  if (!std::filesystem::is_directory(lib)) {
    ADD_FAILURE() << "no Kafka jars in " << lib
                  << ": run scripts/kafka.sh start (it resolves them with Maven)";
  }
  return lib;
}

// The Java console producer writing stdin lines KEY:VALUE to `topic`.
inline std::vector<std::string> java_console_producer(const std::string& bootstrap,
                                                      const std::string& topic) {
  return {"java",
          "-cp",
          (kafka_lib_dir() / "*").string(),
          "kafka.tools.ConsoleProducer",
          "--bootstrap-server",
          bootstrap,
          "--topic",
          topic,
          "--property",
          "parse.key=true",
          "--property",
          "key.separator=:"};
}

// The Java console consumer printing the first `count` records of `topic` as KEY:VALUE lines.
inline std::vector<std::string> java_console_consumer(const std::string& bootstrap,
                                                      const std::string& topic, int count) {
  return {"java",
          "-cp",
          (kafka_lib_dir() / "*").string(),
          "org.apache.kafka.tools.consumer.ConsoleConsumer",
          "--bootstrap-server",
          bootstrap,
          "--topic",
          topic,
          "--from-beginning",
          "--max-messages",
          std::to_string(count),
          "--timeout-ms",
          "30000",
          "--property",
          "print.key=true",
          "--property",
          "key.separator=:"};
}

// kcat writing stdin lines KEY:VALUE to `topic`, keyed records to the partition the Java
// client picks (murmur2).
inline std::vector<std::string> kcat_producer(const std::string& bootstrap,
                                              const std::string& topic) {
  return {"kcat", "-P", "-b", bootstrap, "-t", topic, "-K:", "-X", "partitioner=murmur2_random"};
}

// kcat printing every record of `topic` as KEY:VALUE:PARTITION lines, then exiting.
inline std::vector<std::string> kcat_consumer(const std::string& bootstrap,
                                              const std::string& topic) {
  return {"kcat", "-C", "-b", bootstrap, "-t", topic, "-e", "-f", "%k:%s:%p\\n"};
}

}  // namespace brook::testing
