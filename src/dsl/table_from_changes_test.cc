// StreamsBuilder::table_from_changes through the test driver: a table of the rows of a topic of
// Debezium change events (creates, snapshot reads, updates, deletes with their tombstones, a
// primary-key change, a truncate), joined by a stream; malformed events to the handler.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "brook/change_event.h"
#include "brook/kstream.h"
#include "brook/streams_builder.h"
#include "brook/testing/topology_test_driver.h"

namespace brook {
namespace {

using ::testing::ElementsAre;
using testing::TopologyTestDriver;

struct Profile {
  std::int64_t id = 0;
  std::string name;
};
void to_json(nlohmann::json& j, const Profile& p) { j = {{"id", p.id}, {"name", p.name}}; }
void from_json(const nlohmann::json& j, Profile& p) {
  p.id = j.at("id").get<std::int64_t>();
  p.name = j.value("name", "");
}
struct ProfileKey {
  std::int64_t id = 0;
};
void to_json(nlohmann::json& j, const ProfileKey& k) { j = {{"id", k.id}}; }
void from_json(const nlohmann::json& j, ProfileKey& k) { k.id = j.at("id").get<std::int64_t>(); }

// Debezium's key of profile `id`, with its schema part as the JSON converter writes it.
std::string key(std::int64_t id) {
  return R"({"schema":{"type":"struct","fields":[{"type":"int64","optional":false,"field":"id"}],)"
         R"("optional":false,"name":"pg.public.profiles.Key"},"payload":{"id":)" +
         std::to_string(id) + "}}";
}
std::string row(std::int64_t id, const std::string& name) {
  return R"({"id":)" + std::to_string(id) + R"(,"name":")" + name + R"("})";
}
std::string event(const std::string& op, const std::string& before, const std::string& after) {
  return R"({"before":)" + before + R"(,"after":)" + after +
         R"(,"source":{"connector":"postgresql","name":"pg","db":"shop","schema":"public",)"
         R"("table":"profiles","snapshot":"false","ts_ms":1,"txId":7,"lsn":100},"op":")" +
         op + R"(","ts_ms":2})";
}

// Clicks keyed by profile id (as ProfileKey JSON), enriched with the profile's name.
struct TableFromChangesApp {
  explicit TableFromChangesApp(testing::TestDriverConfig config = {})
      : driver(build(), std::move(config)),
        clicks(driver.create_input_topic<ProfileKey, std::string>("clicks")),
        out(driver.create_output_topic<std::int64_t, std::string>("out")) {}
  static Topology build() {
    StreamsBuilder builder;
    auto profiles =
        builder.table_from_changes<ProfileKey, Profile>("pg.public.profiles", {}, {.name = "rows"});
    builder.stream<ProfileKey, std::string>("clicks")
        .join(profiles,
              [](const std::string& page, const Profile& p) { return page + " by " + p.name; })
        .select_key([](const ProfileKey& k, const std::string&) { return k.id; })
        .to("out");
    auto topology = builder.build();
    EXPECT_TRUE(topology) << topology.error().to_string();
    return std::move(*topology);
  }
  void change(std::optional<std::string> k, std::optional<std::string> value) {
    driver.pipe_raw_input("pg.public.profiles", std::move(k), std::move(value), Timestamp(++time));
  }
  void click(std::int64_t id, const std::string& page) {
    clicks.pipe_input(ProfileKey{id}, page, Timestamp(++time));
  }
  std::optional<std::string> name(std::int64_t id) {
    auto store = driver.timestamped_key_value_store<ProfileKey, Profile>("rows");
    auto value = store.get(ProfileKey{id});
    return value ? std::optional(value->value.name) : std::nullopt;
  }
  TopologyTestDriver driver;
  testing::TestInputTopic<ProfileKey, std::string> clicks;
  testing::TestOutputTopic<std::int64_t, std::string> out;
  std::int64_t time = 0;
};

using TableFromChangesOut = KeyValue<std::int64_t, std::string>;

TEST(TableFromChanges, RowsFollowCreatesUpdatesAndDeletesAndEnrichTheClicksAfterThem) {
  TableFromChangesApp app;
  app.change(key(1), event("r", "null", row(1, "ann")));  // the snapshot
  app.change(key(2), event("c", "null", row(2, "bob")));
  app.click(1, "home");
  app.click(2, "home");
  app.change(key(1), event("u", "null", row(1, "anne")));
  app.click(1, "cart");
  // PostgreSQL's default replica identity: the key's columns, nulls for the others.
  app.change(key(2), event("d", R"({"id":2,"name":null})", "null"));
  app.change(key(2), std::nullopt);  // the tombstone after the delete
  app.click(2, "cart");              // no profile any more: the inner join drops it
  EXPECT_THAT(
      app.out.read_key_values_to_list(),
      ElementsAre(TableFromChangesOut{1, "home by ann"}, TableFromChangesOut{2, "home by bob"},
                  TableFromChangesOut{1, "cart by anne"}));
  EXPECT_EQ(app.name(1), "anne");
  EXPECT_EQ(app.name(2), std::nullopt);
}

TEST(TableFromChanges, APrimaryKeyChangeMovesTheRow) {
  TableFromChangesApp app;
  app.change(key(1), event("c", "null", row(1, "ann")));
  // UPDATE profiles SET id = 3 WHERE id = 1: Debezium writes a delete, a tombstone, a create.
  app.change(key(1), event("d", R"({"id":1,"name":null})", "null"));
  app.change(key(1), std::nullopt);
  app.change(key(3), event("c", "null", row(3, "ann")));
  EXPECT_EQ(app.name(1), std::nullopt);
  EXPECT_EQ(app.name(3), "ann");
}

TEST(TableFromChanges, ATruncateHasNoKeyAndIsDroppedAndCounted) {
  TableFromChangesApp app;
  app.change(key(1), event("c", "null", row(1, "ann")));
  app.change(std::nullopt, event("t", "null", "null"));
  EXPECT_EQ(app.name(1), "ann");
  EXPECT_EQ(app.driver.metrics().total("dropped-records-total"), 1);
}

TEST(TableFromChanges, AMalformedEventGoesToTheDeserialisationHandler) {
  TableFromChangesApp app({.errors = {.on_deserialization_error = ErrorAction::kLogAndContinue}});
  app.change(key(1), event("c", "null", row(1, "ann")));
  app.change(key(1), event("c", "null", "null"));            // a create without its row
  app.change(key(1), R"({"op":"u","after":{"name":"x"}})");  // a row without its id
  app.change(key(1), event("u", "null", row(1, "anne")));
  EXPECT_EQ(app.name(1), "anne");
  EXPECT_EQ(app.driver.metrics().total("deserialization-errors-total"), 2);

  TableFromChangesApp failing;
  EXPECT_THROW(failing.change(key(1), event("x", "null", "null")), testing::TaskFailed);
}

TEST(ChangeEventStream, EveryEventWithItsImagesAndTombstonesAsNullopt) {
  StreamsBuilder builder;
  using Event = std::optional<ChangeEvent<Profile>>;
  builder
      .stream<ProfileKey, Event>("pg.public.profiles",
                                 {.key_serde = std::make_shared<DebeziumKeySerde<ProfileKey>>()})
      .map([](const ProfileKey& k, const Event& e) {
        std::string what = !e ? "tombstone"
                           : e->op == ChangeOp::kUpdate
                               ? e->before->name + " -> " + e->after->name
                               : e->source.table + " lsn " + std::to_string(*e->source.lsn);
        return KeyValue<std::int64_t, std::string>{k.id, what};
      })
      .to("out");
  TopologyTestDriver driver(*builder.build());
  auto out = driver.create_output_topic<std::int64_t, std::string>("out");
  driver.pipe_raw_input("pg.public.profiles", key(1), event("c", "null", row(1, "ann")),
                        Timestamp(1));
  driver.pipe_raw_input("pg.public.profiles", key(1), event("u", row(1, "ann"), row(1, "anne")),
                        Timestamp(2));
  driver.pipe_raw_input("pg.public.profiles", key(1), std::nullopt, Timestamp(3));
  EXPECT_THAT(out.read_key_values_to_list(), ElementsAre(TableFromChangesOut{1, "profiles lsn 100"},
                                                         TableFromChangesOut{1, "ann -> anne"},
                                                         TableFromChangesOut{1, "tombstone"}));
}

}  // namespace
}  // namespace brook
