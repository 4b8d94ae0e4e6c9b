// Fuzzes JsonSerde's decoding of record bytes (brook/json_serde.h): into nlohmann::json, and
// into a struct of strings, integers of several widths, floating-point numbers, a nested struct
// and containers that reorder their elements. A third mode nests the input thousands of levels
// deep inside a change event and decodes that with JsonSerde and Debezium's serdes
// (brook/change_event.h, which read JSON as JsonSerde does; the debezium_envelope target fuzzes
// them otherwise). The input's first byte picks the mode, the rest are its bytes.
// Properties: a decode succeeds or fails with kCorruption, never throws or crashes (deep input
// included); a value decoded encodes, and that encoding decodes to an equal value that encodes
// to the same bytes again.
#include "brook/json_serde.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "brook/change_event.h"
#include "fuzz/fuzz_support.h"
#include "fuzz/serde_checks.h"

namespace {

using namespace brook;
using Json = nlohmann::json;

struct Line {
  std::string sku;
  std::uint32_t qty = 0;
  double unit_price = 0;
  friend bool operator==(const Line&, const Line&) = default;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Line, sku, qty, unit_price)

struct Order {
  std::string id;
  std::int64_t quantity = 0;
  std::uint8_t priority = 0;
  double price = 0;
  float weight = 0;
  bool paid = false;
  std::vector<Line> lines;
  std::vector<std::vector<std::int16_t>> grid;
  std::map<std::string, double> rates;        // a JSON object
  std::set<std::int64_t> ids;                 // written back in its own order
  std::map<std::int32_t, std::string> names;  // an array of [key, value] pairs
  friend bool operator==(const Order&, const Order&) = default;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Order, id, quantity, priority, price, weight, paid,
                                                lines, grid, rates, ids, names)

// nlohmann reads a floating-point number into an integer field with a static_cast, undefined
// behaviour out of the field's range (a finding not fixed yet: JsonSerde relies on the
// conversion to detect such numbers). Whether `json` holds such a number under a member
// named as one of Order's integer fields, out of the range every one of them holds.
bool has_float_for_integer(const Json& json, bool under_integer_field = false) {
  if (json.is_number_float()) {
    const double x = json.get<double>();
    return under_integer_field && !(x > -1 && x < 256);
  }
  if (json.is_object()) {
    static const std::set<std::string> kIntegerFields = {"quantity", "priority", "qty",
                                                         "grid",     "ids",      "names"};
    for (const auto& [name, member] : json.items()) {
      if (has_float_for_integer(member, under_integer_field || kIntegerFields.contains(name))) {
        return true;
      }
    }
  }
  if (json.is_array()) {
    for (const Json& element : json) {
      if (has_float_for_integer(element, under_integer_field)) return true;
    }
  }
  return false;
}

// JSON has many encodings of a value (spacing, the order of members).
template <class T>
void check_round_trip(const Serde<T>& serde, std::string_view bytes) {
  fuzz::check_serde(serde, bytes, fuzz::Encoding::kAny);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const JsonSerde<Json> json_serde;
  static const JsonSerde<Order> order_serde;
  static const DebeziumSerde<Json> debezium_serde;
  static const DebeziumKeySerde<Json> debezium_key_serde;

  fuzz::FuzzInput input(data, size);
  switch (input.byte() % 3) {
    case 0: check_round_trip(json_serde, input.rest()); break;
    case 1: {
      const std::string_view bytes = input.rest();
      const Json json = Json::parse(bytes, nullptr, /*allow_exceptions=*/false);
      if (!has_float_for_integer(json)) check_round_trip(order_serde, bytes);
      break;
    }
    case 2: {
      // A change event whose row nests the input up to 102000 levels deep.
      const std::size_t depth = input.byte() * std::size_t{400};
      const std::string deep = R"({"op":"c","after":{"deep":)" + std::string(depth, '[') +
                               std::string(input.rest()) + std::string(depth, ']') + "}}";
      check_round_trip(json_serde, deep);
      check_round_trip(debezium_serde, deep);
      check_round_trip(debezium_key_serde, deep);
      break;
    }
  }
  return 0;
}
