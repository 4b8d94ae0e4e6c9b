// Stream time across restarts, on both logs and under both guarantees: partition times are
// committed with the input offsets (in the commit metadata, as Kafka Streams keeps them) and
// come back when a task is created, so that a record too late before a restart is still too
// late after it.
#include <gmock/gmock.h>

#include <tuple>

#include "app_waits.h"
#include "backend_under_test.h"
#include "brook/kstream.h"
#include "brook/serde.h"
#include "brook/streams.h"
#include "brook/streams_builder.h"

namespace brook::testing {
namespace {

using namespace std::chrono_literals;

// Counts per key of `in` in 1 s windows with 100 ms grace, to `out` keyed
// "<key>@<window start>".
Topology late_counts_topology(const std::string& in, const std::string& out) {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>(in)
      .group_by_key()
      .windowed_by(TimeWindows::of_size_and_grace(1s, 100ms))
      .count({.name = "counts"})
      .to_stream()
      .map([](const Windowed<std::string>& k, const std::optional<std::int64_t>& v) {
        return KeyValue<std::string, std::int64_t>{
            k.key + "@" + std::to_string(k.window.start.value()), v.value_or(-1)};
      })
      .to(out);
  return *builder.build();
}

// Parameters: the backend and processing.guarantee.
class StreamTimeContractTest
    : public OnBackend,
      public ::testing::WithParamInterface<std::tuple<Backend, std::string>> {
 protected:
  Backend backend() const override { return std::get<0>(GetParam()); }

  void SetUp() override {
    create_topic(in_, 1);
    create_topic(out_, 1);
  }

  // Writes records of key "k" with these timestamps to the input.
  void produce_at(const std::vector<std::int64_t>& timestamps) {
    with_log([&](internal::LogBackend& log) {
      auto producer = log.make_producer({.client_id = "test"});
      ASSERT_TRUE(producer) << producer.error().to_string();
      for (std::int64_t t : timestamps) {
        const Status s =
            (*producer)->send({.topic = in_, .timestamp = Timestamp(t), .key = "k", .value = "v"});
        ASSERT_TRUE(s.ok()) << s.to_string();
      }
      const Status s = (*producer)->flush();
      ASSERT_TRUE(s.ok()) << s.to_string();
    });
  }

  // Runs the application until it has processed and committed everything; its
  // dropped-records total.
  std::int64_t run() {
    Streams app(late_counts_topology(in_, out_),
                streams_config(app_, {{"processing.guarantee", std::get<1>(GetParam())}}));
    EXPECT_TRUE(app.start().ok());
    EXPECT_EQ(app.wait_for_state(Streams::State::kRunning, 60s).to_string(), "OK");
    wait_until_idle(app);
    const std::int64_t dropped = app.metrics().total("dropped-records-total");
    EXPECT_TRUE(app.close().ok());
    return dropped;
  }

  const std::string in_ = name("late-in");
  const std::string out_ = name("late-out");
  const std::string app_ = name("late-app");
};

TEST_P(StreamTimeContractTest, ARecordTooLateBeforeARestartIsStillTooLateAfterIt) {
  // Times from a window boundary a minute ago: recent enough that no time retention deletes
  // the records while the test runs (a broker deletes records dated 1970 within seconds).
  const std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  const std::int64_t base = now - now % 1000 - 60'000;
  auto window = [&](std::int64_t start) { return "k@" + std::to_string(base + start); };
  produce_at({base + 5000});
  EXPECT_EQ(run(), 0);  // stream time base + 5000: windows ending by base + 4900 are closed
  EXPECT_EQ(run(), 0) << "a run with nothing to process commits the partition time again";
  produce_at({base + 1000, base + 4950});
  EXPECT_EQ(run(), 1) << "1000 is too late for its window [1000, 2000), 4950 is in grace";
  EXPECT_EQ(latest_counts(out_),
            (std::map<std::string, std::int64_t>{{window(4000), 1}, {window(5000), 1}}));
}

INSTANTIATE_TEST_SUITE_P(BothBackends, StreamTimeContractTest,
                         ::testing::Combine(::testing::Values(Backend::kEmbedded, Backend::kKafka),
                                            ::testing::Values("at_least_once", "exactly_once_v2")),
                         [](const auto& test) {
                           return to_string(std::get<0>(test.param)) +
                                  std::string(std::get<1>(test.param) == "at_least_once"
                                                  ? "AtLeastOnce"
                                                  : "ExactlyOnceV2");
                         });

}  // namespace
}  // namespace brook::testing
