#include "json_to_avro.h"

#include <brook/testing/topology_test_driver.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

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
  auto& dead = driver_.output_queue(kDeadLetterTopic);
  ASSERT_EQ(dead.size(), 2u);
  EXPECT_EQ(dead[0].headers.last(brook::kErrorKindHeader)->value, "processing");
  EXPECT_EQ(dead[0].headers.last(brook::kErrorNodeHeader)->value, "write-avro");
  EXPECT_EQ(dead[1].headers.last(brook::kErrorKindHeader)->value, "deserialization");
  EXPECT_EQ(driver_.metrics().total("dead-letter-records-total"), 2);
  EXPECT_TRUE(driver_.output_queue(kOutputTopic).empty());
}

}  // namespace
}  // namespace json_to_avro
