#include "topology/java_order.h"

#include <algorithm>

namespace brook::internal {

std::uint32_t java_string_hash(std::string_view text) {
  std::uint32_t hash = 0;
  auto add = [&](std::uint32_t unit) { hash = 31 * hash + unit; };
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    std::uint32_t code = length == 1 ? lead : lead & (0x7F >> length);
    for (std::size_t k = 1; k < length && i + k < text.size(); ++k) {
      code = (code << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    }
    if (code >= 0x10000) {
      add(0xD800 + ((code - 0x10000) >> 10));
      add(0xDC00 + ((code - 0x10000) & 0x3FF));
    } else {
      add(code);
    }
    i += length;
  }
  return hash;
}

std::vector<std::string> in_java_hash_order(std::vector<std::string> names, std::uint32_t table) {
  auto bucket = [table](const std::string& name) {
    const std::uint32_t hash = java_string_hash(name);
    return (hash ^ (hash >> 16)) & (table - 1);
  };
  std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    return bucket(a) < bucket(b);
  });
  return names;
}

std::uint32_t java_grown_table(std::size_t n) {
  std::uint32_t table = 16;
  while (n > table / 4 * 3) table *= 2;
  return table;
}

// java.util.TreeMap's put and fixAfterInsertion.
void JavaTreeSet::add(const std::string& name, const Compare& compare) {
  int parent_of_new = -1;
  int side = kLeft;
  for (int at = root_; at >= 0;) {
    parent_of_new = at;
    const int order = compare(name, entries_[at].name);
    if (order == 0) return;
    side = order < 0 ? kLeft : kRight;
    at = entries_[at].child[side];
  }
  const int added = static_cast<int>(entries_.size());
  entries_.push_back({.name = name, .parent = parent_of_new});
  if (parent_of_new < 0) {
    root_ = added;
  } else {
    entries_[parent_of_new].child[side] = added;
  }
  balance_after_insertion(added);
}

void JavaTreeSet::rotate(int p, int side) {
  if (p < 0) return;
  const int other = 1 - side;
  const int up = entries_[p].child[other];
  entries_[p].child[other] = entries_[up].child[side];
  if (entries_[up].child[side] >= 0) entries_[entries_[up].child[side]].parent = p;
  entries_[up].parent = entries_[p].parent;
  if (entries_[p].parent < 0) {
    root_ = up;
  } else {
    Entry& above = entries_[entries_[p].parent];
    above.child[above.child[kLeft] == p ? kLeft : kRight] = up;
  }
  entries_[up].child[side] = p;
  entries_[p].parent = up;
}

void JavaTreeSet::balance_after_insertion(int x) {
  paint(x, false);
  while (x >= 0 && x != root_ && !black(parent(x))) {
    const int grand = parent(parent(x));
    // TreeMap's two mirrored cases: the parent is its parent's child on `side`.
    const int side = parent(x) == child(grand, kLeft) ? kLeft : kRight;
    const int other = 1 - side;
    const int uncle = child(grand, other);
    if (!black(uncle)) {
      paint(parent(x), true);
      paint(uncle, true);
      paint(grand, false);
      x = grand;
    } else {
      if (x == child(parent(x), other)) {
        x = parent(x);
        rotate(x, side);
      }
      paint(parent(x), true);
      paint(parent(parent(x)), false);
      rotate(parent(parent(x)), other);
    }
  }
  paint(root_, true);
}

std::vector<std::string> JavaTreeSet::in_order() const {
  std::vector<std::string> out;
  std::vector<int> pending;
  for (int at = root_; at >= 0 || !pending.empty();) {
    for (; at >= 0; at = entries_[at].child[kLeft]) pending.push_back(at);
    at = pending.back();
    pending.pop_back();
    out.push_back(entries_[at].name);
    at = entries_[at].child[kRight];
  }
  return out;
}

}  // namespace brook::internal
