// JSON serdes for the twins, as Brook's JsonSerde (brook/json_serde.h) reads and writes JSON:
// UTF-8 text of one JSON value; null stays null (a tombstone, or no key). Values are Jackson
// trees (JsonNode) or classes Jackson maps (records); the conformance tests compare JSON values,
// not their bytes (member order and number spelling are the writer's).
package dev.brook.conformance;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

final class Json {
  static final ObjectMapper MAPPER = new ObjectMapper();

  private Json() {}

  static <T> Serde<T> serde(Class<T> type) {
    Serializer<T> serializer = (topic, value) -> {
      if (value == null) return null;
      try {
        return MAPPER.writeValueAsBytes(value);
      } catch (IOException e) {
        throw new SerializationException("writing JSON of " + type.getSimpleName(), e);
      }
    };
    Deserializer<T> deserializer = (topic, bytes) -> {
      if (bytes == null) return null;
      try {
        return MAPPER.readValue(bytes, type);
      } catch (IOException e) {
        throw new SerializationException("reading JSON as " + type.getSimpleName(), e);
      }
    };
    return Serdes.serdeFrom(serializer, deserializer);
  }
}
