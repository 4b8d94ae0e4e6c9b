// The orders in which Java's collections iterate names, for describe() to list nodes and stores
// exactly as Kafka Streams' TopologyDescription does.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace brook::internal {

// Java's String.hashCode() of `text` (UTF-8): over its UTF-16 code units.
std::uint32_t java_string_hash(std::string_view text);

// `names`, added in this order to a java.util.HashSet or HashMap with a table of `table` buckets
// (a power of two), in the order it iterates them: by bucket (the spread hash modulo the table),
// those of one bucket in the order they came.
std::vector<std::string> in_java_hash_order(std::vector<std::string> names, std::uint32_t table);

// The table of a HashMap or HashSet that had `n` entries put one by one: 16 buckets, doubled
// whenever it is more than 3/4 full.
std::uint32_t java_grown_table(std::size_t n);

// A java.util.TreeSet of names: a red-black tree that places each name by what its comparator
// says when the name goes in, so that a comparator whose answers change later (Kafka Streams'
// compares sub-tree sizes that grow while the nodes are in sets) leaves the order it left then.
class JavaTreeSet {
 public:
  // compare(a, b): negative, zero (equal: `name` is not added again) or positive.
  using Compare = std::function<int(const std::string& a, const std::string& b)>;

  void add(const std::string& name, const Compare& compare);
  std::vector<std::string> in_order() const;

 private:
  static constexpr int kLeft = 0;
  static constexpr int kRight = 1;
  struct Entry {
    std::string name;
    int child[2] = {-1, -1};  // kLeft, kRight
    int parent = -1;
    bool black = false;
  };
  int parent(int x) const { return x < 0 ? -1 : entries_[x].parent; }
  int child(int x, int side) const { return x < 0 ? -1 : entries_[x].child[side]; }
  bool black(int x) const { return x < 0 || entries_[x].black; }
  void paint(int x, bool black) {
    if (x >= 0) entries_[x].black = black;
  }
  // Rotates the sub-tree at `p` so that its child on the side opposite `side` takes its place
  // (side kLeft: TreeMap's rotateLeft).
  void rotate(int p, int side);
  void balance_after_insertion(int x);

  std::vector<Entry> entries_;
  int root_ = -1;
};

}  // namespace brook::internal
