// StateRestoreListener: told how the restoration of each store partition goes, e.g. to
// report progress of a long restore after a deploy or a failover. Set it with
// Streams::set_restore_listener() before start(). Called on the stream thread that restores,
// so keep it short.
#pragma once

#include <cstdint>
#include <string>

#include "brook/types.h"

namespace brook {

class StateRestoreListener {
 public:
  virtual ~StateRestoreListener() = default;
  // Restoration of `store` for `task` reads its changelog partition from `start` to `end`.
  virtual void on_restore_start(const std::string& /*store*/, TaskId /*task*/, Offset /*start*/,
                                Offset /*end*/) {}
  // A batch was applied; `restored` records so far for this store partition.
  virtual void on_batch_restored(const std::string& /*store*/, TaskId /*task*/, Offset /*next*/,
                                 std::int64_t /*restored*/) {}
  virtual void on_restore_end(const std::string& /*store*/, TaskId /*task*/,
                              std::int64_t /*restored*/) {}
};

}  // namespace brook
