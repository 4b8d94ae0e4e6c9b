// RocksDB's info log, routed to Brook's log (src/core/log.h) instead of a LOG file in the store's
// directory. Such a file shares the disk with the data and fails with it: on a full disk RocksDB
// 7.8 built with assertions (Debian's) aborts the process when it writes to the LOG file again
// after a failed write.
//
// Private to state/rocksdb; the header names RocksDB's logger type without including RocksDB.
#pragma once

#include <memory>
#include <string>

namespace rocksdb {
class Logger;
}

namespace brook::internal {

// A logger for the store `name` in `dir` (DBOptions::info_log): RocksDB's WARN lines become
// Brook WARN lines, ERROR and FATAL ones Brook ERROR lines, each prefixed with the store and
// directory; lower levels and the options dump at open are dropped. Thread-safe.
std::shared_ptr<rocksdb::Logger> make_info_log(const std::string& name, const std::string& dir);

}  // namespace brook::internal
