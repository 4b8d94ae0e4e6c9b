// What the nodes and contexts of the Processor API do whatever their types
// (brook/processor.h, brook/internal/node.h): the context's questions, asked of the task on
// behalf of the node, and the nodes' error messages.
#include "brook/processor.h"

#include <fmt/format.h>

#include "brook/internal/node.h"

namespace brook {

Cancellable ProcessorContextBase::schedule(std::chrono::milliseconds interval, PunctuationType type,
                                           Punctuator punctuator) {
  return task_->schedule(node_, interval, type, std::move(punctuator));
}

std::optional<RecordMetadata> ProcessorContextBase::record_metadata() const {
  return task_->record_metadata();
}

Timestamp ProcessorContextBase::current_stream_time() const { return task_->stream_time(); }

Timestamp ProcessorContextBase::current_system_time() const { return task_->system_time(); }

TaskId ProcessorContextBase::task_id() const { return task_->task_id(); }

std::string_view ProcessorContextBase::application_id() const { return task_->application_id(); }

void ProcessorContextBase::drop_record(std::string_view reason) {
  task_->drop_record(node_, reason);
}

internal::StoreAccess ProcessorContextBase::state_store(std::string_view name) {
  return task_->state_store(node_, name);
}

internal::StoreAccess internal::store_access(ProcessorContextBase& context, std::string_view name) {
  return context.state_store(name);
}

namespace internal {

void rethrow_in_node(const std::string& node) {
  try {
    throw;
  } catch (const NodeError&) {
    throw;
  } catch (const StoreError&) {
    throw;
  } catch (const std::exception& e) {
    throw NodeError(node, e.what());
  } catch (...) {
    throw NodeError(node, "unknown exception");
  }
}

void no_such_child(std::string_view child) {
  throw std::invalid_argument(fmt::format("no child node named '{}'", child));
}

Status cannot_deserialize(const std::string& node, const SourceRecord& raw, std::string_view what,
                          const Status& cause) {
  return Status(cause.code(),
                fmt::format("source {}: cannot deserialize {} of {}-{}@{}: {}", node, what,
                            raw.topic, raw.partition.value(), raw.offset.value(), cause.message()));
}

std::string internal_topic_name(std::string_view application_id, std::string_view topic) {
  return fmt::format("{}-{}", application_id, topic);
}

void sink_failed(const std::string& node, std::string_view what, const Status* cause) {
  throw NodeError(node, cause == nullptr
                            ? fmt::format("sink {}: {}", node, what)
                            : fmt::format("sink {}: {}: {}", node, what, cause->message()));
}

}  // namespace internal
}  // namespace brook
