// The typed window and session store facades (brook/window_store.h) over a segmented store,
// and the windowed serdes (brook/windowed_serde.h).
#include "brook/window_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "state/in_memory_store.h"
#include "state/segmented_store.h"

namespace brook {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

std::unique_ptr<internal::KeyValueBytesStore> segmented(internal::StoreKind kind) {
  return std::make_unique<internal::SegmentedStore>(std::make_unique<internal::InMemoryStore>("w"),
                                                    kind, 1h, 10min);
}

SerdePtr<std::string> strings() { return std::make_shared<const StringSerde>(); }
SerdePtr<std::int64_t> longs() { return std::make_shared<const Int64Serde>(); }

Timestamp ts(std::int64_t t) { return Timestamp(t); }

TEST(WindowStore, KeysSharingAPrefixAreNotConfused) {
  auto bytes = segmented(internal::StoreKind::kWindow);
  WindowStore<std::string, std::int64_t> store(*bytes, strings(), longs(), 10ms, false);
  store.put("a", 1, ts(100));
  store.put("ab", 2, ts(100));
  store.put("a", 3, ts(110));
  store.put("", 4, ts(100));
  EXPECT_EQ(store.fetch("a", ts(100)), 1);
  EXPECT_EQ(store.fetch("ab", ts(100)), 2);
  EXPECT_EQ(store.fetch("ab", ts(110)), std::nullopt);
  EXPECT_EQ(store.fetch("a", ts(0), ts(1000)),
            (std::vector<std::pair<Timestamp, std::int64_t>>{{ts(100), 1}, {ts(110), 3}}));
  EXPECT_EQ(store.fetch("ab", ts(0), ts(1000)),
            (std::vector<std::pair<Timestamp, std::int64_t>>{{ts(100), 2}}));
  EXPECT_EQ(store.fetch("", ts(0), ts(1000)),
            (std::vector<std::pair<Timestamp, std::int64_t>>{{ts(100), 4}}));
}

TEST(WindowStore, FetchRangesAreInclusiveAndWindowsEndAfterTheirSize) {
  auto bytes = segmented(internal::StoreKind::kWindow);
  WindowStore<std::string, std::int64_t> store(*bytes, strings(), longs(), 10ms, false);
  for (std::int64_t t : {100, 110, 120, 130}) store.put("k", t, ts(t));
  store.put("other", 7, ts(120));
  store.put("k", 111, ts(110));  // replaces
  EXPECT_EQ(store.fetch("k", ts(110), ts(120)),
            (std::vector<std::pair<Timestamp, std::int64_t>>{{ts(110), 111}, {ts(120), 120}}));
  EXPECT_TRUE(store.fetch("k", ts(121), ts(129)).empty());
  EXPECT_TRUE(store.fetch("k", ts(120), ts(110)).empty());

  auto window = [](std::int64_t start) { return Window{ts(start), ts(start + 10)}; };
  auto all_in = store.fetch_all(ts(120), ts(130));
  ASSERT_EQ(all_in.size(), 3u);
  EXPECT_EQ(all_in[0].key, (Windowed<std::string>{"k", window(120)}));
  EXPECT_EQ(all_in[1].key, (Windowed<std::string>{"k", window(130)}));
  EXPECT_EQ(all_in[2].key, (Windowed<std::string>{"other", window(120)}));
  EXPECT_EQ(all_in[2].value, 7);
  EXPECT_EQ(store.all().size(), 5u);

  store.remove("k", ts(110));
  EXPECT_EQ(store.fetch("k", ts(110)), std::nullopt);
  EXPECT_EQ(store.all().size(), 4u);
}

TEST(WindowStore, RetainedDuplicatesComeBackInInsertionOrder) {
  auto bytes = segmented(internal::StoreKind::kWindow);
  WindowStore<std::string, std::int64_t> store(*bytes, strings(), longs(), 10ms, true);
  store.put("k", 3, ts(100));
  store.put("k", 1, ts(100));
  store.put("k", 2, ts(100));
  store.put("kk", 9, ts(100));
  store.put("k", 5, ts(105));
  EXPECT_EQ(store.fetch("k", ts(100), ts(105)),
            (std::vector<std::pair<Timestamp, std::int64_t>>{
                {ts(100), 3}, {ts(100), 1}, {ts(100), 2}, {ts(105), 5}}));
  EXPECT_EQ(store.fetch("k", ts(100)), 3);  // the first one
  store.remove("k", ts(100));               // every value of the window
  EXPECT_EQ(store.fetch("k", ts(100), ts(105)),
            (std::vector<std::pair<Timestamp, std::int64_t>>{{ts(105), 5}}));
  EXPECT_EQ(store.fetch("kk", ts(100)), 9);
}

TEST(WindowStore, DuplicatesAddedAfterARestartOrARemoveKeepInsertionOrder) {
  auto bytes = segmented(internal::StoreKind::kWindow);
  {
    WindowStore<std::string, std::int64_t> before(*bytes, strings(), longs(), 10ms, true);
    before.put("k", 1, ts(100));
    before.put("j", 7, ts(100));
    before.put("k", 2, ts(100));
  }
  // A new facade (the task restarted) probes past the values already there.
  WindowStore<std::string, std::int64_t> store(*bytes, strings(), longs(), 10ms, true);
  store.put("k", 3, ts(100));
  store.put("k", 4, ts(100));
  EXPECT_EQ(store.fetch("k", ts(100), ts(100)),
            (std::vector<std::pair<Timestamp, std::int64_t>>{
                {ts(100), 1}, {ts(100), 2}, {ts(100), 3}, {ts(100), 4}}));
  store.remove("k", ts(100));
  store.put("k", 5, ts(100));  // starts afresh: the first value again
  EXPECT_EQ(store.fetch("k", ts(100)), 5);
  EXPECT_EQ(store.fetch("j", ts(100)), 7);
}

TEST(WindowStore, ExpiredWindowsAreNotReturned) {
  auto bytes = segmented(internal::StoreKind::kWindow);  // 1 h retention, 10 min segments
  WindowStore<std::string, std::int64_t> store(*bytes, strings(), longs(), 10ms, false);
  store.put("k", 1, ts(0));
  store.put("k", 2, ts(2 * 3600 * 1000));
  store.put("k", 3, ts(0));  // expired: ignored
  EXPECT_EQ(store.fetch("k", ts(0)), std::nullopt);
  EXPECT_EQ(store.all().size(), 1u);
}

TEST(SessionStore, FindsSessionsOverlappingARangeInEndOrder) {
  auto bytes = segmented(internal::StoreKind::kSession);
  SessionStore<std::string, std::int64_t> store(*bytes, strings(), longs());
  auto session = [](std::string key, std::int64_t start, std::int64_t end) {
    return Windowed<std::string>{std::move(key), {ts(start), ts(end)}};
  };
  store.put(session("a", 10, 20), 1);
  store.put(session("a", 30, 30), 2);
  store.put(session("a", 5, 50), 3);
  store.put(session("ab", 10, 20), 4);
  EXPECT_EQ(store.fetch_session("a", ts(10), ts(20)), 1);
  EXPECT_EQ(store.fetch_session("a", ts(10), ts(21)), std::nullopt);

  auto keys = [](const std::vector<KeyValue<Windowed<std::string>, std::int64_t>>& sessions) {
    std::vector<std::int64_t> values;
    for (const auto& s : sessions) values.push_back(s.value);
    return values;
  };
  EXPECT_EQ(keys(store.fetch("a")), (std::vector<std::int64_t>{1, 2, 3}));  // ends 20, 30, 50
  EXPECT_EQ(keys(store.fetch("ab")), (std::vector<std::int64_t>{4}));
  // end >= 20 and start <= 25: [10, 20] and [5, 50], not [30, 30].
  EXPECT_EQ(keys(store.find_sessions("a", ts(20), ts(25))), (std::vector<std::int64_t>{1, 3}));
  EXPECT_EQ(keys(store.find_sessions("a", ts(21), ts(30))), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(store.find_sessions("a", ts(21), ts(30))[0].key, session("a", 30, 30));

  store.remove(session("a", 30, 30));
  EXPECT_EQ(keys(store.fetch("a")), (std::vector<std::int64_t>{1, 3}));
}

TEST(TypedWindowStore, ChecksTheKindAndTypesNamingTheStore) {
  auto bytes = segmented(internal::StoreKind::kWindow);
  auto spec = internal::StoreSpec::make<std::string, std::int64_t>("w", StoreType::kInMemory, true,
                                                                   true, strings(), longs());
  spec.kind = internal::StoreKind::kWindow;
  spec.window_size = 5ms;
  internal::StoreAccess access{*bytes, spec};
  auto store = internal::typed_window_store<std::string, std::int64_t>(access);
  store.put("k", 1, ts(10));
  EXPECT_EQ(store.fetch_all(ts(0), ts(100))[0].key.window.end, ts(15));
  EXPECT_THROW((internal::typed_window_store<std::string, std::string>(access)),
               std::invalid_argument);
  try {
    internal::typed_session_store<std::string, std::int64_t>(access);
    FAIL() << "a window store opened as a session store";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("store w is a window store, not a session store"));
  }
  EXPECT_THROW((internal::typed_store<std::string, std::int64_t>(access)), std::invalid_argument);
}

TEST(WindowedSerde, TimeWindowedRoundTripsWithTheGivenSize) {
  TimeWindowedSerde<std::string> serde(strings(), 100ms);
  const Windowed<std::string> w{"key", {ts(1000), ts(1100)}};
  auto bytes = serde.serialize(w);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(*bytes, std::string("key") + std::string("\0\0\0\0\0\0\x03\xe8", 8));
  EXPECT_EQ(serde.deserialize(*bytes).value(), w);
}

TEST(WindowedSerde, AnEndPastTheLargestTimestampIsTheLargest) {
  TimeWindowedSerde<std::string> serde(strings(), 100ms);
  const auto largest = std::numeric_limits<std::int64_t>::max();
  const Windowed<std::string> w{"key", {ts(largest - 10), ts(largest)}};
  auto bytes = serde.serialize(w);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(serde.deserialize(*bytes).value(), w);
}

TEST(WindowedSerde, SessionWindowedRoundTripsEndThenStart) {
  SessionWindowedSerde<std::int64_t> serde(longs());
  const Windowed<std::int64_t> w{42, {ts(5), ts(9)}};
  auto bytes = serde.serialize(w);
  ASSERT_TRUE(bytes);
  ASSERT_EQ(bytes->size(), 24u);
  EXPECT_EQ(bytes->substr(8, 8), std::string("\0\0\0\0\0\0\0\x09", 8));
  EXPECT_EQ(bytes->substr(16), std::string("\0\0\0\0\0\0\0\x05", 8));
  EXPECT_EQ(serde.deserialize(*bytes).value(), w);
}

TEST(WindowedSerde, MalformedBytesSayWhatIsWrong) {
  TimeWindowedSerde<std::string> time(strings(), 10ms);
  auto short_time = time.deserialize("1234567");
  ASSERT_FALSE(short_time);
  EXPECT_EQ(short_time.error().code(), StatusCode::kCorruption);
  EXPECT_THAT(short_time.error().message(),
              HasSubstr("time-windowed string: 7 bytes are too short"));

  SessionWindowedSerde<std::string> session(strings());
  auto short_session = session.deserialize(std::string(15, 'x'));
  ASSERT_FALSE(short_session);
  EXPECT_THAT(short_session.error().message(),
              HasSubstr("session-windowed string: 15 bytes are too short"));

  // The inner serde's failure comes through: an int64 key of 3 bytes.
  SessionWindowedSerde<std::int64_t> longs_session(longs());
  EXPECT_FALSE(longs_session.deserialize(std::string(19, '\0')));
}

TEST(WindowedSerde, DefaultIsTimeWindowedOverTheKeysDefaultWithTheEndAtTheStart) {
  auto serde = default_serde<Windowed<std::string>>();
  ASSERT_NE(serde, nullptr);
  auto bytes = serde->serialize({"k", {ts(7), ts(17)}});
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bytes->size(), 9u);
  EXPECT_EQ(serde->deserialize(*bytes).value(), (Windowed<std::string>{"k", {ts(7), ts(7)}}));
  struct NoSerde {};
  EXPECT_EQ(default_serde<Windowed<NoSerde>>(), nullptr);
}

}  // namespace
}  // namespace brook
