// The checks of JsonSerde<T>::deserialize beyond nlohmann's parser: the nesting depth of the
// input, and every number of the input against the JSON that to_json writes of the value
// from_json read, at the same place.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <compare>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "brook/json_serde.h"

namespace brook::internal {
namespace {

using Json = nlohmann::json;
using Kind = Json::value_t;

// The exact order of an integer (signed or unsigned, as nlohmann holds it) and a double.
std::partial_ordering compare_integer_double(const Json& integer, double d) {
  if (std::isnan(d)) return std::partial_ordering::unordered;
  constexpr double kTwo63 = 9223372036854775808.0;
  constexpr double kTwo64 = 18446744073709551616.0;
  const double whole = std::trunc(d);
  const auto fraction = 0.0 <=> d - whole;  // the integer against d's fraction, once equal
  if (integer.type() == Kind::number_integer && integer.get<std::int64_t>() < 0) {
    if (d >= 0) return std::partial_ordering::less;
    if (d < -kTwo63) return std::partial_ordering::greater;
    const auto order = integer.get<std::int64_t>() <=> static_cast<std::int64_t>(whole);
    return order != 0 ? order : fraction;
  }
  if (d < 0) return std::partial_ordering::greater;
  if (d >= kTwo64) return std::partial_ordering::less;
  const auto order = integer.get<std::uint64_t>() <=> static_cast<std::uint64_t>(whole);
  return order != 0 ? order : fraction;
}

// The exact order of two JSON numbers by value, whatever nlohmann holds them as (nlohmann's own
// comparisons convert, e.g. an unsigned above 2^63 to a negative int64).
std::partial_ordering compare_numbers(const Json& a, const Json& b) {
  const bool a_float = a.is_number_float();
  const bool b_float = b.is_number_float();
  if (a_float && b_float) return a.get<double>() <=> b.get<double>();
  if (b_float) return compare_integer_double(a, b.get<double>());
  if (a_float) return 0 <=> compare_integer_double(b, a.get<double>());
  const bool a_negative = a.type() == Kind::number_integer && a.get<std::int64_t>() < 0;
  const bool b_negative = b.type() == Kind::number_integer && b.get<std::int64_t>() < 0;
  if (a_negative != b_negative)
    return a_negative ? std::partial_ordering::less : std::partial_ordering::greater;
  if (a_negative) return a.get<std::int64_t>() <=> b.get<std::int64_t>();
  return a.get<std::uint64_t>() <=> b.get<std::uint64_t>();
}

int rank(const Json& j) {
  switch (j.type()) {
    case Kind::null: return 0;
    case Kind::boolean: return 1;
    case Kind::number_integer:
    case Kind::number_unsigned:
    case Kind::number_float: return 2;
    case Kind::string: return 3;
    case Kind::array: return 4;
    case Kind::object: return 5;
    case Kind::binary: return 6;
    case Kind::discarded: return 7;
  }
  return 7;
}

// A total order of JSON values that compares numbers exactly (NaN after every other number):
// the order in which the elements of two arrays are compared as sets.
std::weak_ordering order(const Json& a, const Json& b) {
  if (const auto by_rank = rank(a) <=> rank(b); by_rank != 0) return by_rank;
  switch (a.type()) {
    case Kind::boolean: return a.get<bool>() <=> b.get<bool>();
    case Kind::number_integer:
    case Kind::number_unsigned:
    case Kind::number_float: {
      const bool a_nan = a.is_number_float() && std::isnan(a.get<double>());
      const bool b_nan = b.is_number_float() && std::isnan(b.get<double>());
      if (a_nan || b_nan) return a_nan <=> b_nan;
      const auto by_value = compare_numbers(a, b);
      return by_value < 0
                 ? std::weak_ordering::less
                 : (by_value > 0 ? std::weak_ordering::greater : std::weak_ordering::equivalent);
    }
    case Kind::string: return a.get_ref<const std::string&>() <=> b.get_ref<const std::string&>();
    case Kind::array:
      return std::lexicographical_compare_three_way(a.begin(), a.end(), b.begin(), b.end(), order);
    case Kind::object: {
      auto x = a.begin();
      auto y = b.begin();
      for (; x != a.end() && y != b.end(); ++x, ++y) {
        if (const auto by_key = x.key() <=> y.key(); by_key != 0) return by_key;
        if (const auto by_value = order(*x, *y); by_value != 0) return by_value;
      }
      return (x != a.end()) <=> (y != b.end());  // the shorter first
    }
    default: return std::weak_ordering::equivalent;  // null, binary, discarded
  }
}

// Whether `read` holds the input number `in` as it is: the same value, except that a float read
// into a floating-point field may be rounded to the field's precision but not become infinite.
// (A parsed number is always finite.)
bool read_exactly(const Json& in, const Json& read) {
  if (in.is_number_float() && read.is_number_float()) return std::isfinite(read.get<double>());
  return compare_numbers(in, read) == 0;
}

std::string number_text(const Json& number) {
  if (number.is_number_float() && !std::isfinite(number.get<double>())) {
    return fmt::format("{}", number.get<double>());  // dump() writes null
  }
  return number.dump();
}

// Walks the input and what was read in parallel; `path_` is where it is, written out only for
// an error.
class Walk {
 public:
  std::optional<std::string> check(const Json& in, const Json& read) {
    if (in.is_number() && read.is_number()) {
      if (read_exactly(in, read)) return std::nullopt;
      return fmt::format("{}: {} does not fit, read as {}", where(), number_text(in),
                         number_text(read));
    }
    if (in.is_object() && read.is_object()) return check_object(in, read);
    if (in.is_array() && read.is_array()) return check_array(in, read);
    return std::nullopt;  // a different shape: the type reads this part its own way
  }

 private:
  // An object member (key) or an array element (index).
  struct Step {
    const std::string* key = nullptr;
    std::size_t index = 0;
  };

  std::string where() const {
    if (path_.empty()) return "the value";
    std::string path;
    for (const Step& step : path_) {
      if (step.key == nullptr) {
        fmt::format_to(std::back_inserter(path), "[{}]", step.index);
      } else {
        if (!path.empty()) path += '.';
        path += *step.key;
      }
    }
    return "field '" + path + "'";
  }

  // Both objects hold their members in key order: one pass over each.
  std::optional<std::string> check_object(const Json& in, const Json& read) {
    auto match = read.begin();
    for (auto field = in.begin(); field != in.end(); ++field) {
      int by_key = 0;
      while (match != read.end() && (by_key = match.key().compare(field.key())) < 0) ++match;
      if (match == read.end()) break;
      if (by_key > 0) continue;  // a field the type does not read
      path_.push_back({.key = &field.key()});
      auto error = check(*field, *match);
      path_.pop_back();
      if (error) return error;
    }
    return std::nullopt;
  }

  std::optional<std::string> check_element(const Json& in, std::size_t i, const Json& read,
                                           std::size_t j) {
    path_.push_back({.index = i});
    auto error = check(in[i], read[j]);
    path_.pop_back();
    return error;
  }

  // Element by element; failing that, as sets (below).
  std::optional<std::string> check_array(const Json& in, const Json& read) {
    std::optional<std::string> by_position;
    std::size_t position = 0;
    for (; position < std::min(in.size(), read.size()); ++position) {
      by_position = check_element(in, position, read, position);
      if (by_position) break;
    }
    if (!by_position && in.size() <= read.size()) return std::nullopt;
    // A container that orders or merges its elements (std::set, std::map with keys that are not
    // strings, the unordered ones) writes them back in its own order: compare the different
    // elements of the input with the elements read, both in `order`.
    std::vector<std::size_t> ins = sorted(in);
    if (in.size() > read.size()) {
      const auto same = [&](std::size_t a, std::size_t b) { return order(in[a], in[b]) == 0; };
      ins.erase(std::unique(ins.begin(), ins.end(), same), ins.end());
    }
    const std::vector<std::size_t> reads = sorted(read);
    if (ins.size() != reads.size()) {
      if (by_position) return by_position;
      return fmt::format("{}: {} elements ({} different) read as {}", where(), in.size(),
                         ins.size(), read.size());
    }
    for (std::size_t k = 0; k < ins.size(); ++k) {
      auto by_order = check_element(in, ins[k], read, reads[k]);
      if (!by_order) continue;
      // Which element changed, and into what, is a guess: the one that differs at its place,
      // unless the one that differs in order is another that also differs at its place (or has
      // none), as when a std::map reorders its pairs.
      const std::size_t i = ins[k];
      if (!by_position) return by_order;
      if (i != position && (i >= read.size() || check_element(in, i, read, i))) return by_order;
      return by_position;
    }
    return std::nullopt;
  }

  static std::vector<std::size_t> sorted(const Json& array) {
    std::vector<std::size_t> indices(array.size());
    std::iota(indices.begin(), indices.end(), std::size_t{0});
    std::stable_sort(indices.begin(), indices.end(),
                     [&](std::size_t a, std::size_t b) { return order(array[a], array[b]) < 0; });
    return indices;
  }

  std::vector<Step> path_;
};

}  // namespace

bool nested_too_deep(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

std::optional<std::string> changed_number(const nlohmann::json& input, const nlohmann::json& read) {
  return Walk().check(input, read);
}

}  // namespace brook::internal
