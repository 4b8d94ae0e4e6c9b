#include "serve/prometheus.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <map>

namespace brook::internal {

namespace {

std::string sanitize(std::string_view text) {
  std::string out;
  for (char c : text) out.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return out;
}

std::string escape_label(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out.push_back(c);
  }
  return out;
}

std::string labels(const std::map<std::string, std::string>& tags) {
  if (tags.empty()) return "";
  std::string out = "{";
  for (const auto& [key, value] : tags) {
    if (out.size() > 1) out += ",";
    out += fmt::format("{}=\"{}\"", sanitize(key), escape_label(value));
  }
  return out + "}";
}

// A sample value as the format spells it: NaN, +Inf, -Inf, or the shortest exact decimal.
std::string number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", value);
}

// One metric family: its HELP and TYPE lines, then its samples.
class Family {
 public:
  Family(std::string name, std::string type, std::string help)
      : name_(std::move(name)), type_(std::move(type)), help_(std::move(help)) {}
  void add(const std::map<std::string, std::string>& tags, double value) {
    samples_ += fmt::format("{}{} {}\n", name_, labels(tags), number(value));
  }
  void write(std::string& out) const {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n{}", name_, help_, name_, type_, samples_);
  }

 private:
  std::string name_, type_, help_, samples_;
};

}  // namespace

std::string prometheus_name(const MetricName& name) {
  std::string group = name.group;
  if (group.ends_with("-metrics")) group.resize(group.size() - 8);
  return "kafka_streams_" + sanitize(group) + "_metrics_" + sanitize(name.name);
}

std::string prometheus_text(const Streams& app) {
  std::map<std::string, Family> families;
  auto family = [&](const std::string& name, const char* type, std::string help) -> Family& {
    return families.try_emplace(name, name, type, std::move(help)).first->second;
  };
  for (const auto& metric : app.metrics().snapshot()) {
    const bool counter = metric.name.name.ends_with("-total");
    family(prometheus_name(metric.name), counter ? "counter" : "gauge",
           fmt::format("{} ({})", metric.name.name, metric.name.group))
        .add(metric.name.tags, metric.value);
  }
  const auto now = to_string(app.state());
  auto& state = family("kafka_streams_stream_metrics_state", "gauge",
                       "1 for the application's current state (stream-metrics state)");
  for (auto s :
       {Streams::State::kCreated, Streams::State::kRebalancing, Streams::State::kRunning,
        Streams::State::kPendingShutdown, Streams::State::kNotRunning, Streams::State::kError}) {
    state.add({{"state", std::string(to_string(s))}}, to_string(s) == now ? 1 : 0);
  }
  if (auto lags = app.partition_lags()) {
    auto& lag = family("kafka_streams_consumer_fetch_manager_metrics_records_lag", "gauge",
                       "records of the input partition not yet processed and committed "
                       "(records-lag)");
    for (const auto& [topic, partitions] : *lags) {
      for (const auto& [partition, records] : partitions) {
        lag.add({{"topic", topic}, {"partition", std::to_string(partition)}}, records);
      }
    }
  }
  if (auto stores = app.local_store_lags()) {
    auto& remaining =
        family("kafka_streams_stream_state_metrics_restore_remaining_records_total", "gauge",
               "changelog records the local store partition has yet to restore "
               "(restore-remaining-records-total)");
    auto& restoring = family("kafka_streams_stream_state_metrics_restoring", "gauge",
                             "1 while the local store partition restores");
    auto& offset = family("kafka_streams_stream_state_metrics_changelog_offset", "gauge",
                          "the changelog offset the local store partition holds up to");
    auto& standby = family("kafka_streams_stream_state_metrics_standby_records_lag", "gauge",
                           "changelog records the standby replica of the store partition kept "
                           "here has yet to read");
    for (const auto& [store, partitions] : *stores) {
      for (const auto& [partition, info] : partitions) {
        const std::map<std::string, std::string> tags{{"store", store},
                                                      {"partition", std::to_string(partition)}};
        if (info.standby) {
          standby.add(tags, info.lag);
          continue;
        }
        remaining.add(tags, info.restoring ? info.lag : 0);
        restoring.add(tags, info.restoring ? 1 : 0);
        offset.add(tags, info.current_offset);
      }
    }
  }
  std::string out;
  for (const auto& [name, f] : families) f.write(out);
  return out;
}

}  // namespace brook::internal
