#include "backend/embedded/record_format.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace brook::internal {
namespace {

StoredRecord sample() {
  return {.timestamp = Timestamp(1'700'000'000'123),
          .key = "key-1",
          .value = std::string(100, 'v'),
          .headers = {{"trace", "abc"}, {"empty", std::nullopt}, {"trace", ""}}};
}

TEST(RecordFormat, EncodesAndDecodesEveryField) {
  const StoredRecord record = sample();
  ByteBuffer buffer;
  encode_record(to_append(record), 42, encoded_size(to_append(record)), buffer);
  ASSERT_EQ(buffer.size(), encoded_size(to_append(record)));
  const auto header = decode_frame_header(buffer.data());
  ASSERT_TRUE(header.has_value());
  ASSERT_EQ(header->frame_bytes(), buffer.size());
  ASSERT_TRUE(body_crc_matches(*header, buffer.data() + kFrameHeaderBytes));
  auto view = decode_body({buffer.data() + kFrameHeaderBytes, header->body_bytes});
  ASSERT_TRUE(view.has_value()) << view.error().to_string();
  const ConsumedRecord decoded = to_consumed_record(*view);
  EXPECT_EQ(decoded.offset, Offset(42));
  EXPECT_EQ(decoded.timestamp, record.timestamp);
  EXPECT_EQ(decoded.key, record.key);
  EXPECT_EQ(decoded.value, record.value);
  EXPECT_EQ(decoded.headers, record.headers);
}

TEST(RecordFormat, NullKeyAndValueAreDistinctFromEmptyOnes) {
  for (auto [key, value] : {std::pair<std::optional<std::string>, std::optional<std::string>>{
                                std::nullopt, std::nullopt},
                            {"", ""},
                            {std::nullopt, ""},
                            {"", std::nullopt}}) {
    StoredRecord record{.key = key, .value = value};
    ByteBuffer buffer;
    encode_record(to_append(record), 0, encoded_size(to_append(record)), buffer);
    auto view = decode_body({buffer.data() + kFrameHeaderBytes, buffer.size() - kFrameHeaderBytes});
    ASSERT_TRUE(view.has_value());
    const ConsumedRecord decoded = to_consumed_record(*view);
    EXPECT_EQ(decoded.key, key);
    EXPECT_EQ(decoded.value, value);
  }
}

TEST(RecordFormat, AnyFlippedByteIsDetectedByAChecksum) {
  const StoredRecord record = sample();
  ByteBuffer buffer;
  encode_record(to_append(record), 7, encoded_size(to_append(record)), buffer);
  for (std::size_t i = 0; i < buffer.size(); ++i) {
    std::string bytes(buffer.data(), buffer.size());
    bytes[i] = static_cast<char>(bytes[i] ^ 0x10);
    const auto header = decode_frame_header(bytes.data());
    const bool detected = !header || header->frame_bytes() != bytes.size() ||
                          !body_crc_matches(*header, bytes.data() + kFrameHeaderBytes);
    EXPECT_TRUE(detected) << "byte " << i;
  }
}

TEST(RecordFormat, DecodingGarbageFailsCleanly) {
  std::mt19937 rng(11);
  const StoredRecord record = sample();
  ByteBuffer buffer;
  encode_record(to_append(record), 7, encoded_size(to_append(record)), buffer);
  const std::string body(buffer.data() + kFrameHeaderBytes, buffer.size() - kFrameHeaderBytes);
  for (int round = 0; round < 2000; ++round) {
    std::string bytes = body.substr(0, rng() % (body.size() + 1));
    for (int flips = 0; flips < 3 && !bytes.empty(); ++flips) {
      bytes[rng() % bytes.size()] = static_cast<char>(rng());
    }
    auto view = decode_body(bytes);  // must not read out of bounds (ASan) or throw
    if (view) (void)to_stored_record(*view);
  }
}

}  // namespace
}  // namespace brook::internal
