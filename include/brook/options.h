// Options of DSL operators, as aggregates for designated initialisers:
//   stream.filter(pred, {.name = "only-errors"});
//   stream.to("out", {.value_serde = std::make_shared<brook::AvroSerde>(schema)});
// An empty name means: generate one (KSTREAM-<OP>-<counter>). Name every node whose name
// must stay stable across versions of the application.
#pragma once

#include <string>
#include <vector>

#include "brook/serde.h"

namespace brook {

struct Named {
  std::string name;
};

// How a source reads a topic. Null serdes mean: the type's DefaultSerde.
template <class K, class V>
struct Consumed {
  SerdePtr<SerdeTargetT<K>> key_serde;
  SerdePtr<SerdeTargetT<V>> value_serde;
  std::string name;
};

// How a sink writes a topic. Null serdes mean: the type's DefaultSerde.
template <class K, class V>
struct Produced {
  SerdePtr<SerdeTargetT<K>> key_serde;
  SerdePtr<SerdeTargetT<V>> value_serde;
  std::string name;
};

// One branch of KStream::split(). The branch's stream is found in the returned map under the
// split's name prefix + this name (or + its 1-based position if unnamed; the default branch
// is "0").
struct Branched {
  std::string name;
};

}  // namespace brook

namespace brook {

// KStream::process(): the node's name and the state stores its processor uses.
struct Processed {
  std::string name;
  std::vector<std::string> stores;
};

}  // namespace brook
