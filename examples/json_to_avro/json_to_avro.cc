#include "json_to_avro.h"

namespace json_to_avro {

const char* const kTradeSchema = R"({
  "type": "record", "name": "Trade", "namespace": "brook.examples",
  "fields": [
    {"name": "symbol", "type": "string"},
    {"name": "side", "type": {"type": "enum", "name": "Side", "symbols": ["BUY", "SELL"]}},
    {"name": "price", "type": "double"},
    {"name": "volume", "type": "long"},
    {"name": "ts", "type": "long"},
    {"name": "venue", "type": ["null", "string"], "default": null}
  ]
})";

void to_json(nlohmann::json& json, const Trade& trade) {
  json = {{"symbol", trade.symbol},
          {"side", trade.side},
          {"price", trade.price},
          {"volume", trade.volume},
          {"ts", trade.ts}};
  json["venue"] = trade.venue ? nlohmann::json(*trade.venue) : nlohmann::json(nullptr);
}

void from_json(const nlohmann::json& json, Trade& trade) {
  json.at("symbol").get_to(trade.symbol);
  json.at("side").get_to(trade.side);
  json.at("price").get_to(trade.price);
  json.at("volume").get_to(trade.volume);
  json.at("ts").get_to(trade.ts);
  const auto venue = json.find("venue");
  trade.venue = venue == json.end() || venue->is_null()
                    ? std::nullopt
                    : std::optional<std::string>(venue->get<std::string>());
}

brook::ErrorHandling error_handling() {
  return {.on_deserialization_error = brook::ErrorAction::kDeadLetter,
          .on_processing_error = brook::ErrorAction::kDeadLetter,
          .dead_letter_topic = kDeadLetterTopic};
}

brook::Result<brook::Topology> build_topology(const std::map<std::string, std::string>& config) {
  auto avro = brook::AvroSerde::make(kTradeSchema, {.confluent_schema_id = kSchemaId});
  if (!avro) return brook::error(avro.error());
  brook::StreamsBuilder builder;
  builder.stream<std::optional<std::string>, Trade>(kInputTopic, {.name = "read-json"})
      .map_values([](const Trade& trade) { return nlohmann::json(trade); }, {.name = "to-generic"})
      .to(kOutputTopic, {.value_serde = *avro, .name = "write-avro"});
  return builder.build(config);
}

}  // namespace json_to_avro
