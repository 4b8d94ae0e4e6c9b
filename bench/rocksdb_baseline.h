// Raw RocksDB for the baselines of the state benchmarks: a database opened with the options
// Brook's RocksDB store uses (src/state/rocksdb/rocksdb_store.cc), so that the baseline differs
// from Brook only in what Brook adds on top. The benchmarks are the only code outside
// src/state/rocksdb that include <rocksdb/...> (DESIGN.md allows it nowhere else).
#pragma once

#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>
#include <rocksdb/write_buffer_manager.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace brook::bench {

// Brook's defaults: rocksdb.memory.max.bytes (block cache, with half of it for memtables charged
// to it), 16 MiB write buffers, 10-bit Bloom filters, index and filter blocks in the cache, LZ4
// if built in. Brook's store also keeps a second column family for its changelog offset and
// sets atomic_flush for the two; the baseline has the default family only.
inline constexpr std::size_t kRocksDbMemoryBytes = std::size_t{256} << 20;

// Brook's options (above), with a block cache and write-buffer manager of their own.
inline rocksdb::Options raw_rocksdb_options() {
  auto cache = rocksdb::NewLRUCache(kRocksDbMemoryBytes);
  rocksdb::Options options;
  options.create_if_missing = true;
  options.write_buffer_manager =
      std::make_shared<rocksdb::WriteBufferManager>(kRocksDbMemoryBytes / 2, cache);
  options.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
  options.keep_log_file_num = 2;
  rocksdb::BlockBasedTableOptions table_options;
  table_options.block_cache = cache;
  table_options.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  table_options.cache_index_and_filter_blocks = true;
  table_options.pin_l0_filter_and_index_blocks_in_cache = true;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table_options));
  options.write_buffer_size = std::size_t{16} << 20;
  auto supported = rocksdb::GetSupportedCompressions();
  options.compression = std::ranges::find(supported, rocksdb::kLZ4Compression) != supported.end()
                            ? rocksdb::kLZ4Compression
                            : rocksdb::kNoCompression;
  return options;
}

// A database in `dir` (created); the default WriteOptions write the WAL without fsync. Throws
// std::runtime_error if RocksDB cannot open it.
inline std::unique_ptr<rocksdb::DB> open_raw_rocksdb(const std::filesystem::path& dir,
                                                     const rocksdb::Options& options) {
  std::filesystem::create_directories(dir);
  rocksdb::DB* db = nullptr;
  auto s = rocksdb::DB::Open(options, dir.string(), &db);
  if (!s.ok()) throw std::runtime_error("RocksDB open: " + s.ToString());
  return std::unique_ptr<rocksdb::DB>(db);
}
inline std::unique_ptr<rocksdb::DB> open_raw_rocksdb(const std::filesystem::path& dir) {
  return open_raw_rocksdb(dir, raw_rocksdb_options());
}

// RocksDB's bulk load: writes `entries` (sorted by key, each key once) to the SST file `file`
// with `options` and ingests it into `db` (moving the file). False if anything failed.
template <class Entries>
bool ingest_sorted(rocksdb::DB& db, const rocksdb::Options& options,
                   const std::filesystem::path& file, const Entries& entries) {
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options);
  if (!writer.Open(file.string()).ok()) return false;
  for (const auto& [key, value] : entries) {
    if (!writer
             .Put(rocksdb::Slice(key.data(), key.size()),
                  rocksdb::Slice(value.data(), value.size()))
             .ok()) {
      return false;
    }
  }
  if (!writer.Finish().ok()) return false;
  rocksdb::IngestExternalFileOptions ingest;
  ingest.move_files = true;
  return db.IngestExternalFile({file.string()}, ingest).ok();
}

// 8-byte big-endian, as brook::Int64Serde writes an int64.
inline std::array<char, 8> big_endian(std::int64_t value) {
  std::array<char, 8> bytes;
  auto v = static_cast<std::uint64_t>(value);
  for (int i = 7; i >= 0; --i, v >>= 8) bytes[i] = static_cast<char>(v & 0xff);
  return bytes;
}

inline std::int64_t from_big_endian(std::string_view bytes) {
  std::uint64_t v = 0;
  for (char c : bytes) v = (v << 8) | static_cast<unsigned char>(c);
  return static_cast<std::int64_t>(v);
}

// The count of `key` in `db` (an 8-byte big-endian value); 0 if absent, -1 on an error.
inline std::int64_t get_count(rocksdb::DB& db, const std::string& key, std::string& scratch) {
  auto s = db.Get(rocksdb::ReadOptions(), key, &scratch);
  if (s.IsNotFound()) return 0;
  return s.ok() ? from_big_endian(scratch) : -1;
}

// Counts `key` in `db`: Get, increment, Put. The new count; -1 on an error.
inline std::int64_t increment(rocksdb::DB& db, const std::string& key, std::string& scratch) {
  const std::int64_t count = get_count(db, key, scratch);
  if (count < 0) return -1;
  const auto stored = big_endian(count + 1);
  auto s = db.Put(rocksdb::WriteOptions(), key, rocksdb::Slice(stored.data(), stored.size()));
  return s.ok() ? count + 1 : -1;
}

// The number of keys in `db`.
inline std::int64_t count_entries(rocksdb::DB& db) {
  std::int64_t entries = 0;
  std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(rocksdb::ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++entries;
  return entries;
}

}  // namespace brook::bench
