// Record headers: an ordered list of (key, value) pairs, keys may repeat, values may be null,
// as in Kafka.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace brook {

struct Header {
  std::string key;
  std::optional<std::string> value;
  friend bool operator==(const Header&, const Header&) = default;
};

class Headers {
 public:
  Headers() = default;
  Headers(std::initializer_list<Header> headers) : headers_(headers) {}

  // Appends a header; existing headers with the same key stay.
  void add(std::string key, std::optional<std::string> value) {
    headers_.push_back({std::move(key), std::move(value)});
  }
  // Removes every header with this key.
  void remove(std::string_view key) {
    std::erase_if(headers_, [&](auto& h) { return h.key == key; });
  }
  // The last header with this key, or nullptr.
  const Header* last(std::string_view key) const {
    for (auto it = headers_.rbegin(); it != headers_.rend(); ++it)
      if (it->key == key) return &*it;
    return nullptr;
  }
  bool empty() const { return headers_.empty(); }
  std::size_t size() const { return headers_.size(); }
  auto begin() const { return headers_.begin(); }
  auto end() const { return headers_.end(); }
  friend bool operator==(const Headers&, const Headers&) = default;

 private:
  std::vector<Header> headers_;
};

}  // namespace brook
