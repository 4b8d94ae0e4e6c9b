#include "profile_enrichment.h"

namespace profile_enrichment {

void to_json(nlohmann::json& json, const UserKey& key) { json = {{"user_id", key.user_id}}; }
void from_json(const nlohmann::json& json, UserKey& key) { json.at("user_id").get_to(key.user_id); }

void to_json(nlohmann::json& json, const Profile& profile) {
  json = {{"name", profile.name}, {"tier", profile.tier}};
}
void from_json(const nlohmann::json& json, Profile& profile) {
  json.at("name").get_to(profile.name);
  json.at("tier").get_to(profile.tier);
}

void to_json(nlohmann::json& json, const Click& click) { json = {{"page", click.page}}; }
void from_json(const nlohmann::json& json, Click& click) { json.at("page").get_to(click.page); }

void to_json(nlohmann::json& json, const EnrichedClick& click) {
  json = {{"page", click.page}, {"name", click.name}, {"tier", click.tier}};
}
void from_json(const nlohmann::json& json, EnrichedClick& click) {
  json.at("page").get_to(click.page);
  json.at("name").get_to(click.name);
  json.at("tier").get_to(click.tier);
}

EnrichedClick enrich(const Click& click, const std::optional<Profile>& profile) {
  if (!profile) return {.page = click.page};
  return {.page = click.page, .name = profile->name, .tier = profile->tier};
}

brook::Result<brook::Topology> build_topology(const std::map<std::string, std::string>& config) {
  brook::StreamsBuilder builder;
  auto profiles =
      builder.table_from_changes<UserKey, Profile>(kProfilesTopic, {}, {.name = "profiles"});
  builder.stream<UserKey, Click>(kClicksTopic)
      .left_join(profiles, enrich, {.name = "enrich-clicks"})
      .to(kOutputTopic);
  return builder.build(config);
}

}  // namespace profile_enrichment
