#include "state/rocksdb/info_log.h"

#include <rocksdb/env.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "core/log.h"

namespace brook::internal {
namespace {

constexpr std::size_t kMaxLine = 1024;  // longer lines are cut

class StoreLogger final : public rocksdb::Logger {
 public:
  StoreLogger(const std::string& name, const std::string& dir)
      : rocksdb::Logger(rocksdb::InfoLogLevel::WARN_LEVEL),
        prefix_("RocksDB store '" + name + "' in " + dir + ": ") {}

  using rocksdb::Logger::Logv;
  void Logv(const rocksdb::InfoLogLevel level, const char* format, va_list ap) override {
    if (level < GetInfoLogLevel() || level == rocksdb::InfoLogLevel::HEADER_LEVEL) return;
    char line[kMaxLine];
    const int n = std::vsnprintf(line, sizeof line, format, ap);
    if (n < 0) return;
    std::string_view text(line, std::min(static_cast<std::size_t>(n), kMaxLine - 1));
    while (text.ends_with('\n')) text.remove_suffix(1);
    try {  // RocksDB is not exception-safe: nothing may leave this function
      log(level == rocksdb::InfoLogLevel::WARN_LEVEL ? LogLevel::kWarn : LogLevel::kError, "{}{}",
          prefix_, text);
    } catch (...) {
    }
  }

 private:
  std::string prefix_;
};

}  // namespace

std::shared_ptr<rocksdb::Logger> make_info_log(const std::string& name, const std::string& dir) {
  return std::make_shared<StoreLogger>(name, dir);
}

}  // namespace brook::internal
