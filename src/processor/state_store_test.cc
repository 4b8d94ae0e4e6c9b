// State stores in the Processor API: declared with add_state_store(), connected with
// Processed{.stores}, opened typed from the context.
#include "brook/state_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "brook/streams_builder.h"
#include "brook/testing/topology_test_driver.h"

namespace brook {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TaskFailed;
using testing::TopologyTestDriver;

using StringProcessor = Processor<std::string, std::string, std::string, std::string>;

// Remembers the longest value per key and forwards it whenever it grows.
class LongestValue final : public StringProcessor {
 public:
  explicit LongestValue(std::string store) : store_name_(std::move(store)) {}
  void init(ProcessorContext<std::string, std::string>& context) override {
    Processor::init(context);
    store_.emplace(context.key_value_store<std::string, std::string>(store_name_));
  }
  void process(Record<std::string, std::string> r) override {
    auto longest = store_->get(r.key);
    if (longest && longest->size() >= r.value.size()) return;
    store_->put(r.key, r.value);
    context().forward(std::move(r));
  }

 private:
  std::string store_name_;
  std::optional<KeyValueStore<std::string, std::string>> store_;
};

// Opens the store "longest" as if it held counts.
class CountReader final : public StringProcessor {
 public:
  void init(ProcessorContext<std::string, std::string>& context) override {
    context.key_value_store<std::string, std::int64_t>("longest");
  }
  void process(Record<std::string, std::string>) override {}
};

Topology longest_topology(StoreType type, std::vector<std::string> connected = {"longest"}) {
  StreamsBuilder builder;
  builder.add_state_store<std::string, std::string>({.name = "longest", .type = type});
  builder.stream<std::string, std::string>("in")
      .process([] { return std::make_unique<LongestValue>("longest"); },
               {.name = "keep-longest", .stores = std::move(connected)})
      .to("out");
  return std::move(*builder.build());
}

class ProcessorStore : public ::testing::TestWithParam<StoreType> {};

TEST_P(ProcessorStore, KeepsStatePerKeyAcrossRecords) {
  TopologyTestDriver driver(longest_topology(GetParam()));
  auto in = driver.create_input_topic<std::string, std::string>("in");
  in.pipe_key_value_list({{"a", "xx"}, {"a", "x"}, {"b", "y"}, {"a", "xxx"}});
  auto out = driver.create_output_topic<std::string, std::string>("out");
  EXPECT_THAT(out.read_values_to_list(), ElementsAre("xx", "y", "xxx"));
  auto store = driver.key_value_store<std::string, std::string>("longest");
  EXPECT_EQ(store.get("a"), "xxx");
  EXPECT_THAT(store.range("a", "az"), ElementsAre(KeyValue<std::string, std::string>{"a", "xxx"}));
  EXPECT_EQ(store.all().size(), 2u);
  // Every write went to the changelog.
  EXPECT_EQ(driver.output_queue("brook-test-longest-changelog").size(), 3u);
  store.remove("a");
  EXPECT_EQ(store.get("a"), std::nullopt);
}

INSTANTIATE_TEST_SUITE_P(BothStoreTypes, ProcessorStore,
                         ::testing::Values(StoreType::kRocksDb, StoreType::kInMemory));

TEST(ProcessorStoreAccess, AStoreNotConnectedToTheNodeIsRefusedByName) {
  auto topology = longest_topology(StoreType::kInMemory, {});
  try {
    TopologyTestDriver driver(topology);
    FAIL() << "init should fail";
  } catch (const TaskFailed& e) {
    EXPECT_THAT(e.what(), HasSubstr("node keep-longest has no state store 'longest'"));
  }
}

TEST(ProcessorStoreAccess, WrongTypesAreRefusedNamingBoth) {
  StreamsBuilder builder;
  builder.add_state_store<std::string, std::string>({.name = "longest"});
  builder.stream<std::string, std::string>("in")
      .process([] { return std::make_unique<CountReader>(); }, {.stores = {"longest"}})
      .to("out");
  try {
    TopologyTestDriver driver(*builder.build());
    FAIL() << "init should fail";
  } catch (const TaskFailed& e) {
    EXPECT_THAT(e.what(), HasSubstr("holds <std::__cxx11::basic_string"));
    EXPECT_THAT(e.what(), HasSubstr("not <"));
  }
}

TEST(ProcessorStoreAccess, AnUnknownStoreIsABuildError) {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in")
      .process([] { return std::make_unique<LongestValue>("nope"); }, {.stores = {"nope"}})
      .to("out");
  auto topology = builder.build();
  ASSERT_FALSE(topology);
  EXPECT_THAT(topology.error().message(), HasSubstr("unknown state store 'nope'"));
}

}  // namespace
}  // namespace brook
