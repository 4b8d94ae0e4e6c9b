// RecordArena: memory for the keys and values of records read or written together. It grows
// by whole blocks that never move, so a view into it stays valid until the arena is cleared or
// destroyed: one allocation per block instead of one per key and value. Each block is twice
// the size of the one before (up to 8 MiB), or larger for larger bytes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace brook::internal {

class RecordArena {
 public:
  // `first_block_bytes`: the size of the first block, for what the caller expects to copy.
  explicit RecordArena(std::size_t first_block_bytes)
      : first_block_bytes_(first_block_bytes), block_bytes_(first_block_bytes) {}

  // A copy of `bytes`, valid until clear() or the arena's end.
  std::string_view copy(std::string_view bytes) {
    if (bytes.size() > free_) add_block(bytes.size());
    char* out = next_;
    if (!bytes.empty()) std::memcpy(out, bytes.data(), bytes.size());
    next_ += bytes.size();
    free_ -= bytes.size();
    return {out, bytes.size()};
  }

  // Forgets every copy (their views dangle) and frees the blocks: the next copies start again
  // from a first block.
  void clear() {
    blocks_.clear();
    block_bytes_ = first_block_bytes_;
    next_ = nullptr;
    free_ = 0;
  }

 private:
  void add_block(std::size_t at_least) {
    if (!blocks_.empty()) block_bytes_ = std::min(block_bytes_ * 2, kMaxBlockBytes);
    const std::size_t size = std::max(block_bytes_, at_least);
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(size));
    next_ = blocks_.back().get();
    free_ = size;
  }

  static constexpr std::size_t kMaxBlockBytes = std::size_t{8} << 20;

  std::size_t first_block_bytes_;
  std::size_t block_bytes_;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* next_ = nullptr;
  std::size_t free_ = 0;
};

}  // namespace brook::internal
