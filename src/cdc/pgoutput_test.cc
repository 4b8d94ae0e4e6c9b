// decode_pgoutput on messages built byte by byte as PostgreSQL's "Logical Replication Message
// Formats" lays them out, and on malformed ones.
#include "cdc/pgoutput.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace brook::internal {
namespace {

using ::testing::HasSubstr;

// Writes a message: big-endian integers, NUL-terminated strings, tuple data.
class Bytes {
 public:
  explicit Bytes(char type) { out_.push_back(type); }
  template <class Int>
  Bytes& integer(Int value) {
    for (int i = sizeof(Int) - 1; i >= 0; --i) {
      out_.push_back(static_cast<char>((static_cast<std::uint64_t>(value) >> (8 * i)) & 0xff));
    }
    return *this;
  }
  Bytes& byte(char value) { return integer<std::uint8_t>(static_cast<std::uint8_t>(value)); }
  Bytes& string(std::string_view text) {
    out_ += text;
    out_.push_back('\0');
    return *this;
  }
  // TupleData of text values; nullopt is 'n', "\x01" stands for 'u' (unchanged TOAST).
  Bytes& tuple(const std::vector<std::optional<std::string>>& values) {
    integer<std::int16_t>(static_cast<std::int16_t>(values.size()));
    for (const auto& value : values) {
      if (!value) {
        byte('n');
      } else if (*value == "\x01") {
        byte('u');
      } else {
        byte('t').integer<std::int32_t>(static_cast<std::int32_t>(value->size()));
        out_ += *value;
      }
    }
    return *this;
  }
  const std::string& str() const { return out_; }

 private:
  std::string out_;
};

template <class T>
T decoded(const Bytes& bytes) {
  auto message = decode_pgoutput(bytes.str());
  EXPECT_TRUE(message) << message.error().to_string();
  EXPECT_TRUE(message && std::holds_alternative<T>(*message));
  return message && std::holds_alternative<T>(*message) ? std::get<T>(*message) : T{};
}

TEST(PgOutputTest, BeginAndCommit) {
  auto begin = decoded<PgBegin>(Bytes('B')
                                    .integer<std::uint64_t>(0x16B374D848)
                                    .integer<std::int64_t>(7)
                                    .integer<std::uint32_t>(555));
  EXPECT_EQ(begin.final_lsn, 0x16B374D848u);
  EXPECT_EQ(begin.commit_time_us, 7);
  EXPECT_EQ(begin.xid, 555u);
  auto commit = decoded<PgCommit>(Bytes('C')
                                      .byte(0)
                                      .integer<std::uint64_t>(100)
                                      .integer<std::uint64_t>(180)
                                      .integer<std::int64_t>(9));
  EXPECT_EQ(commit.commit_lsn, 100u);
  EXPECT_EQ(commit.end_lsn, 180u);
  EXPECT_EQ(commit.commit_time_us, 9);
}

Bytes relation_message() {
  Bytes bytes('R');
  bytes.integer<std::uint32_t>(16384).string("public").string("profiles").byte('f');
  bytes.integer<std::int16_t>(2);
  bytes.byte(1).string("id").integer<std::uint32_t>(23).integer<std::int32_t>(-1);
  bytes.byte(0).string("name").integer<std::uint32_t>(1043).integer<std::int32_t>(36);
  return bytes;
}

TEST(PgOutputTest, RelationWithItsColumnsAndKeyFlags) {
  auto relation = decoded<PgRelation>(relation_message());
  EXPECT_EQ(relation.oid, 16384u);
  EXPECT_EQ(relation.schema, "public");
  EXPECT_EQ(relation.table, "profiles");
  EXPECT_EQ(relation.replica_identity, 'f');
  ASSERT_EQ(relation.columns.size(), 2u);
  EXPECT_EQ(relation.columns[0].name, "id");
  EXPECT_TRUE(relation.columns[0].key);
  EXPECT_EQ(relation.columns[1].type_oid, 1043u);
  EXPECT_EQ(relation.columns[1].type_modifier, 36);
  EXPECT_FALSE(relation.columns[1].key);
  // pg_catalog's tables come with an empty namespace.
  Bytes catalog('R');
  catalog.integer<std::uint32_t>(1).string("").string("t").byte('d').integer<std::int16_t>(0);
  EXPECT_EQ(decoded<PgRelation>(catalog).schema, "pg_catalog");
}

TEST(PgOutputTest, TypeMessage) {
  auto type =
      decoded<PgType>(Bytes('Y').integer<std::uint32_t>(70000).string("public").string("mood"));
  EXPECT_EQ(type.oid, 70000u);
  EXPECT_EQ(type.name, "mood");
}

TEST(PgOutputTest, InsertWithNullTextAndUnchangedToastValues) {
  auto insert = decoded<PgInsert>(
      Bytes('I').integer<std::uint32_t>(16384).byte('N').tuple({"1", std::nullopt, "\x01", ""}));
  EXPECT_EQ(insert.relation, 16384u);
  ASSERT_EQ(insert.row.size(), 4u);
  EXPECT_EQ(insert.row[0].kind, PgValue::Kind::kText);
  EXPECT_EQ(insert.row[0].text, "1");
  EXPECT_EQ(insert.row[1].kind, PgValue::Kind::kNull);
  EXPECT_EQ(insert.row[2].kind, PgValue::Kind::kUnchangedToast);
  EXPECT_EQ(insert.row[3].kind, PgValue::Kind::kText);
  EXPECT_EQ(insert.row[3].text, "");
}

TEST(PgOutputTest, UpdateWithoutWithKeyAndWithFullOldRow) {
  auto plain = decoded<PgUpdate>(Bytes('U').integer<std::uint32_t>(1).byte('N').tuple({"1", "b"}));
  EXPECT_FALSE(plain.old_row);
  EXPECT_EQ(plain.row[1].text, "b");
  auto key = decoded<PgUpdate>(Bytes('U')
                                   .integer<std::uint32_t>(1)
                                   .byte('K')
                                   .tuple({"1", std::nullopt})
                                   .byte('N')
                                   .tuple({"2", "b"}));
  ASSERT_TRUE(key.old_row);
  EXPECT_TRUE(key.old_is_key);
  EXPECT_EQ((*key.old_row)[0].text, "1");
  EXPECT_EQ(key.row[0].text, "2");
  auto full = decoded<PgUpdate>(
      Bytes('U').integer<std::uint32_t>(1).byte('O').tuple({"1", "a"}).byte('N').tuple({"1", "b"}));
  ASSERT_TRUE(full.old_row);
  EXPECT_FALSE(full.old_is_key);
  EXPECT_EQ((*full.old_row)[1].text, "a");
}

TEST(PgOutputTest, DeleteWithKeyOrFullOldRow) {
  auto key =
      decoded<PgDelete>(Bytes('D').integer<std::uint32_t>(1).byte('K').tuple({"1", std::nullopt}));
  EXPECT_TRUE(key.old_is_key);
  EXPECT_EQ(key.old_row[0].text, "1");
  auto full = decoded<PgDelete>(Bytes('D').integer<std::uint32_t>(1).byte('O').tuple({"1", "a"}));
  EXPECT_FALSE(full.old_is_key);
  EXPECT_EQ(full.old_row[1].text, "a");
}

TEST(PgOutputTest, TruncateWithItsOptions) {
  auto truncate = decoded<PgTruncate>(Bytes('T')
                                          .integer<std::int32_t>(2)
                                          .integer<std::uint8_t>(3)
                                          .integer<std::uint32_t>(10)
                                          .integer<std::uint32_t>(11));
  EXPECT_EQ(truncate.relations, (std::vector<std::uint32_t>{10, 11}));
  EXPECT_TRUE(truncate.cascade);
  EXPECT_TRUE(truncate.restart_identity);
}

TEST(PgOutputTest, OriginAndLogicalMessagesAreReadPast) {
  EXPECT_EQ(decoded<PgIgnored>(Bytes('O').integer<std::uint64_t>(5).string("node")).type, 'O');
  auto message =
      Bytes('M').byte(1).integer<std::uint64_t>(5).string("prefix").integer<std::int32_t>(3);
  EXPECT_EQ(decoded<PgIgnored>(Bytes(message).string("ab")).type, 'M');
}

std::string error_of(const std::string& bytes) {
  auto message = decode_pgoutput(bytes);
  EXPECT_FALSE(message);
  return message ? "" : message.error().to_string();
}

TEST(PgOutputTest, MalformedMessagesAreErrorsNamingWhatIsWrong) {
  EXPECT_THAT(error_of(""), HasSubstr("an empty message"));
  EXPECT_THAT(error_of("Z"), HasSubstr("unknown message type 'Z'"));
  const std::string relation = relation_message().str();
  for (std::size_t cut : {std::size_t{3}, std::size_t{8}, std::size_t{20}, relation.size() - 1}) {
    EXPECT_THAT(error_of(relation.substr(0, cut)), HasSubstr("relation message: cut short"));
  }
  const std::string insert = Bytes('I').integer<std::uint32_t>(1).byte('N').tuple({"hello"}).str();
  EXPECT_THAT(error_of(insert.substr(0, insert.size() - 2)),
              HasSubstr("insert message: cut short"));
  EXPECT_THAT(error_of(insert + "x"), HasSubstr("insert message: 1 bytes left over"));
  EXPECT_THAT(
      error_of(
          Bytes('I').integer<std::uint32_t>(1).byte('N').integer<std::int16_t>(1).byte('q').str()),
      HasSubstr("unknown value kind 'q' in column 0"));
  EXPECT_THAT(
      error_of(
          Bytes('I').integer<std::uint32_t>(1).byte('N').integer<std::int16_t>(1).byte('b').str()),
      HasSubstr("a binary value, which was not requested"));
  EXPECT_THAT(error_of(Bytes('I').integer<std::uint32_t>(1).byte('X').tuple({"1"}).str()),
              HasSubstr("tuple marker 'X' where 'N' belongs"));
  EXPECT_THAT(error_of(Bytes('D').integer<std::uint32_t>(1).byte('N').tuple({"1"}).str()),
              HasSubstr("tuple marker 'N' where 'K' or 'O' belongs"));
}

}  // namespace
}  // namespace brook::internal
