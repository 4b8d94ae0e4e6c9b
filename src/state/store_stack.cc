#include "state/store_stack.h"

#include "brook/state_store.h"
#include "state/in_memory_store.h"
#include "state/segmented_store.h"

namespace brook::internal {

Result<StoreStack> open_store_stack(const StoreSpec& spec, const StoreEnvironment& env) {
  StoreStack stack;
  if (spec.type == StoreType::kInMemory) {
    stack.top = std::make_unique<InMemoryStore>(spec.name);
  } else {
    auto store = open_rocksdb_store(spec.name, env.dir, env.rocksdb_memory, {.sync = env.sync});
    if (!store) return error(std::move(store.error()));
    stack.top = std::move(*store);
  }
  if (spec.kind != StoreKind::kKeyValue) {  // keys translated to [segment id][key] below
    stack.top = std::make_unique<SegmentedStore>(
        std::move(stack.top), spec.kind, spec.retention, segment_interval_for(spec.retention),
        spec.reads_in_memory && spec.type == StoreType::kRocksDb);
  }
  stack.bottom = stack.top.get();
  if (spec.logging) {
    stack.top = std::make_unique<ChangeLoggingStore>(std::move(stack.top), env.log);
  }
  if (spec.caching) {
    stack.top = std::make_unique<CachingStore>(std::move(stack.top), env.cache);
  }
  return stack;
}

}  // namespace brook::internal
