// ByteBuffer: a growable byte array that, unlike std::string or std::vector, does not zero the
// bytes it grows by. The embedded log encodes records straight into one and reuses it across
// calls, so appends do not allocate once it has reached its working size.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>

namespace brook::internal {

class ByteBuffer {
 public:
  const char* data() const { return data_.get(); }
  char* data() { return data_.get(); }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  void clear() { size_ = 0; }

  // Makes room for `n` more bytes and returns where they start; size() grows by `n`. The new
  // bytes are uninitialised. Pointers from earlier calls are invalidated.
  char* extend(std::size_t n) {
    reserve(size_ + n);
    char* out = data_.get() + size_;
    size_ += n;
    return out;
  }
  void append(const char* bytes, std::size_t n) {
    if (n > 0) std::memcpy(extend(n), bytes, n);
  }
  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    const std::size_t capacity = std::max({n, capacity_ * 2, std::size_t{4096}});
    auto grown = std::make_unique_for_overwrite<char[]>(capacity);
    if (size_ > 0) std::memcpy(grown.get(), data_.get(), size_);
    data_ = std::move(grown);
    capacity_ = capacity;
  }
  // Frees the memory if the buffer grew past `limit` (after an unusually large batch).
  void shrink_if_above(std::size_t limit) {
    if (capacity_ > limit) {
      data_.reset();
      capacity_ = 0;
      size_ = 0;
    }
  }

 private:
  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace brook::internal
