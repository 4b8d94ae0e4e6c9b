#include "runtime/read_ahead.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "brook/internal/window_keys.h"
#include "brook/kstream.h"
#include "brook/streams_builder.h"
#include "brook/windowed_kstream.h"
#include "state/forwarding_store.h"
#include "state/in_memory_store.h"

namespace brook::internal {
namespace {

using namespace std::chrono_literals;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;
using Step = KeyValueBytesStore::PrefetchStep;

// Records the hints it is given.
class HintedStore final : public ForwardingStore {
 public:
  HintedStore() : ForwardingStore(std::make_unique<InMemoryStore>("hinted")) {}
  void prefetch(std::string_view key, PrefetchStep step) const override {
    hints.emplace_back(std::string(key), step);
  }
  mutable std::vector<std::pair<std::string, Step>> hints;
};

ConsumedRecord record(std::optional<std::string_view> key, std::int64_t timestamp) {
  return {.offset = Offset(0), .timestamp = Timestamp(timestamp), .key = key, .value = "v"};
}

StoreSpec spec(StoreSpec::ReadBy read_by, std::chrono::milliseconds size = 0ms,
               std::chrono::milliseconds advance = 0ms) {
  return {.name = "s", .window_size = size, .read_by = read_by, .window_advance = advance};
}

TEST(ReadAhead, HintsARecordKeyStoreWithTheRecordsKey) {
  HintedStore store;
  ReadAhead ahead;
  ahead.add(spec(StoreSpec::ReadBy::kRecordKey), store);
  ahead.hint(record("k1", 5), Step::kSlot);
  ahead.hint(record("k2", 6), Step::kEntry);
  EXPECT_THAT(store.hints, ElementsAre(Pair("k1", Step::kSlot), Pair("k2", Step::kEntry)));
}

TEST(ReadAhead, HintsTheKeyOfEveryWindowHoldingTheTimestamp) {
  HintedStore store;
  ReadAhead ahead;
  ahead.add(spec(StoreSpec::ReadBy::kTimeWindows, 60s, 10s), store);
  ahead.hint(record("k", 65'000), Step::kSlot);
  std::vector<std::pair<std::string, Step>> expected;
  for (const Window& w :
       TimeWindows::of_size_with_no_grace(60s).advance_by(10s).windows_for(Timestamp(65'000))) {
    expected.emplace_back(window_key("k", w.start, 0), Step::kSlot);
  }
  ASSERT_EQ(expected.size(), 6u);
  EXPECT_EQ(store.hints, expected);
}

TEST(ReadAhead, HintsNothingItCannotName) {
  HintedStore store;
  ReadAhead ahead;
  ahead.add(spec(StoreSpec::ReadBy::kUnknown), store);
  ahead.add(spec(StoreSpec::ReadBy::kTimeWindows, 60s, 0ms), store);
  EXPECT_TRUE(ahead.empty());

  ahead.add(spec(StoreSpec::ReadBy::kTimeWindows, 60s, 60s), store);
  ahead.hint(record(std::nullopt, 5), Step::kSlot);  // no key
  ahead.hint(record("k", -1), Step::kSlot);          // no window holds it
  EXPECT_THAT(store.hints, IsEmpty());
}

// What the DSL says its stores read.
TEST(ReadAhead, TheDslNamesTheKeysItsAggregationsRead) {
  StreamsBuilder builder;
  auto grouped = builder.stream<std::string, std::string>("in").group_by_key();
  grouped.count({.name = "counts"});
  grouped.windowed_by(TimeWindows::of_size_with_no_grace(60s).advance_by(10s))
      .count({.name = "hopping"});
  grouped.windowed_by(SlidingWindows::of_time_difference_with_no_grace(10s))
      .count({.name = "sliding"});
  grouped.windowed_by(SessionWindows::of_inactivity_gap_with_no_grace(10s))
      .count({.name = "sessions"});
  const auto topology = builder.build();
  ASSERT_TRUE(topology.has_value()) << topology.error().message();
  const TopologyData& data = topology_data(*topology);

  EXPECT_EQ(data.store("counts")->read_by, StoreSpec::ReadBy::kRecordKey);
  const StoreSpec& hopping = *data.store("hopping");
  EXPECT_EQ(hopping.read_by, StoreSpec::ReadBy::kTimeWindows);
  EXPECT_EQ(hopping.window_size, 60s);
  EXPECT_EQ(hopping.window_advance, 10s);
  EXPECT_EQ(data.store("sliding")->read_by, StoreSpec::ReadBy::kUnknown);
  EXPECT_EQ(data.store("sessions")->read_by, StoreSpec::ReadBy::kUnknown);
}

}  // namespace
}  // namespace brook::internal
