// DebeziumSerde and DebeziumKeySerde on change events as Debezium's PostgreSQL connector writes
// them (JSON converter, with and without the schema part), and on malformed ones.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "brook/change_event.h"

namespace brook {
namespace {

using ::testing::HasSubstr;

// A row of `customers (id SERIAL PRIMARY KEY, first_name, last_name, email)`. The columns other
// than the key may be absent: a delete's `before` holds only the key without REPLICA IDENTITY
// FULL.
struct Customer {
  std::int32_t id = 0;
  std::optional<std::string> first_name, last_name, email;
  friend bool operator==(const Customer&, const Customer&) = default;
};
void to_json(nlohmann::json& j, const Customer& c) {
  j = {{"id", c.id}};
  for (auto [name, field] : {std::pair{"first_name", &c.first_name},
                             std::pair{"last_name", &c.last_name}, std::pair{"email", &c.email}}) {
    j[name] = *field ? nlohmann::json(**field) : nlohmann::json();
  }
}
void from_json(const nlohmann::json& j, Customer& c) {
  c.id = j.at("id").get<std::int32_t>();
  for (auto [name, field] : {std::pair{"first_name", &c.first_name},
                             std::pair{"last_name", &c.last_name}, std::pair{"email", &c.email}}) {
    auto it = j.find(name);
    *field = it == j.end() || it->is_null() ? std::nullopt : std::optional(it->get<std::string>());
  }
}

struct CustomerKey {
  std::int32_t id = 0;
  friend bool operator==(const CustomerKey&, const CustomerKey&) = default;
};
void to_json(nlohmann::json& j, const CustomerKey& k) { j = {{"id", k.id}}; }
void from_json(const nlohmann::json& j, CustomerKey& k) { k.id = j.at("id").get<std::int32_t>(); }

constexpr const char* kSource = R"({"version":"2.5.0.Final","connector":"postgresql",
  "name":"PostgreSQL_server","ts_ms":1559033904863,"snapshot":"false","db":"postgres",
  "sequence":"[\"24023119\",\"24023128\"]","schema":"public","table":"customers",
  "txId":555,"lsn":24023128,"xmin":null})";

std::string payload(const std::string& before, const std::string& after, const std::string& op) {
  return R"({"before":)" + before + R"(,"after":)" + after + R"(,"source":)" + kSource +
         R"(,"op":")" + op + R"(","ts_ms":1559033904863,"transaction":null})";
}
const std::string kAnn =
    R"({"id":1,"first_name":"Anne","last_name":"Kretchmar","email":"annek@noanswer.org"})";
const std::string kAnnMarie =
    R"({"id":1,"first_name":"Anne Marie","last_name":"Kretchmar","email":"annek@noanswer.org"})";
const Customer kAnnRow{1, "Anne", "Kretchmar", "annek@noanswer.org"};
const Customer kAnnMarieRow{1, "Anne Marie", "Kretchmar", "annek@noanswer.org"};

ChangeEvent<Customer> read(const std::string& bytes) {
  auto event = DebeziumSerde<Customer>().deserialize(bytes);
  EXPECT_TRUE(event) << event.error().to_string();
  return event ? *event : ChangeEvent<Customer>{};
}

std::string read_error(const std::string& bytes) {
  auto event = DebeziumSerde<Customer>().deserialize(bytes);
  EXPECT_FALSE(event) << bytes;
  if (event) return "";
  EXPECT_EQ(event.error().code(), StatusCode::kCorruption);
  return event.error().message();
}

TEST(DebeziumSerde, ACreateCarriesTheRowAfterAndWhereItWasMade) {
  const auto event = read(payload("null", kAnn, "c"));
  EXPECT_EQ(event.op, ChangeOp::kCreate);
  EXPECT_EQ(event.before, std::nullopt);
  EXPECT_EQ(event.after, kAnnRow);
  EXPECT_EQ(event.row(), kAnnRow);
  EXPECT_EQ(event.source, (ChangeSource{.connector = "postgresql",
                                        .name = "PostgreSQL_server",
                                        .db = "postgres",
                                        .schema = "public",
                                        .table = "customers",
                                        .snapshot = "false",
                                        .ts_ms = 1559033904863,
                                        .lsn = 24023128,
                                        .tx_id = 555}));
  EXPECT_EQ(event.ts_ms, 1559033904863);
}

TEST(DebeziumSerde, TheSchemaPartIsSkippedWhenPresent) {
  const std::string wrapped =
      R"({"schema":{"type":"struct","fields":[],"optional":false,
          "name":"PostgreSQL_server.public.customers.Envelope"},"payload":)" +
      payload("null", kAnn, "c") + "}";
  EXPECT_EQ(read(wrapped), read(payload("null", kAnn, "c")));
}

TEST(DebeziumSerde, AnUpdateHasTheOldRowOnlyWithReplicaIdentityFull) {
  const auto by_default = read(payload("null", kAnnMarie, "u"));
  EXPECT_EQ(by_default.op, ChangeOp::kUpdate);
  EXPECT_EQ(by_default.before, std::nullopt);
  EXPECT_EQ(by_default.row(), kAnnMarieRow);
  const auto full = read(payload(kAnn, kAnnMarie, "u"));
  EXPECT_EQ(full.before, kAnnRow);
  EXPECT_EQ(full.row(), kAnnMarieRow);
}

TEST(DebeziumSerde, ADeleteLeavesNoRowAndKeepsWhatItDeleted) {
  const auto key_only = read(payload(R"({"id":1})", "null", "d"));
  EXPECT_EQ(key_only.op, ChangeOp::kDelete);
  EXPECT_EQ(key_only.before, Customer{.id = 1});
  EXPECT_EQ(key_only.after, std::nullopt);
  EXPECT_EQ(key_only.row(), std::nullopt);
  EXPECT_EQ(read(payload(kAnn, "null", "d")).before, kAnnRow);  // REPLICA IDENTITY FULL
}

// A row type without optional fields cannot read a default replica identity's delete:
// kAfterOnly, what tables use, does not read `before`.
TEST(DebeziumSerde, AfterOnlyDoesNotReadTheBeforeImage) {
  const std::string key_only = R"({"before":{"id":1,"name":null},"after":null,"op":"d"})";
  auto strict = DebeziumSerde<std::map<std::string, std::string>>().deserialize(key_only);
  ASSERT_FALSE(strict);
  EXPECT_THAT(strict.error().message(), HasSubstr("from 'before'"));
  using AfterOnly = DebeziumSerde<std::map<std::string, std::string>>;
  auto event = AfterOnly(AfterOnly::Images::kAfterOnly).deserialize(key_only);
  ASSERT_TRUE(event) << event.error().to_string();
  EXPECT_EQ(event->op, ChangeOp::kDelete);
  EXPECT_EQ(event->before, std::nullopt);
  EXPECT_EQ(event->row(), std::nullopt);
  const auto update = AfterOnly(AfterOnly::Images::kAfterOnly)
                          .deserialize(R"({"before":{"id":"1"},"after":{"id":"2"},"op":"u"})");
  ASSERT_TRUE(update);
  EXPECT_EQ(update->before, std::nullopt);
  EXPECT_EQ(update->after, (std::map<std::string, std::string>{{"id", "2"}}));
}

TEST(DebeziumSerde, SnapshotReadsAndTruncatesAreTold) {
  auto snapshot = payload("null", kAnn, "r");
  snapshot.replace(snapshot.find(R"("snapshot":"false")"), 18, R"("snapshot":"last")");
  const auto read_event = read(snapshot);
  EXPECT_EQ(read_event.op, ChangeOp::kRead);
  EXPECT_EQ(read_event.source.snapshot, "last");
  EXPECT_EQ(read_event.row(), kAnnRow);
  const auto truncate = read(payload("null", "null", "t"));
  EXPECT_EQ(truncate.op, ChangeOp::kTruncate);
  EXPECT_EQ(truncate.row(), std::nullopt);
}

TEST(DebeziumSerde, OldConnectorsBooleanSnapshotFlagIsRead) {
  auto event = payload("null", kAnn, "c");
  event.replace(event.find(R"("snapshot":"false")"), 18, R"("snapshot":true)");
  EXPECT_EQ(read(event).source.snapshot, "true");
}

TEST(DebeziumSerde, WritesThePayloadItReadsBack) {
  const auto event = read(payload(kAnn, kAnnMarie, "u"));
  auto bytes = DebeziumSerde<Customer>().serialize(event);
  ASSERT_TRUE(bytes) << bytes.error().to_string();
  EXPECT_EQ(read(*bytes), event);
  const auto written = nlohmann::json::parse(*bytes);
  EXPECT_EQ(written["op"], "u");
  EXPECT_EQ(written["source"]["lsn"], 24023128);
  EXPECT_EQ(written["after"]["first_name"], "Anne Marie");
}

TEST(DebeziumSerde, MalformedEnvelopesAreErrorsNamingWhatIsWrong) {
  EXPECT_THAT(read_error("{not json"), HasSubstr("not valid JSON"));
  EXPECT_THAT(read_error("[1,2]"), HasSubstr("the payload is not a JSON object"));
  EXPECT_THAT(read_error(R"({"after":{"id":1}})"), HasSubstr("no 'op'"));
  EXPECT_THAT(read_error(payload("null", kAnn, "x")), HasSubstr("unknown op x"));
  EXPECT_THAT(read_error(payload("null", "null", "c")),
              HasSubstr("op 'c' without the row after it ('after')"));
  EXPECT_THAT(read_error(payload("null", "null", "u")), HasSubstr("op 'u' without"));
  EXPECT_THAT(read_error(payload("null", "[1]", "c")), HasSubstr("'after' is not an object"));
  EXPECT_THAT(read_error(payload("null", R"({"first_name":"no id"})", "c")),
              HasSubstr("cannot read"));
  EXPECT_THAT(read_error(payload("null", R"({"first_name":"no id"})", "c")),
              HasSubstr("from 'after'"));
  EXPECT_THAT(read_error(payload("null", R"({"id":1e12})", "c")), HasSubstr("'id'"));
  auto bad_lsn = payload("null", kAnn, "c");
  bad_lsn.replace(bad_lsn.find(R"("lsn":24023128)"), 14, R"("lsn":"24023128")");
  EXPECT_THAT(read_error(bad_lsn), HasSubstr("'source.lsn' is not an integer"));
}

TEST(DebeziumKeySerde, ReadsThePrimaryKeyWithOrWithoutItsSchema) {
  DebeziumKeySerde<CustomerKey> serde;
  auto plain = serde.deserialize(R"({"id":1005})");
  ASSERT_TRUE(plain) << plain.error().to_string();
  EXPECT_EQ(*plain, CustomerKey{1005});
  auto wrapped = serde.deserialize(
      R"({"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],
          "optional":false,"name":"PostgreSQL_server.public.customers.Key"},
          "payload":{"id":1005}})");
  ASSERT_TRUE(wrapped) << wrapped.error().to_string();
  EXPECT_EQ(*wrapped, CustomerKey{1005});
  EXPECT_EQ(*serde.serialize(CustomerKey{7}), R"({"id":7})");
  auto bad = serde.deserialize("17");
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message(), HasSubstr("not a JSON object of the primary key's columns"));
  auto wrong = serde.deserialize(R"({"uuid":"x"})");
  ASSERT_FALSE(wrong);
  EXPECT_THAT(wrong.error().message(), HasSubstr("cannot read the key as"));
}

}  // namespace
}  // namespace brook
