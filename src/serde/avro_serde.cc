// AvroSerde over the Avro C library (libavro, Debian's avro-c 1.11).
//
// How the work is split:
// - libavro parses the schema, builds the generic value class, writes values and reads them.
// - A compiled copy of the schema (Node, below) drives the JSON <-> avro_value_t conversion
//   and a bounds-checking pass over the bytes *before* libavro reads them. libavro 1.11's
//   reader trusts lengths, counts and indices (it allocates whatever a length says, loops over
//   whatever a block count says and looks enum symbols up without a range check), so hostile
//   bytes must never reach it unchecked.
// - libavro keeps its last error message in one process-wide buffer (not per thread), so the
//   calls whose message we report (schema parsing, unexpected failures) take a global mutex.
//   The hot paths never fail after validation and so never touch that buffer.
// - Per-call avro values, writers and readers come from a small pool per serde (a mutex guards
//   only the pop and push), so a call allocates no libavro objects in the steady state.
#include "brook/avro_serde.h"

#include <avro.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "brook/internal/coding.h"

namespace brook {
namespace {

using nlohmann::json;

constexpr int kMaxDepth = 256;
constexpr std::uint64_t kMaxZeroSizeItems = std::uint64_t{1} << 20;
constexpr std::size_t kConfluentHeaderSize = 5;
constexpr std::size_t kMaxPooledScratch = 64;

std::mutex& avro_error_mutex() {
  static std::mutex mutex;
  return mutex;
}

// The message of the last libavro failure. Call with avro_error_mutex() held.
std::string last_avro_error() {
  const char* message = avro_strerror();
  return message != nullptr && *message != '\0' ? message : "unknown error";
}

// ---------------------------------------------------------------------------------------------
// The compiled schema.

struct Node;

struct Field {
  std::string name;
  const Node* node = nullptr;
};

struct Node {
  avro_type_t type = AVRO_NULL;             // never AVRO_LINK: links point at their target's Node
  std::string label;                        // for messages: "int", "record User", "array", ...
  std::vector<Field> fields;                // record
  std::vector<std::size_t> fields_by_name;  // record: field indices in name order
  std::vector<std::string> symbols;         // enum
  std::unordered_map<std::string, int> symbol_index;  // enum
  std::vector<const Node*> branches;                  // union
  int null_branch = -1;                               // union: the index of its null branch
  const Node* items = nullptr;                        // array items, map values
  std::size_t fixed_size = 0;                         // fixed
  // A lower bound of the encoded size in bytes (0 only for types that may encode to nothing).
  std::size_t min_size = 0;
};

std::size_t saturating_add(std::size_t a, std::size_t b) {
  return a > std::numeric_limits<std::size_t>::max() - b ? std::numeric_limits<std::size_t>::max()
                                                         : a + b;
}

class SchemaCompiler {
 public:
  Result<const Node*> compile(avro_schema_t schema) {
    auto root = build(schema, 0);
    if (!root) return error(std::move(root.error()));
    return *root;
  }
  std::vector<std::unique_ptr<Node>> take_nodes() { return std::move(nodes_); }

 private:
  static Status unsupported(const std::string& what) {
    return Status::invalid_argument("avro serde: unsupported schema: " + what);
  }

  static void primitive(Node* node, const char* label, std::size_t min_size) {
    node->label = label;
    node->min_size = min_size;
  }

  Result<const Node*> build(avro_schema_t schema, int depth) {
    if (depth > kMaxDepth) return error(unsupported("nested deeper than 256 levels"));
    while (schema != nullptr && is_avro_link(schema)) schema = avro_schema_link_target(schema);
    if (schema == nullptr) return error(unsupported("a link without a target"));
    if (auto it = memo_.find(schema); it != memo_.end()) return it->second;

    auto owned = std::make_unique<Node>();
    Node* node = owned.get();
    nodes_.push_back(std::move(owned));
    memo_.emplace(schema, node);  // before the children: recursive records refer back to it
    node->type = avro_typeof(schema);

    auto child = [&](avro_schema_t s) -> Result<const Node*> {
      if (s == nullptr) return error(unsupported("a missing child schema in " + node->label));
      return build(s, depth + 1);
    };
    auto named = [&](const char* kind) {
      const char* name = avro_schema_name(schema);
      return std::string(kind) + " " + (name != nullptr ? name : "?");
    };

    switch (node->type) {
      case AVRO_NULL: primitive(node, "null", 0); break;
      case AVRO_BOOLEAN: primitive(node, "boolean", 1); break;
      case AVRO_INT32: primitive(node, "int", 1); break;
      case AVRO_INT64: primitive(node, "long", 1); break;
      case AVRO_FLOAT: primitive(node, "float", 4); break;
      case AVRO_DOUBLE: primitive(node, "double", 8); break;
      case AVRO_BYTES: primitive(node, "bytes", 1); break;
      case AVRO_STRING: primitive(node, "string", 1); break;
      case AVRO_FIXED: {
        node->label = named("fixed");
        const std::int64_t size = avro_schema_fixed_size(schema);
        if (size < 0) return error(unsupported(node->label + " with a negative size"));
        node->fixed_size = node->min_size = static_cast<std::size_t>(size);
        break;
      }
      case AVRO_ENUM: {
        node->label = named("enum");
        const int count = avro_schema_enum_number_of_symbols(schema);
        for (int i = 0; i < count; ++i) {
          const char* symbol = avro_schema_enum_get(schema, i);
          if (symbol == nullptr) return error(unsupported(node->label + " with a missing symbol"));
          node->symbols.emplace_back(symbol);
          node->symbol_index.emplace(symbol, i);
        }
        node->min_size = 1;
        break;
      }
      case AVRO_ARRAY:
      case AVRO_MAP: {
        const bool array = node->type == AVRO_ARRAY;
        node->label = array ? "array" : "map";
        auto items =
            child(array ? avro_schema_array_items(schema) : avro_schema_map_values(schema));
        if (!items) return error(std::move(items.error()));
        node->items = *items;
        node->min_size = 1;
        break;
      }
      case AVRO_RECORD: {
        node->label = named("record");
        const std::size_t count = avro_schema_record_size(schema);
        for (std::size_t i = 0; i < count; ++i) {
          const int index = static_cast<int>(i);
          const char* name = avro_schema_record_field_name(schema, index);
          if (name == nullptr) return error(unsupported(node->label + " with a nameless field"));
          auto field = child(avro_schema_record_field_get_by_index(schema, index));
          if (!field) return error(std::move(field.error()));
          node->fields.push_back({name, *field});
          node->min_size = saturating_add(node->min_size, (*field)->min_size);
        }
        node->fields_by_name.resize(count);
        for (std::size_t i = 0; i < count; ++i) node->fields_by_name[i] = i;
        std::sort(node->fields_by_name.begin(), node->fields_by_name.end(),
                  [node](std::size_t a, std::size_t b) {
                    return node->fields[a].name < node->fields[b].name;
                  });
        break;
      }
      case AVRO_UNION: {
        node->label = "union";
        const std::size_t count = avro_schema_union_size(schema);
        std::size_t smallest = std::numeric_limits<std::size_t>::max();
        for (std::size_t i = 0; i < count; ++i) {
          auto branch = child(avro_schema_union_branch(schema, static_cast<int>(i)));
          if (!branch) return error(std::move(branch.error()));
          if ((*branch)->type == AVRO_NULL && node->null_branch < 0) {
            node->null_branch = static_cast<int>(i);
          }
          node->branches.push_back(*branch);
          smallest = std::min(smallest, (*branch)->min_size);
        }
        node->min_size = count == 0 ? 1 : saturating_add(1, smallest);
        break;
      }
      default:
        return error(unsupported("type code " + std::to_string(static_cast<int>(node->type))));
    }
    return node;
  }

  std::unordered_map<avro_schema_t, const Node*> memo_;
  std::vector<std::unique_ptr<Node>> nodes_;
};

// ---------------------------------------------------------------------------------------------
// Failures with a path ("user.tags[2]"), built only when something fails.

struct Failure {
  StatusCode code = StatusCode::kInvalidArgument;
  std::string problem;
  std::vector<std::string> path;  // innermost segment first, appended while unwinding
  std::size_t offset = 0;         // decoding: where in the bytes the problem was found

  bool fail(std::string message, StatusCode status_code = StatusCode::kInvalidArgument) {
    problem = std::move(message);
    code = status_code;
    return false;
  }

  // Reports a libavro call that failed (rc != 0); returns true if it did.
  bool libavro_failed(int rc, const char* what) {
    if (rc == 0) return false;
    std::lock_guard lock(avro_error_mutex());
    fail(std::string("the Avro library failed to ") + what + ": " + last_avro_error(),
         StatusCode::kInternal);
    return true;
  }

  std::string rendered_path() const {
    std::string out;
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      if (!out.empty() && it->front() != '[') out += '.';
      out += *it;
    }
    return out;
  }
};

// (Appending rather than "[" + std::string(...), which trips g++ 12's -Wrestrict at -O3.)
std::string index_segment(std::size_t index) {
  std::string out = "[";
  out += std::to_string(index);
  out += ']';
  return out;
}

std::string key_segment(std::string_view key) {
  std::string out = "[\"";
  out += key;
  out += "\"]";
  return out;
}

std::string_view json_kind(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "integer";
    case json::value_t::number_float: return "number";
    case json::value_t::string: return "string";
    case json::value_t::array: return "array";
    case json::value_t::object: return "object";
    case json::value_t::binary: return "binary";
    case json::value_t::discarded: return "discarded";
  }
  return "unknown";
}

// ---------------------------------------------------------------------------------------------
// JSON -> avro_value_t.

bool integer_in_range(const json& j, std::int64_t lo, std::int64_t hi) {
  if (j.is_number_unsigned()) return j.get<std::uint64_t>() <= static_cast<std::uint64_t>(hi);
  if (j.is_number_integer()) {
    const auto v = j.get<std::int64_t>();
    return v >= lo && v <= hi;
  }
  return false;
}

bool is_byte_string(const json& j) { return j.is_string() || j.is_binary(); }

std::string_view byte_string(const json& j) {
  if (j.is_binary()) {
    const auto& binary = j.get_binary();
    if (binary.empty()) return "";  // never a null pointer: libavro refuses to write one
    return {reinterpret_cast<const char*>(binary.data()), binary.size()};
  }
  return j.get_ref<const std::string&>();
}

// Whether j has the shape of node (not checking inside arrays, maps and records).
bool fits(const Node& node, const json& j) {
  switch (node.type) {
    case AVRO_NULL: return j.is_null();
    case AVRO_BOOLEAN: return j.is_boolean();
    case AVRO_INT32:
      return integer_in_range(j, std::numeric_limits<std::int32_t>::min(),
                              std::numeric_limits<std::int32_t>::max());
    case AVRO_INT64:
      return integer_in_range(j, std::numeric_limits<std::int64_t>::min(),
                              std::numeric_limits<std::int64_t>::max());
    case AVRO_FLOAT:
    case AVRO_DOUBLE: return j.is_number();
    case AVRO_STRING: return j.is_string();
    case AVRO_BYTES: return is_byte_string(j);
    case AVRO_FIXED: return is_byte_string(j) && byte_string(j).size() == node.fixed_size;
    case AVRO_ENUM:
      return j.is_string() && node.symbol_index.contains(j.get_ref<const std::string&>());
    case AVRO_ARRAY: return j.is_array();
    case AVRO_MAP:
    case AVRO_RECORD: return j.is_object();
    default: return false;
  }
}

// Whether the number j is a float exactly (NaN and the infinities included).
bool exact_in_float(const json& j) {
  const double v = j.get<double>();
  if (!std::isfinite(v)) return true;
  if (std::abs(v) > std::numeric_limits<float>::max()) return false;  // the cast would be UB
  return static_cast<double>(static_cast<float>(v)) == v;
}

// The first branch that fits j and keeps it whole (["float", "double"] writes 0.1 as a double
// and 0.5 as a float), else the first that fits.
int pick_branch(const Node& node, const json& j) {
  int first_fit = -1;
  for (std::size_t i = 0; i < node.branches.size(); ++i) {
    const Node& branch = *node.branches[i];
    if (!fits(branch, j)) continue;
    if (branch.type != AVRO_FLOAT || exact_in_float(j)) return static_cast<int>(i);
    if (first_fit < 0) first_fit = static_cast<int>(i);
  }
  if (first_fit >= 0) return first_fit;
  // Nothing fits. With a single non-null branch, let that branch explain the mismatch.
  if (j.is_null()) return -1;
  int only = -1;
  for (std::size_t i = 0; i < node.branches.size(); ++i) {
    if (node.branches[i]->type == AVRO_NULL) continue;
    if (only >= 0) return -1;
    only = static_cast<int>(i);
  }
  return only;
}

bool encode(const Node& node, const json& j, avro_value_t* v, int depth, Failure& f);

bool mismatch(const Node& node, const json& j, Failure& f) {
  return f.fail("expected " + node.label + ", got " + std::string(json_kind(j)));
}

bool encode_record(const Node& node, const json& j, avro_value_t* v, int depth, Failure& f) {
  if (!j.is_object()) return mismatch(node, j, f);
  for (std::size_t i = 0; i < node.fields.size(); ++i) {
    const Field& field = node.fields[i];
    avro_value_t child;
    if (f.libavro_failed(avro_value_get_by_index(v, i, &child, nullptr), "get a record field")) {
      return false;
    }
    const auto member = j.find(field.name);
    bool ok;
    if (member != j.end()) {
      ok = encode(*field.node, *member, &child, depth + 1, f);
    } else if (field.node->type == AVRO_UNION && field.node->null_branch >= 0) {
      avro_value_t branch;
      ok = !f.libavro_failed(avro_value_set_branch(&child, field.node->null_branch, &branch),
                             "select a union branch") &&
           !f.libavro_failed(avro_value_set_null(&branch), "set null");
    } else {
      ok = f.fail("missing (a field of " + node.label + " whose type " + field.node->label +
                  " is not nullable)");
    }
    if (!ok) {
      f.path.push_back(field.name);
      return false;
    }
  }
  return true;
}

bool encode_union(const Node& node, const json& j, avro_value_t* v, int depth, Failure& f) {
  const int index = pick_branch(node, j);
  if (index < 0) {
    std::string labels;
    for (const Node* branch : node.branches) {
      labels += (labels.empty() ? "" : ", ") + branch->label;
    }
    return f.fail("expected one of [" + labels + "], got " + std::string(json_kind(j)));
  }
  avro_value_t branch;
  if (f.libavro_failed(avro_value_set_branch(v, index, &branch), "select a union branch")) {
    return false;
  }
  return encode(*node.branches[index], j, &branch, depth + 1, f);
}

bool encode(const Node& node, const json& j, avro_value_t* v, int depth, Failure& f) {
  if (depth > kMaxDepth) return f.fail("nested deeper than 256 levels");
  switch (node.type) {
    case AVRO_NULL:
      if (!j.is_null()) return mismatch(node, j, f);
      return !f.libavro_failed(avro_value_set_null(v), "set null");
    case AVRO_BOOLEAN:
      if (!j.is_boolean()) return mismatch(node, j, f);
      return !f.libavro_failed(avro_value_set_boolean(v, j.get<bool>() ? 1 : 0), "set a boolean");
    case AVRO_INT32:
    case AVRO_INT64: {
      if (!j.is_number_integer()) return mismatch(node, j, f);
      if (!fits(node, j)) {
        return f.fail("expected " + node.label + ", got " + j.dump() + " (out of range)");
      }
      if (node.type == AVRO_INT32) {
        return !f.libavro_failed(avro_value_set_int(v, j.get<std::int32_t>()), "set an int");
      }
      return !f.libavro_failed(avro_value_set_long(v, j.get<std::int64_t>()), "set a long");
    }
    case AVRO_FLOAT: {
      if (!j.is_number()) return mismatch(node, j, f);
      const double x = j.get<double>();
      if (std::isfinite(x) && std::abs(x) > std::numeric_limits<float>::max()) {
        return f.fail("expected float, got " + j.dump() + " (out of range)");
      }
      return !f.libavro_failed(avro_value_set_float(v, static_cast<float>(x)), "set a float");
    }
    case AVRO_DOUBLE:
      if (!j.is_number()) return mismatch(node, j, f);
      return !f.libavro_failed(avro_value_set_double(v, j.get<double>()), "set a double");
    case AVRO_STRING: {
      if (!j.is_string()) return mismatch(node, j, f);
      // Lend the JSON's own buffer (with its NUL) to libavro: no copy. reset() releases it.
      const std::string& s = j.get_ref<const std::string&>();
      avro_wrapped_buffer_t buffer;
      return !f.libavro_failed(avro_wrapped_buffer_new(&buffer, s.c_str(), s.size() + 1),
                               "wrap a string") &&
             !f.libavro_failed(avro_value_give_string_len(v, &buffer), "set a string");
    }
    case AVRO_BYTES:
    case AVRO_FIXED: {
      if (!is_byte_string(j)) return mismatch(node, j, f);
      const std::string_view bytes = byte_string(j);
      if (node.type == AVRO_FIXED && bytes.size() != node.fixed_size) {
        return f.fail("expected " + node.label + " of " + std::to_string(node.fixed_size) +
                      " bytes, got " + std::to_string(bytes.size()));
      }
      avro_wrapped_buffer_t buffer;
      if (f.libavro_failed(avro_wrapped_buffer_new(&buffer, bytes.data(), bytes.size()),
                           "wrap bytes")) {
        return false;
      }
      return node.type == AVRO_BYTES
                 ? !f.libavro_failed(avro_value_give_bytes(v, &buffer), "set bytes")
                 : !f.libavro_failed(avro_value_give_fixed(v, &buffer), "set a fixed");
    }
    case AVRO_ENUM: {
      if (!j.is_string()) return mismatch(node, j, f);
      const auto symbol = node.symbol_index.find(j.get_ref<const std::string&>());
      if (symbol == node.symbol_index.end()) {
        std::string symbols;
        for (const auto& s : node.symbols) symbols += (symbols.empty() ? "" : ", ") + s;
        return f.fail("'" + j.get_ref<const std::string&>() + "' is not a symbol of " + node.label +
                      " (" + symbols + ")");
      }
      return !f.libavro_failed(avro_value_set_enum(v, symbol->second), "set an enum");
    }
    case AVRO_ARRAY: {
      if (!j.is_array()) return mismatch(node, j, f);
      for (std::size_t i = 0; i < j.size(); ++i) {
        avro_value_t child;
        if (f.libavro_failed(avro_value_append(v, &child, nullptr), "append to an array") ||
            !encode(*node.items, j[i], &child, depth + 1, f)) {
          f.path.push_back(index_segment(i));
          return false;
        }
      }
      return true;
    }
    case AVRO_MAP: {
      if (!j.is_object()) return mismatch(node, j, f);
      for (const auto& [key, value] : j.items()) {
        if (key.find('\0') != std::string::npos) {
          f.path.push_back(key_segment(key));
          return f.fail("a map key cannot contain a NUL character");
        }
        avro_value_t child;
        if (f.libavro_failed(avro_value_add(v, key.c_str(), &child, nullptr, nullptr),
                             "add to a map") ||
            !encode(*node.items, value, &child, depth + 1, f)) {
          f.path.push_back(key_segment(key));
          return false;
        }
      }
      return true;
    }
    case AVRO_RECORD: return encode_record(node, j, v, depth, f);
    case AVRO_UNION: return encode_union(node, j, v, depth, f);
    default: return f.fail("unsupported type " + node.label, StatusCode::kInternal);
  }
}

// ---------------------------------------------------------------------------------------------
// Bytes: the bounds check that runs before libavro reads them.

class Validator {
 public:
  // begin: the start of the whole input (offsets in messages count from it); body: where the
  // Avro value starts.
  Validator(const char* begin, const char* body, const char* end)
      : begin_(reinterpret_cast<const std::uint8_t*>(begin)),
        p_(reinterpret_cast<const std::uint8_t*>(body)),
        end_(reinterpret_cast<const std::uint8_t*>(end)) {}

  std::size_t offset() const { return static_cast<std::size_t>(p_ - begin_); }
  std::size_t left() const { return static_cast<std::size_t>(end_ - p_); }

  bool value(const Node& node, int depth, Failure& f) {
    mark_ = p_;
    if (depth > kMaxDepth) return corrupt("nested deeper than 256 levels", f);
    switch (node.type) {
      case AVRO_NULL: return true;
      case AVRO_BOOLEAN:
        if (!need(1, "a boolean", f)) return false;
        if (*p_ > 1) return corrupt("invalid boolean byte " + std::to_string(*p_), f);
        ++p_;
        return true;
      case AVRO_INT32: {
        std::int64_t v;
        if (!varint(&v, "an int", f)) return false;
        if (v < std::numeric_limits<std::int32_t>::min() ||
            v > std::numeric_limits<std::int32_t>::max()) {
          return corrupt("int value " + std::to_string(v) + " out of range", f);
        }
        return true;
      }
      case AVRO_INT64: {
        std::int64_t v;
        return varint(&v, "a long", f);
      }
      case AVRO_FLOAT: return skip(4, "a float", f);
      case AVRO_DOUBLE: return skip(8, "a double", f);
      case AVRO_STRING:
      case AVRO_BYTES: return length_prefixed(node.type == AVRO_STRING ? "string" : "bytes", f);
      case AVRO_FIXED: return skip(node.fixed_size, node.label.c_str(), f);
      case AVRO_ENUM: {
        std::int64_t index;
        if (!varint(&index, "an enum index", f)) return false;
        if (index < 0 || static_cast<std::uint64_t>(index) >= node.symbols.size()) {
          return corrupt("enum index " + std::to_string(index) + " out of range for " + node.label +
                             " (" + std::to_string(node.symbols.size()) + " symbols)",
                         f);
        }
        return true;
      }
      case AVRO_UNION: {
        std::int64_t index;
        if (!varint(&index, "a union branch index", f)) return false;
        if (index < 0 || static_cast<std::uint64_t>(index) >= node.branches.size()) {
          return corrupt("union branch index " + std::to_string(index) + " out of range (" +
                             std::to_string(node.branches.size()) + " branches)",
                         f);
        }
        return value(*node.branches[index], depth + 1, f);
      }
      case AVRO_RECORD:
        for (const Field& field : node.fields) {
          if (!value(*field.node, depth + 1, f)) {
            f.path.push_back(field.name);
            return false;
          }
        }
        return true;
      case AVRO_ARRAY:
      case AVRO_MAP: return blocks(node, depth, f);
      default: return corrupt("unsupported type " + node.label, f);
    }
  }

 private:
  // Reports a problem with the item that starts at mark_.
  bool corrupt(std::string problem, Failure& f) {
    f.offset = static_cast<std::size_t>(mark_ - begin_);
    return f.fail(std::move(problem), StatusCode::kCorruption);
  }

  bool need(std::uint64_t n, const char* what, Failure& f) {
    if (n <= left()) return true;
    return corrupt(std::string(what) + " needs " + std::to_string(n) + " bytes, " +
                       std::to_string(left()) + " left",
                   f);
  }

  bool skip(std::uint64_t n, const char* what, Failure& f) {
    if (!need(n, what, f)) return false;
    p_ += n;
    return true;
  }

  // A zigzag varint of at most 10 bytes, as libavro reads it.
  bool varint(std::int64_t* out, const char* what, Failure& f) {
    mark_ = p_;
    std::uint64_t raw = 0;
    for (int i = 0;; ++i) {
      if (i == 10) return corrupt(std::string(what) + ": varint longer than 10 bytes", f);
      if (p_ == end_) return corrupt(std::string(what) + " runs past the end", f);
      const std::uint8_t b = *p_++;
      raw |= static_cast<std::uint64_t>(b & 0x7f) << (7 * i);
      if ((b & 0x80) == 0) break;
    }
    *out = static_cast<std::int64_t>((raw >> 1) ^ (~(raw & 1) + 1));
    return true;
  }

  // A string or bytes; *content (if given) is set to the bytes without the length.
  bool length_prefixed(const char* what, Failure& f, std::string_view* content = nullptr) {
    std::int64_t length;
    if (!varint(&length, what, f)) return false;
    if (length < 0) {
      return corrupt(std::string(what) + " with negative length " + std::to_string(length), f);
    }
    if (static_cast<std::uint64_t>(length) > left()) {
      return corrupt(std::string(what) + " of " + std::to_string(length) + " bytes, only " +
                         std::to_string(left()) + " left",
                     f);
    }
    if (content != nullptr) {
      *content = {reinterpret_cast<const char*>(p_), static_cast<std::size_t>(length)};
    }
    p_ += length;
    return true;
  }

  // Arrays and maps: blocks of items, each block a count (negative: followed by its size in
  // bytes), ending with a zero count.
  bool blocks(const Node& node, int depth, Failure& f) {
    const bool map = node.type == AVRO_MAP;
    const std::size_t item_min = map ? saturating_add(1, node.items->min_size)  // + the key
                                     : node.items->min_size;
    std::size_t index = 0;
    for (;;) {
      std::int64_t count;
      if (!varint(&count, "a block count", f)) return false;
      if (count == 0) return true;
      if (count < 0) {
        if (count == std::numeric_limits<std::int64_t>::min()) {
          return corrupt("invalid block count " + std::to_string(count), f);
        }
        count = -count;
        std::int64_t size;
        if (!varint(&size, "a block size", f)) return false;
        if (size < 0) return corrupt("negative block size " + std::to_string(size), f);
      }
      const auto items = static_cast<std::uint64_t>(count);
      if (item_min > 0) {
        if (items > left() / item_min) {
          return corrupt("a block of " + std::to_string(items) + " " + node.label +
                             " items cannot fit in the " + std::to_string(left()) + " bytes left",
                         f);
        }
      } else {
        if (items > kMaxZeroSizeItems - zero_size_items_) {
          return corrupt(
              "more than " + std::to_string(kMaxZeroSizeItems) + " zero-size array items", f);
        }
        zero_size_items_ += items;
      }
      for (std::uint64_t i = 0; i < items; ++i, ++index) {
        std::string_view key;
        if (map) {
          if (!length_prefixed("a map key", f, &key)) {
            f.path.push_back(index_segment(index));
            return false;
          }
          // libavro keeps map keys as C strings: it would cut this one short.
          if (key.find('\0') != std::string_view::npos) {
            corrupt("a map key with a NUL character", f);
            f.path.push_back(index_segment(index));
            return false;
          }
        }
        if (!value(*node.items, depth + 1, f)) {
          f.path.push_back(map ? key_segment(key) : index_segment(index));
          return false;
        }
      }
    }
  }

  const std::uint8_t* begin_;
  const std::uint8_t* p_;
  const std::uint8_t* end_;
  const std::uint8_t* mark_ = nullptr;  // where the item being checked starts
  std::uint64_t zero_size_items_ = 0;
};

// ---------------------------------------------------------------------------------------------
// avro_value_t -> JSON.

bool decode(const Node& node, const avro_value_t* v, json& out, Failure& f) {
  switch (node.type) {
    case AVRO_NULL: out = nullptr; return true;
    case AVRO_BOOLEAN: {
      int b = 0;
      if (f.libavro_failed(avro_value_get_boolean(v, &b), "get a boolean")) return false;
      out = b != 0;
      return true;
    }
    case AVRO_INT32: {
      std::int32_t i = 0;
      if (f.libavro_failed(avro_value_get_int(v, &i), "get an int")) return false;
      out = i;
      return true;
    }
    case AVRO_INT64: {
      std::int64_t l = 0;
      if (f.libavro_failed(avro_value_get_long(v, &l), "get a long")) return false;
      out = l;
      return true;
    }
    case AVRO_FLOAT: {
      float x = 0;
      if (f.libavro_failed(avro_value_get_float(v, &x), "get a float")) return false;
      out = static_cast<double>(x);
      return true;
    }
    case AVRO_DOUBLE: {
      double x = 0;
      if (f.libavro_failed(avro_value_get_double(v, &x), "get a double")) return false;
      out = x;
      return true;
    }
    case AVRO_STRING: {
      const char* s = nullptr;
      std::size_t size = 0;  // includes the NUL
      if (f.libavro_failed(avro_value_get_string(v, &s, &size), "get a string")) return false;
      out = s == nullptr || size == 0 ? std::string() : std::string(s, size - 1);
      return true;
    }
    case AVRO_BYTES:
    case AVRO_FIXED: {
      const void* buf = nullptr;
      std::size_t size = 0;
      const int rc = node.type == AVRO_BYTES ? avro_value_get_bytes(v, &buf, &size)
                                             : avro_value_get_fixed(v, &buf, &size);
      if (f.libavro_failed(rc, "get bytes")) return false;
      out = buf == nullptr ? std::string() : std::string(static_cast<const char*>(buf), size);
      return true;
    }
    case AVRO_ENUM: {
      int index = 0;
      if (f.libavro_failed(avro_value_get_enum(v, &index), "get an enum")) return false;
      if (index < 0 || static_cast<std::size_t>(index) >= node.symbols.size()) {
        return f.fail("enum index " + std::to_string(index) + " out of range",
                      StatusCode::kCorruption);
      }
      out = node.symbols[index];
      return true;
    }
    case AVRO_ARRAY:
    case AVRO_MAP: {
      std::size_t size = 0;
      if (f.libavro_failed(avro_value_get_size(v, &size), "get a size")) return false;
      const bool map = node.type == AVRO_MAP;
      out = map ? json::object() : json::array();
      if (!map) out.get_ref<json::array_t&>().resize(size);
      for (std::size_t i = 0; i < size; ++i) {
        avro_value_t child;
        const char* key = nullptr;
        if (f.libavro_failed(avro_value_get_by_index(v, i, &child, map ? &key : nullptr),
                             "get an item")) {
          return false;
        }
        if (map && key == nullptr) {
          return f.fail("a map entry without a key", StatusCode::kInternal);
        }
        json& slot = map ? out[key] : out[i];
        if (!decode(*node.items, &child, slot, f)) {
          f.path.push_back(map ? key_segment(key) : index_segment(i));
          return false;
        }
      }
      return true;
    }
    case AVRO_RECORD: {
      out = json::object();
      auto& object = out.get_ref<json::object_t&>();
      // In name order, so that each member goes at the end of the object's sorted map.
      for (const std::size_t i : node.fields_by_name) {
        const Field& field = node.fields[i];
        avro_value_t child;
        if (f.libavro_failed(avro_value_get_by_index(v, i, &child, nullptr), "get a field")) {
          return false;
        }
        auto member = object.emplace_hint(object.end(), field.name, nullptr);
        if (!decode(*field.node, &child, member->second, f)) {
          f.path.push_back(field.name);
          return false;
        }
      }
      return true;
    }
    case AVRO_UNION: {
      int index = -1;
      avro_value_t branch;
      if (f.libavro_failed(avro_value_get_discriminant(v, &index), "get a union branch") ||
          f.libavro_failed(avro_value_get_current_branch(v, &branch), "get a union branch")) {
        return false;
      }
      if (index < 0 || static_cast<std::size_t>(index) >= node.branches.size()) {
        return f.fail("union branch index " + std::to_string(index) + " out of range",
                      StatusCode::kCorruption);
      }
      return decode(*node.branches[index], &branch, out, f);
    }
    default: return f.fail("unsupported type " + node.label, StatusCode::kInternal);
  }
}

// ---------------------------------------------------------------------------------------------
// Per-call libavro objects.

struct Scratch {
  avro_value_t value{nullptr, nullptr};
  avro_writer_t writer = nullptr;
  avro_reader_t reader = nullptr;

  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() {
    if (value.iface != nullptr) avro_value_decref(&value);
    if (writer != nullptr) avro_writer_free(writer);
    if (reader != nullptr) avro_reader_free(reader);
  }
};

}  // namespace

struct AvroSerde::Impl {
  avro_schema_t schema = nullptr;
  avro_value_iface_t* iface = nullptr;
  std::vector<std::unique_ptr<Node>> nodes;
  const Node* root = nullptr;
  AvroOptions options;

  mutable std::mutex pool_mutex;
  mutable std::vector<std::unique_ptr<Scratch>> pool;

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() {
    pool.clear();  // the pooled values hold references to iface
    if (iface != nullptr) avro_value_iface_decref(iface);
    if (schema != nullptr) avro_schema_decref(schema);
  }

  // Scratch objects on loan for one call; reset and returned to the pool at the end.
  class Lease {
   public:
    Lease(const Impl* impl, std::unique_ptr<Scratch> scratch)
        : impl_(impl), scratch_(std::move(scratch)) {}
    Lease(Lease&& other) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (scratch_) impl_->give_back(std::move(scratch_));
    }
    Scratch& operator*() const { return *scratch_; }
    Scratch* operator->() const { return scratch_.get(); }

   private:
    const Impl* impl_;
    std::unique_ptr<Scratch> scratch_;
  };

  Result<Lease> lease() const {
    {
      std::lock_guard lock(pool_mutex);
      if (!pool.empty()) {
        auto scratch = std::move(pool.back());
        pool.pop_back();
        return Lease(this, std::move(scratch));
      }
    }
    auto scratch = std::make_unique<Scratch>();
    Failure f;
    if (f.libavro_failed(avro_generic_value_new(iface, &scratch->value), "create a value")) {
      scratch->value = {nullptr, nullptr};
      return error(Status::internal("avro serde: " + f.problem));
    }
    scratch->writer = avro_writer_memory(nullptr, 0);
    scratch->reader = avro_reader_memory(nullptr, 0);
    if (scratch->writer == nullptr || scratch->reader == nullptr) {
      return error(Status::internal("avro serde: the Avro library failed to create a buffer"));
    }
    return Lease(this, std::move(scratch));
  }

  void give_back(std::unique_ptr<Scratch> scratch) const {
    // Drops what the last call stored, including buffers lent by the caller's JSON.
    if (avro_value_reset(&scratch->value) != 0) return;  // not reusable: freed here
    avro_writer_memory_set_dest(scratch->writer, nullptr, 0);
    avro_reader_memory_set_source(scratch->reader, nullptr, 0);
    std::lock_guard lock(pool_mutex);
    if (pool.size() < kMaxPooledScratch) pool.push_back(std::move(scratch));
  }
};

namespace {

Status to_status(const Failure& f, std::string_view context) {
  std::string message = "avro serde: ";
  message += context;
  const std::string path = f.rendered_path();
  if (!path.empty()) message += "field '" + path + "': ";
  message += f.problem;
  return {f.code, std::move(message)};
}

}  // namespace

AvroSerde::AvroSerde(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
AvroSerde::~AvroSerde() = default;

std::string_view AvroSerde::name() const { return "avro"; }

Result<std::shared_ptr<const AvroSerde>> AvroSerde::make(std::string_view schema_json,
                                                         AvroOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  if (schema_json.empty()) {
    return error(Status::invalid_argument("avro serde: invalid schema: empty"));
  }
  {
    std::lock_guard lock(avro_error_mutex());
    avro_schema_t schema = nullptr;
    if (avro_schema_from_json_length(schema_json.data(), schema_json.size(), &schema) != 0) {
      // On failure libavro has already released what it parsed; schema must not be used.
      return error(Status::invalid_argument("avro serde: invalid schema: " + last_avro_error()));
    }
    if (schema == nullptr) {
      return error(Status::invalid_argument("avro serde: invalid schema: no schema"));
    }
    impl->schema = schema;
    impl->iface = avro_generic_class_from_schema(schema);
    if (impl->iface == nullptr) {
      return error(
          Status::invalid_argument("avro serde: unsupported schema: " + last_avro_error()));
    }
  }
  SchemaCompiler compiler;
  auto root = compiler.compile(impl->schema);
  if (!root) return error(std::move(root.error()));
  impl->root = *root;
  impl->nodes = compiler.take_nodes();
  return std::shared_ptr<const AvroSerde>(new AvroSerde(std::move(impl)));
}

Result<std::string> AvroSerde::serialize(const nlohmann::json& value) const {
  auto scratch = impl_->lease();
  if (!scratch) return error(std::move(scratch.error()));
  avro_value_t* v = &(*scratch)->value;

  Failure f;
  if (!encode(*impl_->root, value, v, 0, f)) return error(to_status(f, ""));

  std::size_t size = 0;
  if (f.libavro_failed(avro_value_sizeof(v, &size), "size a value")) {
    return error(to_status(f, ""));
  }
  const std::size_t header = impl_->options.confluent_schema_id ? kConfluentHeaderSize : 0;
  std::string out(header + size, '\0');
  if (header != 0) {
    out[0] = '\0';
    internal::put_big_endian(out.data() + 1,
                             static_cast<std::uint32_t>(*impl_->options.confluent_schema_id));
  }
  avro_writer_t writer = (*scratch)->writer;
  avro_writer_memory_set_dest(writer, out.data() + header, static_cast<std::int64_t>(size));
  if (f.libavro_failed(avro_value_write(writer, v), "write a value")) {
    return error(to_status(f, ""));
  }
  if (avro_writer_tell(writer) != static_cast<std::int64_t>(size)) {
    return error(Status::internal("avro serde: the Avro library wrote " +
                                  std::to_string(avro_writer_tell(writer)) + " bytes, not " +
                                  std::to_string(size)));
  }
  return out;
}

Result<nlohmann::json> AvroSerde::deserialize(std::string_view bytes) const {
  std::string_view body = bytes;
  if (impl_->options.confluent_schema_id) {
    if (bytes.size() < kConfluentHeaderSize) {
      return error(Status::corruption(
          "avro serde: expected the 5-byte Confluent header (magic byte 0, schema id), got " +
          std::to_string(bytes.size()) + " bytes"));
    }
    if (bytes[0] != '\0') {
      return error(Status::corruption("avro serde: expected Confluent magic byte 0, got " +
                                      std::to_string(static_cast<std::uint8_t>(bytes[0]))));
    }
    const auto id = internal::get_big_endian<std::int32_t>(bytes.data() + 1);
    if (id != *impl_->options.confluent_schema_id) {
      return error(Status::corruption("avro serde: expected Confluent schema id " +
                                      std::to_string(*impl_->options.confluent_schema_id) +
                                      ", got " + std::to_string(id)));
    }
    body = bytes.substr(kConfluentHeaderSize);
  }

  Validator validator(bytes.data(), body.data(), body.data() + body.size());
  Failure f;
  if (!validator.value(*impl_->root, 0, f)) {
    return error(to_status(f, "corrupt bytes at offset " + std::to_string(f.offset) + ": "));
  }
  if (validator.left() != 0) {
    return error(Status::corruption("avro serde: " + std::to_string(validator.left()) +
                                    " trailing bytes after the value (at offset " +
                                    std::to_string(validator.offset()) + ")"));
  }

  auto scratch = impl_->lease();
  if (!scratch) return error(std::move(scratch.error()));
  avro_value_t* v = &(*scratch)->value;
  avro_reader_t reader = (*scratch)->reader;
  // A non-null pointer even for an empty body (libavro refuses to read into a null buffer).
  avro_reader_memory_set_source(reader, body.empty() ? "" : body.data(),
                                static_cast<std::int64_t>(body.size()));
  if (const int rc = avro_value_read(reader, v); rc != 0) {
    std::lock_guard lock(avro_error_mutex());
    return error(Status::corruption("avro serde: cannot decode: " + last_avro_error()));
  }
  json out;
  if (!decode(*impl_->root, v, out, f)) return error(to_status(f, ""));
  return out;
}

}  // namespace brook
