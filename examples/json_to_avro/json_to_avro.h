// json_to_avro: reads stock trades as JSON and writes them as Avro (Confluent wire format). A
// record that is not valid JSON, or does not fit the Avro schema, goes to a dead-letter topic
// with the reason in its headers: nothing is lost (DESIGN.md pattern 1).
#pragma once

#include <brook/avro_serde.h>
#include <brook/brook.h>
#include <brook/json_serde.h>

#include <cstdint>
#include <optional>
#include <string>

namespace json_to_avro {

inline constexpr const char* kInputTopic = "trades-json";
inline constexpr const char* kOutputTopic = "trades-avro";
inline constexpr const char* kDeadLetterTopic = "trades-dead-letter";
inline constexpr std::int32_t kSchemaId = 1;

// The Avro schema of the output (side is an enum: BUY, SELL).
extern const char* const kTradeSchema;

struct Trade {
  std::string symbol;
  std::string side;
  double price = 0;
  std::int64_t volume = 0;
  std::int64_t ts = 0;
  std::optional<std::string> venue;
};
void to_json(nlohmann::json& json, const Trade& trade);
void from_json(const nlohmann::json& json, Trade& trade);

// The error handling the application must run with: every bad record to kDeadLetterTopic.
brook::ErrorHandling error_handling();

// Built with `config` (StreamsBuilder::build: its topology.optimization).
brook::Result<brook::Topology> build_topology(
    const std::map<std::string, std::string>& config = {});

}  // namespace json_to_avro
