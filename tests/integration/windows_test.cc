// Windowed aggregations on the real runtime over the embedded log: a restart in the middle of
// a window keeps its result, and the suppression buffer's held results, whether the stores
// come back from RocksDB or are rebuilt from their changelogs.
#include <gmock/gmock.h>

#include <map>
#include <mutex>
#include <set>

#include "brook/kstream.h"
#include "brook/streams_builder.h"
#include "embedded_fixture.h"

namespace brook::testing {
namespace {

using namespace std::chrono_literals;

constexpr int kKeys = 10;

// How the final results are made: suppress(until_window_closes()) behind the count, or a
// second count with emit_strategy(kOnWindowClose).
enum class FinalBy { kSuppress, kEmitStrategy };
struct Setup {
  StoreType store;
  FinalBy final_by;
};

// The store holding the final results until their windows close.
std::string buffer_store(const Setup& setup) {
  return setup.final_by == FinalBy::kSuppress ? "final-store" : "final-emit-on-window-close-store";
}

// Counts per key in 1 s windows without grace; every update to "out", final results to
// "final", both keyed "<key>@<window start>".
Topology windowed_counts(const Setup& setup) {
  StreamsBuilder builder;
  auto windowed = builder.stream<std::string, std::string>("in").group_by_key().windowed_by(
      TimeWindows::of_size_with_no_grace(1s));
  auto counts = windowed.count({.name = "counts", .type = setup.store});
  auto label = [](const Windowed<std::string>& k, const std::optional<std::int64_t>& v) {
    return KeyValue<std::string, std::int64_t>{k.key + "@" + std::to_string(k.window.start.value()),
                                               v.value_or(-1)};
  };
  counts.to_stream().map(label).to("out");
  auto finals = setup.final_by == FinalBy::kSuppress
                    ? counts.suppress(Suppressed::until_window_closes().with_name("final"))
                    : windowed.emit_strategy(EmitStrategy::kOnWindowClose)
                          .count({.name = "final", .type = setup.store});
  finals.to_stream().map(label).to("final");
  return std::move(*builder.build());
}

class RestoresPerStore final : public StateRestoreListener {
 public:
  void on_restore_end(const std::string& store, TaskId, std::int64_t records) override {
    std::lock_guard lock(mutex);
    restored[store] += records;
  }
  std::mutex mutex;
  std::map<std::string, std::int64_t> restored;
};

class WindowsTest : public EmbeddedFixture, public ::testing::WithParamInterface<Setup> {
 protected:
  void SetUp() override { create_topics({{"in", 2}, {"out", 2}, {"final", 2}}); }

  // One record per key k0 ... k<keys - 1> at each time in [from, to).
  void produce_at(std::int64_t from, std::int64_t to, int keys = kKeys) {
    with_log([&](internal::EmbeddedLog& log) {
      auto producer = std::move(*log.make_producer({}));
      for (std::int64_t t = from; t < to; ++t) {
        for (int k = 0; k < keys; ++k) {
          ASSERT_TRUE(producer
                          ->send({.topic = "in",
                                  .timestamp = Timestamp(t),
                                  .key = "k" + std::to_string(k),
                                  .value = "v"})
                          .ok());
        }
      }
      ASSERT_TRUE(producer->flush().ok());
    });
  }

  // Runs the application until it has processed everything; the records each store restored.
  std::map<std::string, std::int64_t> run() {
    Streams app(windowed_counts(GetParam()), config({{"application.id", "windows"}}));
    auto listener = std::make_shared<RestoresPerStore>();
    run_to_idle(app, listener);
    return listener->restored;
  }

  // Every record of `topic` as "<key>=<count>", in the order written per partition.
  std::multiset<std::string> records(const std::string& topic) {
    std::multiset<std::string> out;
    for (const auto& r : read_all(topic)) {
      out.insert(*r.key + "=" + std::to_string(*Int64Serde().deserialize(*r.value)));
    }
    return out;
  }
  // The newest count per key of `topic`.
  std::map<std::string, std::int64_t> latest(const std::string& topic) {
    std::map<std::string, std::int64_t> out;
    for (const auto& r : read_all(topic)) out[*r.key] = *Int64Serde().deserialize(*r.value);
    return out;
  }
};

TEST_P(WindowsTest, ARestartInTheMiddleOfAWindowKeepsItsResultAndTheHeldFinalResults) {
  produce_at(0, 50);  // the first half of window [0, 1000)
  run();
  EXPECT_TRUE(records("final").empty());

  produce_at(950, 1000, kKeys / 2);  // the second half for half the keys, after a restart
  auto restored = run();
  EXPECT_GE(restored[buffer_store(GetParam())], kKeys)
      << "the held results come back from the changelog";
  if (GetParam().store == StoreType::kRocksDb) {
    EXPECT_EQ(restored["counts"], 0) << "RocksDB keeps the windows across a clean restart";
  } else {
    EXPECT_GE(restored["counts"], kKeys) << "the windows are rebuilt from their changelog";
  }
  EXPECT_TRUE(records("final").empty()) << "the window has not closed yet";

  produce_at(1000, 1001);  // stream time reaches the window's end: it closes
  run();
  std::map<std::string, std::int64_t> expected_out;
  std::multiset<std::string> expected_final;
  for (int k = 0; k < kKeys; ++k) {
    const std::string key = "k" + std::to_string(k);
    const std::int64_t count = k < kKeys / 2 ? 100 : 50;
    expected_out[key + "@0"] = count;
    expected_out[key + "@1000"] = 1;
    expected_final.insert(key + "@0=" + std::to_string(count));
  }
  EXPECT_EQ(latest("out"), expected_out);
  // The keys without records after the first restart were held by the buffer throughout.
  EXPECT_EQ(records("final"), expected_final) << "one final result per window, once";
}

INSTANTIATE_TEST_SUITE_P(
    Stores, WindowsTest,
    ::testing::Values(Setup{StoreType::kRocksDb, FinalBy::kSuppress},
                      Setup{StoreType::kInMemory, FinalBy::kSuppress},
                      Setup{StoreType::kRocksDb, FinalBy::kEmitStrategy},
                      Setup{StoreType::kInMemory, FinalBy::kEmitStrategy}),
    [](const auto& setup) {
      return std::string(setup.param.store == StoreType::kRocksDb ? "RocksDb" : "InMemory") +
             (setup.param.final_by == FinalBy::kSuppress ? "Suppress" : "EmitStrategy");
    });

}  // namespace
}  // namespace brook::testing
