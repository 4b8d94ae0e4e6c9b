#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "brook/json_serde.h"
#include "brook/serde.h"
#include "brook/state_store.h"
#include "brook/windowed_serde.h"

namespace brook {
namespace {

using ::testing::HasSubstr;

std::string bytes(std::initializer_list<unsigned> values) {
  std::string out;
  for (unsigned v : values) out.push_back(static_cast<char>(v));
  return out;
}

template <class T>
T round_trip(const Serde<T>& serde, const T& value) {
  auto encoded = serde.serialize(value);
  EXPECT_TRUE(encoded.has_value()) << encoded.error().to_string();
  auto decoded = serde.deserialize(*encoded);
  EXPECT_TRUE(decoded.has_value()) << decoded.error().to_string();
  return *decoded;
}

struct Trade {
  std::string symbol;
  double price = 0;
  std::int64_t volume = 0;
  friend bool operator==(const Trade&, const Trade&) = default;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Trade, symbol, price, volume)

struct NoSerde {
  int x = 0;
};

TEST(StringSerde, RoundTripsIncludingEmptyAndBinary) {
  StringSerde serde;
  EXPECT_EQ(serde.name(), "string");
  EXPECT_EQ(round_trip<std::string>(serde, "hello"), "hello");
  EXPECT_EQ(round_trip<std::string>(serde, ""), "");
  const std::string binary("a\0b\xff", 4);
  EXPECT_EQ(round_trip<std::string>(serde, binary), binary);
  EXPECT_EQ(*serde.serialize("héllo"), "héllo");  // UTF-8 bytes unchanged, as Kafka's
}

TEST(Int32Serde, WritesBigEndianLikeKafkaIntegerSerializer) {
  Int32Serde serde;
  EXPECT_EQ(*serde.serialize(1), bytes({0x00, 0x00, 0x00, 0x01}));
  EXPECT_EQ(*serde.serialize(-1), bytes({0xff, 0xff, 0xff, 0xff}));
  EXPECT_EQ(*serde.serialize(0x12345678), bytes({0x12, 0x34, 0x56, 0x78}));
  EXPECT_EQ(*serde.serialize(std::numeric_limits<std::int32_t>::min()),
            bytes({0x80, 0x00, 0x00, 0x00}));
}

TEST(Int32Serde, RoundTripsEdgeValues) {
  Int32Serde serde;
  for (std::int32_t v : {0, 1, -1, -123456, std::numeric_limits<std::int32_t>::min(),
                         std::numeric_limits<std::int32_t>::max()}) {
    EXPECT_EQ(round_trip(serde, v), v);
  }
}

TEST(Int32Serde, RejectsWrongLengthNamingTheSerde) {
  Int32Serde serde;
  auto three = serde.deserialize(bytes({0, 0, 1}));
  ASSERT_FALSE(three.has_value());
  EXPECT_EQ(three.error().code(), StatusCode::kCorruption);
  EXPECT_EQ(three.error().message(), "int32 serde: expected 4 bytes, got 3");
  EXPECT_FALSE(serde.deserialize("").has_value());
  EXPECT_FALSE(serde.deserialize(bytes({0, 0, 0, 0, 1})).has_value());
}

TEST(Int64Serde, WritesBigEndianLikeKafkaLongSerializer) {
  Int64Serde serde;
  EXPECT_EQ(*serde.serialize(-1), std::string(8, '\xff'));
  EXPECT_EQ(*serde.serialize(1), bytes({0, 0, 0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(*serde.serialize(0x0102030405060708),
            bytes({0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08}));
}

TEST(Int64Serde, RoundTripsEdgeValues) {
  Int64Serde serde;
  for (std::int64_t v :
       {std::int64_t{0}, std::int64_t{-1}, std::int64_t{-9876543210},
        std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()}) {
    EXPECT_EQ(round_trip(serde, v), v);
  }
}

TEST(Int64Serde, RejectsWrongLengthNamingTheSerde) {
  Int64Serde serde;
  auto four = serde.deserialize(bytes({0, 0, 0, 1}));
  ASSERT_FALSE(four.has_value());
  EXPECT_EQ(four.error().code(), StatusCode::kCorruption);
  EXPECT_EQ(four.error().message(), "int64 serde: expected 8 bytes, got 4");
}

TEST(DoubleSerde, WritesIeeeBitsBigEndianLikeKafkaDoubleSerializer) {
  DoubleSerde serde;
  EXPECT_EQ(*serde.serialize(1.0), bytes({0x3f, 0xf0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(*serde.serialize(-2.0), bytes({0xc0, 0x00, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(*serde.serialize(0.0), std::string(8, '\0'));
}

TEST(DoubleSerde, RoundTripsEdgeValuesIncludingNanAndInfinity) {
  DoubleSerde serde;
  for (double v :
       {0.0, -0.0, 1.5, -1e-300, std::numeric_limits<double>::max(),
        std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity()}) {
    const double back = round_trip(serde, v);
    EXPECT_EQ(back, v);
    EXPECT_EQ(std::signbit(back), std::signbit(v));
  }
  EXPECT_TRUE(std::isnan(round_trip(serde, std::numeric_limits<double>::quiet_NaN())));
}

TEST(DoubleSerde, RejectsWrongLengthNamingTheSerde) {
  DoubleSerde serde;
  auto seven = serde.deserialize(std::string(7, '\0'));
  ASSERT_FALSE(seven.has_value());
  EXPECT_EQ(seven.error().code(), StatusCode::kCorruption);
  EXPECT_EQ(seven.error().message(), "double serde: expected 8 bytes, got 7");
}

TEST(BytesSerde, RoundTripsBinaryWithZeros) {
  BytesSerde serde;
  const Bytes value = {std::byte{0}, std::byte{0xff}, std::byte{0}, std::byte{0x7f}};
  EXPECT_EQ(*serde.serialize(value), bytes({0x00, 0xff, 0x00, 0x7f}));
  EXPECT_EQ(round_trip(serde, value), value);
  EXPECT_EQ(round_trip(serde, Bytes{}), Bytes{});
}

// serialize_into() appends exactly what serialize() returns, after what `out` held.
template <class T>
void expect_serialize_into_appends_serialize(const Serde<T>& serde, const T& value) {
  std::string out = "prefix";
  ASSERT_TRUE(serde.serialize_into(value, out).ok());
  EXPECT_EQ(out, "prefix" + *serde.serialize(value)) << serde.name();
}

TEST(Serde, SerializeIntoAppendsWhatSerializeReturnsForEveryBuiltinSerde) {
  expect_serialize_into_appends_serialize(StringSerde(), std::string("a\0b", 3));
  expect_serialize_into_appends_serialize(StringSerde(), std::string());
  expect_serialize_into_appends_serialize(Int32Serde(), std::int32_t{-2});
  expect_serialize_into_appends_serialize(Int64Serde(), std::int64_t{0x0102030405060708});
  expect_serialize_into_appends_serialize(DoubleSerde(), -0.5);
  expect_serialize_into_appends_serialize(BytesSerde(), Bytes{std::byte{0}, std::byte{0xff}});
  const TimestampedSerde<std::int64_t> timestamped(std::make_shared<Int64Serde>());
  expect_serialize_into_appends_serialize(timestamped,
                                          ValueAndTimestamp<std::int64_t>{7, Timestamp(-3)});
  const Windowed<std::string> windowed{"k", {.start = Timestamp(5), .end = Timestamp(9)}};
  expect_serialize_into_appends_serialize(
      TimeWindowedSerde<std::string>(std::make_shared<StringSerde>(), std::chrono::milliseconds(4)),
      windowed);
  expect_serialize_into_appends_serialize(
      SessionWindowedSerde<std::string>(std::make_shared<StringSerde>()), windowed);
  // A serde without its own serialize_into (JSON) appends serialize()'s bytes.
  expect_serialize_into_appends_serialize(JsonSerde<Trade>(), Trade{.symbol = "ACME"});
}

TEST(Serde, SerializeViewShowsAStringItselfAndOtherValuesInTheBuffer) {
  const std::string text = "a string's own bytes";
  std::string buffer = "old";
  const auto view = StringSerde().serialize_view(text, buffer).value();
  EXPECT_EQ(view.data(), text.data());
  EXPECT_EQ(view.size(), text.size());
  EXPECT_EQ(buffer, "old");
  const auto number = Int64Serde().serialize_view(std::int64_t{258}, buffer).value();
  EXPECT_EQ(number, *Int64Serde().serialize(258));
  EXPECT_EQ(number.data(), buffer.data());
  const auto json = JsonSerde<Trade>().serialize_view(Trade{.volume = 2}, buffer).value();
  EXPECT_EQ(json, *JsonSerde<Trade>().serialize(Trade{.volume = 2}));
  EXPECT_EQ(json.data(), buffer.data());
}

TEST(Serde, SerializeIntoReturnsTheErrorOfSerialize) {
  struct Refusing final : Serde<int> {
    std::string_view name() const override { return "refusing"; }
    Result<std::string> serialize(const int&) const override {
      return error(Status::invalid_argument("no ints"));
    }
    Result<int> deserialize(std::string_view) const override { return 0; }
  };
  std::string out;
  const TimestampedSerde<int> timestamped(std::make_shared<Refusing>());
  const Status status = timestamped.serialize_into({1, Timestamp(2)}, out);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "no ints");
  EXPECT_FALSE(timestamped.serialize({1, Timestamp(2)}).has_value());
}

TEST(JsonSerde, RoundTripsAStruct) {
  JsonSerde<Trade> serde;
  EXPECT_EQ(serde.name(), "json");
  const Trade trade{.symbol = "ACME", .price = 12.5, .volume = -3};
  EXPECT_EQ(round_trip(serde, trade), trade);
  EXPECT_EQ(round_trip(serde, Trade{}), Trade{});
  EXPECT_EQ(nlohmann::json::parse(*serde.serialize(trade)),
            nlohmann::json::parse(R"({"symbol":"ACME","price":12.5,"volume":-3})"));
}

TEST(JsonSerde, InvalidJsonIsCorruptionNamingTheSerde) {
  JsonSerde<Trade> serde;
  auto result = serde.deserialize(R"({"symbol": "ACME", )");
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().code(), StatusCode::kCorruption);
  EXPECT_THAT(result.error().message(), HasSubstr("json serde"));
  EXPECT_THAT(result.error().message(), HasSubstr("not valid JSON"));
}

TEST(JsonSerde, ValidJsonOfTheWrongShapeIsCorruptionNamingTheSerde) {
  JsonSerde<Trade> serde;
  for (const char* wrong :
       {R"([1, 2, 3])", R"({"symbol": 5, "price": 1, "volume": 1})", R"({"symbol": "A"})", "42"}) {
    auto result = serde.deserialize(wrong);
    ASSERT_FALSE(result.has_value()) << wrong;
    EXPECT_EQ(result.error().code(), StatusCode::kCorruption) << wrong;
    EXPECT_THAT(result.error().message(), HasSubstr("json serde")) << wrong;
  }
}

TEST(SerdeNullRule, OptionalMapsNullToNullopt) {
  StringSerde serde;
  auto decoded = decode<std::optional<std::string>>(serde, std::nullopt);
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(*decoded, std::nullopt);
  auto present = decode<std::optional<std::string>>(serde, std::string(""));
  ASSERT_TRUE(present.has_value());
  EXPECT_EQ(*present, std::optional<std::string>(""));  // empty is not null
}

TEST(SerdeNullRule, NonOptionalReadsNullAsValueInitialised) {
  StringSerde strings;
  EXPECT_EQ(*decode<std::string>(strings, std::nullopt), "");
  Int32Serde ints;
  EXPECT_EQ(*decode<std::int32_t>(ints, std::nullopt), 0);
}

TEST(SerdeNullRule, OnlyAnEmptyOptionalEncodesAsNull) {
  Int32Serde serde;
  auto null = encode<std::optional<std::int32_t>>(serde, std::nullopt);
  ASSERT_TRUE(null.has_value());
  EXPECT_EQ(*null, std::nullopt);
  auto seven = encode<std::optional<std::int32_t>>(serde, 7);
  ASSERT_TRUE(seven.has_value());
  EXPECT_EQ(*seven, bytes({0, 0, 0, 7}));
  auto plain = encode<std::int32_t>(serde, 0);
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(*plain, bytes({0, 0, 0, 0}));
}

TEST(SerdeNullRule, EncodeViewWritesNullOnlyForAnEmptyOptional) {
  Int32Serde serde;
  std::string buffer;
  EXPECT_EQ(encode_view<std::optional<std::int32_t>>(serde, std::nullopt, buffer).value(),
            std::nullopt);
  EXPECT_EQ(encode_view<std::optional<std::int32_t>>(serde, 7, buffer).value(),
            bytes({0, 0, 0, 7}));
  EXPECT_EQ(encode_view<std::int32_t>(serde, 0, buffer).value(), bytes({0, 0, 0, 0}));
}

TEST(SerdeNullRule, DecodeOfBadBytesKeepsTheSerdeError) {
  Int32Serde serde;
  auto result = decode<std::optional<std::int32_t>>(serde, std::string("ab"));
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().message(), "int32 serde: expected 4 bytes, got 2");
}

TEST(DefaultSerde, ExistsForBuiltinTypesAndJsonStructs) {
  EXPECT_NE(default_serde<std::string>(), nullptr);
  EXPECT_NE(default_serde<std::int32_t>(), nullptr);
  EXPECT_NE(default_serde<std::int64_t>(), nullptr);
  EXPECT_NE(default_serde<double>(), nullptr);
  EXPECT_NE(default_serde<Bytes>(), nullptr);
  EXPECT_NE(default_serde<Trade>(), nullptr);
  EXPECT_NE(default_serde<std::optional<std::string>>(), nullptr);
  EXPECT_EQ(default_serde<std::string>()->name(), "string");
  EXPECT_EQ(default_serde<std::int32_t>()->name(), "int32");
  EXPECT_EQ(default_serde<std::int64_t>()->name(), "int64");
  EXPECT_EQ(default_serde<double>()->name(), "double");
  EXPECT_EQ(default_serde<Bytes>()->name(), "bytes");
  EXPECT_EQ(default_serde<Trade>()->name(), "json");
}

TEST(DefaultSerde, IsNullForATypeWithoutOne) {
  EXPECT_EQ(default_serde<NoSerde>(), nullptr);
  EXPECT_EQ(default_serde<std::optional<NoSerde>>(), nullptr);
}

}  // namespace
}  // namespace brook
