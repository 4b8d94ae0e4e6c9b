#include "click_enrichment.h"

namespace click_enrichment {

void to_json(nlohmann::json& json, const Click& click) { json = {{"page", click.page}}; }
void from_json(const nlohmann::json& json, Click& click) { json.at("page").get_to(click.page); }

void to_json(nlohmann::json& json, const Profile& profile) {
  json = {{"age", profile.age}, {"gender", profile.gender}};
}
void from_json(const nlohmann::json& json, Profile& profile) {
  json.at("age").get_to(profile.age);
  json.at("gender").get_to(profile.gender);
}

void to_json(nlohmann::json& json, const EnrichedClick& click) {
  json = {{"page", click.page}, {"age", click.age}, {"gender", click.gender}};
}
void from_json(const nlohmann::json& json, EnrichedClick& click) {
  json.at("page").get_to(click.page);
  json.at("age").get_to(click.age);
  json.at("gender").get_to(click.gender);
}

EnrichedClick enrich(const Click& click, const std::optional<Profile>& profile) {
  if (!profile) return {.page = click.page};
  return {.page = click.page, .age = profile->age, .gender = profile->gender};
}

brook::Result<brook::Topology> build_topology(const std::map<std::string, std::string>& config) {
  brook::StreamsBuilder builder;
  auto profiles = builder.table<std::string, Profile>(kProfilesTopic, {}, {.name = "profiles"});
  builder.stream<std::string, Click>(kClicksTopic)
      .left_join(profiles, enrich, {.name = "enrich-clicks"})
      .to(kOutputTopic);
  // The profiles topic is the profiles store's changelog (no second copy of it), unless
  // `config` asks for other optimisations.
  auto with_reuse = config;
  with_reuse.emplace("topology.optimization", "reuse.ktable.source.topics");
  return builder.build(with_reuse);
}

}  // namespace click_enrichment
