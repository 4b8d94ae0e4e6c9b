#include "json_to_avro.h"

#include <brook/testing/topology_test_driver.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace json_to_avro {
namespace {

using ::testing::HasSubstr;

class JsonToAvro : public ::testing::Test {
 protected:
  JsonToAvro()
      : topology_(*build_topology()),
        driver_(topology_, {.errors = error_handling()}),
        avro_(*brook::AvroSerde::make(kTradeSchema, {.confluent_schema_id = kSchemaId})) {}

  void pipe(const std::string& json) {
    driver_.pipe_raw_input(kInputTopic, std::nullopt, json, brook::Timestamp(++time_));
  }

  brook::Topology topology_;
  brook::testing::TopologyTestDriver driver_;
  std::shared_ptr<const brook::AvroSerde> avro_;
  std::int64_t time_ = 0;
};

TEST_F(JsonToAvro, WritesValidTradesAsConfluentFramedAvro) {
  pipe(R"({"symbol": "ACME", "side": "BUY", "price": 12.5, "volume": 100, "ts": 5,
           "venue": "XNAS"})");
  pipe(R"({"symbol": "INIT", "side": "SELL", "price": 3.25, "volume": 7, "ts": 6})");
  auto& out = driver_.output_queue(kOutputTopic);
  ASSERT_EQ(out.size(), 2u);
  const std::string& bytes = *out[0].value;
  ASSERT_GE(bytes.size(), 5u);
  EXPECT_EQ(bytes.substr(0, 5), std::string("\0\0\0\0\1", 5));  // magic 0, schema id 1
  EXPECT_EQ(*avro_->deserialize(bytes),
            nlohmann::json::parse(R"({"symbol":"ACME","side":"BUY","price":12.5,"volume":100,
                                      "ts":5,"venue":"XNAS"})"));
  EXPECT_EQ(*avro_->deserialize(*out[1].value),
            nlohmann::json::parse(R"({"symbol":"INIT","side":"SELL","price":3.25,"volume":7,
                                      "ts":6,"venue":null})"));
  EXPECT_TRUE(driver_.output_queue(kDeadLetterTopic).empty());
}

TEST_F(JsonToAvro, InvalidJsonGoesToTheDeadLetterTopicUnchanged) {
  const std::string bad = R"({"symbol": "ACME", "price": oops})";
  pipe(bad);
  auto& dead = driver_.output_queue(kDeadLetterTopic);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].value, bad);
  EXPECT_EQ(dead[0].headers.last(brook::kErrorKindHeader)->value, "deserialization");
  EXPECT_THAT(*dead[0].headers.last(brook::kErrorMessageHeader)->value,
              HasSubstr("json serde: not valid JSON"));
  EXPECT_TRUE(driver_.output_queue(kOutputTopic).empty());
}

TEST_F(JsonToAvro, TradesThatDoNotFitTheSchemaGoToTheDeadLetterTopic) {
  pipe(R"({"symbol": "ACME", "side": "HOLD", "price": 1, "volume": 1, "ts": 7})");  // no such side
  pipe(R"({"symbol": "ACME", "side": "BUY", "price": 1, "volume": 1})");            // no ts
  // Volumes that do not fit a long exactly (the schema's, and Trade's int64_t).
  const std::vector<std::pair<std::string, std::string>> volumes = {
      {"1e30", "1e+30 does not fit, read as -9223372036854775808"},
      {"1.5", "1.5 does not fit, read as 1"},
      {"18446744073709551615", "18446744073709551615 does not fit, read as -1"}};
  for (const auto& [volume, _] : volumes) {
    pipe(R"({"symbol": "ACME", "side": "BUY", "price": 1, "volume": )" + volume + R"(, "ts": 8})");
  }
  auto& dead = driver_.output_queue(kDeadLetterTopic);
  ASSERT_EQ(dead.size(), 2 + volumes.size());
  EXPECT_EQ(dead[0].headers.last(brook::kErrorKindHeader)->value, "processing");
  EXPECT_EQ(dead[0].headers.last(brook::kErrorNodeHeader)->value, "write-avro");
  EXPECT_EQ(dead[1].headers.last(brook::kErrorKindHeader)->value, "deserialization");
  for (std::size_t i = 0; i < volumes.size(); ++i) {
    const auto& record = dead[2 + i];
    EXPECT_THAT(*record.value, HasSubstr(R"("volume": )" + volumes[i].first));  // unchanged
    EXPECT_EQ(record.headers.last(brook::kErrorKindHeader)->value, "deserialization");
    EXPECT_THAT(*record.headers.last(brook::kErrorMessageHeader)->value,
                HasSubstr("field 'volume': " + volumes[i].second));
  }
  EXPECT_EQ(driver_.metrics().total("dead-letter-records-total"), 5);
  EXPECT_TRUE(driver_.output_queue(kOutputTopic).empty());
}

}  // namespace
}  // namespace json_to_avro
