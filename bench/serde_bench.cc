// Encode and decode rates of Brook's serdes, each next to a baseline that does the same work by
// hand (or with the raw library) without Brook, measured in the same run.
//
// Every benchmark iteration handles a batch of kBatch distinct records; items/s = records/s.
// The Brook side calls the serde through a SerdePtr, as the runtime does (a virtual call that
// returns a brook::Result). The baselines:
//   String  std::string copy of a 100-byte string / std::string from the bytes.
//   Int64   hand-written big-endian memcpy + byteswap into / out of an 8-byte std::string.
//   Double  the same on the IEEE 754 bits.
//   Json    nlohmann::json(obj).dump() / nlohmann::json::parse(bytes).get<Trade>(). Brook's
//           decode also checks that every number was read into its field exactly: it writes
//           the value back with to_json and walks both documents. JsonOrder is the same on an
//           order of 8 lines (an array of objects), 18 numbers per record instead of 3.
//   Avro    the Avro C API: one avro_value_t built once, its five fields rewritten per record
//           and written with avro_value_write into a reused buffer, then copied out to a
//           std::string / read back with avro_value_read into a reused avro_value_t and its
//           fields copied into a Trade. Brook's AvroSerde works on nlohmann::json documents
//           instead (that is its API), so its figures include building / walking the JSON.
#include <avro.h>
#include <benchmark/benchmark.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "brook/avro_serde.h"
#include "brook/json_serde.h"
#include "brook/serde.h"
#include "compare.h"
#include "hand_codec.h"

namespace {

using brook::bench::hand_decode_u64;
using brook::bench::hand_encode_u64;

constexpr std::size_t kBatch = 1024;

// The 5-field record of the JSON and Avro cases.
struct Trade {
  std::string symbol;
  double price = 0;
  std::int64_t volume = 0;
  std::int64_t ts = 0;
  bool buy = false;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Trade, symbol, price, volume, ts, buy)

// The nested record of the JsonOrder case.
struct OrderLine {
  std::string sku;
  std::int64_t qty = 0;
  double price = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(OrderLine, sku, qty, price)

struct Order {
  std::string id;
  std::int64_t ts = 0;
  std::uint32_t customer = 0;
  std::vector<OrderLine> lines;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Order, id, ts, customer, lines)

constexpr const char* kTradeSchema = R"({
  "type": "record", "name": "Trade", "namespace": "brook.bench",
  "fields": [
    {"name": "symbol", "type": "string"},
    {"name": "price", "type": "double"},
    {"name": "volume", "type": "long"},
    {"name": "ts", "type": "long"},
    {"name": "buy", "type": "boolean"}
  ]
})";

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "serde_bench: %s\n", what.c_str());
  std::abort();
}

template <class T>
T unwrap(brook::Result<T> result) {
  if (!result) die(result.error().to_string());
  return std::move(*result);
}

// Inputs: kBatch distinct values of each kind, built once.
const std::vector<std::string>& strings_100() {
  static const auto values = [] {
    std::vector<std::string> v;
    for (std::size_t i = 0; i < kBatch; ++i) {
      std::string s(100, static_cast<char>('a' + i % 26));
      s.replace(0, std::to_string(i).size(), std::to_string(i));
      v.push_back(std::move(s));
    }
    return v;
  }();
  return values;
}

const std::vector<std::int64_t>& int64s() {
  static const auto values = [] {
    std::vector<std::int64_t> v;
    for (std::size_t i = 0; i < kBatch; ++i)
      v.push_back(static_cast<std::int64_t>(i * 7919) - 4000);
    return v;
  }();
  return values;
}

const std::vector<double>& doubles() {
  static const auto values = [] {
    std::vector<double> v;
    for (std::size_t i = 0; i < kBatch; ++i) v.push_back(static_cast<double>(i) * 1.25 - 300.5);
    return v;
  }();
  return values;
}

const std::vector<Trade>& trades() {
  static const auto values = [] {
    const char* symbols[] = {"AAPL", "MSFT", "GOOG", "AMZN", "NVDA", "BRK.B", "TSLA", "META"};
    std::vector<Trade> v;
    for (std::size_t i = 0; i < kBatch; ++i) {
      v.push_back({.symbol = symbols[i % 8],
                   .price = 100.0 + static_cast<double>(i) * 0.01,
                   .volume = static_cast<std::int64_t>(i * 13 + 1),
                   .ts = 1'700'000'000'000 + static_cast<std::int64_t>(i),
                   .buy = i % 2 == 0});
    }
    return v;
  }();
  return values;
}

const std::vector<Order>& orders() {
  static const auto values = [] {
    std::vector<Order> v;
    for (std::size_t i = 0; i < kBatch; ++i) {
      Order order{.id = "order-" + std::to_string(i),
                  .ts = 1'700'000'000'000 + static_cast<std::int64_t>(i),
                  .customer = static_cast<std::uint32_t>(i % 97)};
      for (std::size_t l = 0; l < 8; ++l) {
        order.lines.push_back({.sku = "sku-" + std::to_string((i + l) % 50),
                               .qty = static_cast<std::int64_t>(l + 1),
                               .price = 2.5 + static_cast<double>((i * l) % 400) * 0.25});
      }
      v.push_back(std::move(order));
    }
    return v;
  }();
  return values;
}

const std::vector<nlohmann::json>& trade_documents() {
  static const auto values = [] {
    std::vector<nlohmann::json> v;
    for (const auto& t : trades()) v.push_back(nlohmann::json(t));
    return v;
  }();
  return values;
}

// Encodes every input per iteration. `encode` returns the bytes as a std::string.
template <class T, class Encode>
void run_encode(benchmark::State& state, const std::vector<T>& inputs, Encode encode) {
  std::int64_t bytes = 0;
  for (auto _ : state) {
    for (const T& value : inputs) {
      std::string out = encode(value);
      bytes += static_cast<std::int64_t>(out.size());
      benchmark::DoNotOptimize(out);
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(inputs.size()));
  state.SetBytesProcessed(bytes);
}

// Decodes every encoded input per iteration.
template <class Decode>
void run_decode(benchmark::State& state, const std::vector<std::string>& inputs, Decode decode) {
  std::int64_t batch_bytes = 0;
  for (const auto& bytes : inputs) batch_bytes += static_cast<std::int64_t>(bytes.size());
  for (auto _ : state) {
    for (const std::string& bytes : inputs) {
      auto value = decode(std::string_view(bytes));
      benchmark::DoNotOptimize(value);
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(inputs.size()));
  state.SetBytesProcessed(state.iterations() * batch_bytes);
}

template <class T>
std::vector<std::string> encode_all(const brook::Serde<T>& serde, const std::vector<T>& inputs) {
  std::vector<std::string> out;
  for (const T& v : inputs) out.push_back(unwrap(serde.serialize(v)));
  return out;
}

// Brook side of a case: the serde as the runtime holds it.
template <class T>
void brook_encode(benchmark::State& state, const brook::Serde<T>& serde,
                  const std::vector<T>& inputs) {
  run_encode(state, inputs, [&](const T& v) { return unwrap(serde.serialize(v)); });
}
template <class T>
void brook_decode(benchmark::State& state, const brook::Serde<T>& serde,
                  const std::vector<T>& inputs) {
  run_decode(state, encode_all(serde, inputs),
             [&](std::string_view b) { return unwrap(serde.deserialize(b)); });
}

// ---- string (100 bytes) ----

void BM_BrookStringEncode(benchmark::State& state) {
  brook_encode(state, *brook::default_serde<std::string>(), strings_100());
}
void BM_BaselineStringEncode(benchmark::State& state) {
  run_encode(state, strings_100(), [](const std::string& s) { return std::string(s); });
}
void BM_BrookStringDecode(benchmark::State& state) {
  brook_decode(state, *brook::default_serde<std::string>(), strings_100());
}
void BM_BaselineStringDecode(benchmark::State& state) {
  run_decode(state, strings_100(), [](std::string_view b) { return std::string(b); });
}

// ---- int64 ----

void BM_BrookInt64Encode(benchmark::State& state) {
  brook_encode(state, *brook::default_serde<std::int64_t>(), int64s());
}
void BM_BaselineInt64Encode(benchmark::State& state) {
  run_encode(state, int64s(),
             [](std::int64_t v) { return hand_encode_u64(static_cast<std::uint64_t>(v)); });
}
void BM_BrookInt64Decode(benchmark::State& state) {
  brook_decode(state, *brook::default_serde<std::int64_t>(), int64s());
}
void BM_BaselineInt64Decode(benchmark::State& state) {
  std::vector<std::string> encoded;
  for (auto v : int64s()) encoded.push_back(hand_encode_u64(static_cast<std::uint64_t>(v)));
  run_decode(state, encoded, [](std::string_view b) {
    if (b.size() != 8) die("int64: bad size");
    return static_cast<std::int64_t>(hand_decode_u64(b));
  });
}

// ---- double ----

void BM_BrookDoubleEncode(benchmark::State& state) {
  brook_encode(state, *brook::default_serde<double>(), doubles());
}
void BM_BaselineDoubleEncode(benchmark::State& state) {
  run_encode(state, doubles(),
             [](double v) { return hand_encode_u64(std::bit_cast<std::uint64_t>(v)); });
}
void BM_BrookDoubleDecode(benchmark::State& state) {
  brook_decode(state, *brook::default_serde<double>(), doubles());
}
void BM_BaselineDoubleDecode(benchmark::State& state) {
  std::vector<std::string> encoded;
  for (auto v : doubles()) encoded.push_back(hand_encode_u64(std::bit_cast<std::uint64_t>(v)));
  run_decode(state, encoded, [](std::string_view b) {
    if (b.size() != 8) die("double: bad size");
    return std::bit_cast<double>(hand_decode_u64(b));
  });
}

// ---- JSON (5-field struct) ----

void BM_BrookJsonEncode(benchmark::State& state) {
  brook_encode(state, *brook::default_serde<Trade>(), trades());
}
void BM_BaselineJsonEncode(benchmark::State& state) {
  run_encode(state, trades(), [](const Trade& t) { return nlohmann::json(t).dump(); });
}
void BM_BrookJsonDecode(benchmark::State& state) {
  brook_decode(state, *brook::default_serde<Trade>(), trades());
}
void BM_BaselineJsonDecode(benchmark::State& state) {
  std::vector<std::string> encoded;
  for (const auto& t : trades()) encoded.push_back(nlohmann::json(t).dump());
  run_decode(state, encoded,
             [](std::string_view b) { return nlohmann::json::parse(b).get<Trade>(); });
}

// ---- JSON (an order of 8 lines) ----

void BM_BrookJsonOrderDecode(benchmark::State& state) {
  brook_decode(state, *brook::default_serde<Order>(), orders());
}
void BM_BaselineJsonOrderDecode(benchmark::State& state) {
  std::vector<std::string> encoded;
  for (const auto& o : orders()) encoded.push_back(nlohmann::json(o).dump());
  run_decode(state, encoded,
             [](std::string_view b) { return nlohmann::json::parse(b).get<Order>(); });
}

// ---- Avro (the same 5-field record) ----

std::shared_ptr<const brook::AvroSerde> avro_serde() {
  static const auto serde = unwrap(brook::AvroSerde::make(kTradeSchema));
  return serde;
}

void BM_BrookAvroEncode(benchmark::State& state) {
  brook_encode<nlohmann::json>(state, *avro_serde(), trade_documents());
}
void BM_BrookAvroDecode(benchmark::State& state) {
  brook_decode<nlohmann::json>(state, *avro_serde(), trade_documents());
}

// The raw Avro C API: one generic record value, reused for every record.
class RawAvro {
 public:
  RawAvro() {
    if (avro_schema_from_json_length(kTradeSchema, std::string_view(kTradeSchema).size(),
                                     &schema_) != 0) {
      die(avro_strerror());
    }
    iface_ = avro_generic_class_from_schema(schema_);
    if (iface_ == nullptr || avro_generic_value_new(iface_, &record_) != 0) die(avro_strerror());
    for (std::size_t i = 0; i < 5; ++i) {
      if (avro_value_get_by_index(&record_, i, &fields_[i], nullptr) != 0) die(avro_strerror());
    }
    writer_ = avro_writer_memory(buffer_, sizeof buffer_);
    reader_ = avro_reader_memory(buffer_, 0);
  }
  ~RawAvro() {
    avro_reader_free(reader_);
    avro_writer_free(writer_);
    avro_value_decref(&record_);
    avro_value_iface_decref(iface_);
    avro_schema_decref(schema_);
  }
  RawAvro(const RawAvro&) = delete;
  RawAvro& operator=(const RawAvro&) = delete;

  std::string encode(const Trade& t) {
    check(avro_value_set_string_len(&fields_[0], t.symbol.c_str(), t.symbol.size() + 1));
    check(avro_value_set_double(&fields_[1], t.price));
    check(avro_value_set_long(&fields_[2], t.volume));
    check(avro_value_set_long(&fields_[3], t.ts));
    check(avro_value_set_boolean(&fields_[4], t.buy ? 1 : 0));
    avro_writer_reset(writer_);
    check(avro_value_write(writer_, &record_));
    return std::string(buffer_, static_cast<std::size_t>(avro_writer_tell(writer_)));
  }

  Trade decode(std::string_view bytes) {
    avro_reader_memory_set_source(reader_, bytes.data(), static_cast<std::int64_t>(bytes.size()));
    check(avro_value_read(reader_, &record_));
    Trade t;
    const char* symbol = nullptr;
    std::size_t size = 0;  // includes the terminating NUL
    check(avro_value_get_string(&fields_[0], &symbol, &size));
    t.symbol.assign(symbol, size - 1);
    check(avro_value_get_double(&fields_[1], &t.price));
    check(avro_value_get_long(&fields_[2], &t.volume));
    check(avro_value_get_long(&fields_[3], &t.ts));
    int buy = 0;
    check(avro_value_get_boolean(&fields_[4], &buy));
    t.buy = buy != 0;
    return t;
  }

 private:
  static void check(int rc) {
    if (rc != 0) die(avro_strerror());
  }

  avro_schema_t schema_ = nullptr;
  avro_value_iface_t* iface_ = nullptr;
  avro_value_t record_;
  avro_value_t fields_[5];
  char buffer_[256];
  avro_writer_t writer_ = nullptr;
  avro_reader_t reader_ = nullptr;
};

void BM_BaselineAvroEncode(benchmark::State& state) {
  RawAvro avro;
  run_encode(state, trades(), [&](const Trade& t) { return avro.encode(t); });
}
void BM_BaselineAvroDecode(benchmark::State& state) {
  RawAvro avro;
  std::vector<std::string> encoded;
  for (const auto& t : trades()) encoded.push_back(avro.encode(t));
  run_decode(state, encoded, [&](std::string_view b) { return avro.decode(b); });
}

BENCHMARK(BM_BrookStringEncode);
BENCHMARK(BM_BaselineStringEncode);
BENCHMARK(BM_BrookStringDecode);
BENCHMARK(BM_BaselineStringDecode);
BENCHMARK(BM_BrookInt64Encode);
BENCHMARK(BM_BaselineInt64Encode);
BENCHMARK(BM_BrookInt64Decode);
BENCHMARK(BM_BaselineInt64Decode);
BENCHMARK(BM_BrookDoubleEncode);
BENCHMARK(BM_BaselineDoubleEncode);
BENCHMARK(BM_BrookDoubleDecode);
BENCHMARK(BM_BaselineDoubleDecode);
BENCHMARK(BM_BrookJsonEncode);
BENCHMARK(BM_BaselineJsonEncode);
BENCHMARK(BM_BrookJsonDecode);
BENCHMARK(BM_BaselineJsonDecode);
BENCHMARK(BM_BrookJsonOrderDecode);
BENCHMARK(BM_BaselineJsonOrderDecode);
BENCHMARK(BM_BrookAvroEncode);
BENCHMARK(BM_BaselineAvroEncode);
BENCHMARK(BM_BrookAvroDecode);
BENCHMARK(BM_BaselineAvroDecode);

}  // namespace

int main(int argc, char** argv) { return brook::bench::run_and_compare(argc, argv); }
