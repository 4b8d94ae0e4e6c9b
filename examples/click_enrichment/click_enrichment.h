// click_enrichment: clicks enriched with the clicking user's profile (DESIGN.md pattern 4, a
// stream-table join). The table of profiles (topic `user-profiles`, compacted, key: user id) is
// kept in a local store; each click (topic `user-clicks`, key: user id) looks its user up there
// and goes to `user-clicks-enriched` with the user's age and gender, or age -1 and gender "unknown"
// for a user without a profile (a left join). A profile that changes changes the enrichment
// of the clicks that come after it, never of those before. The profiles store restores from
// `user-profiles` itself (topology.optimization reuse.ktable.source.topics): the application
// keeps no changelog of its own.
//
// The two topics must have the same number of partitions (they are co-partitioned: a user's
// clicks and profile meet in one task); the application refuses to start otherwise.
#pragma once

#include <brook/brook.h>
#include <brook/json_serde.h>

#include <optional>
#include <string>

namespace click_enrichment {

inline constexpr const char* kClicksTopic = "user-clicks";
inline constexpr const char* kProfilesTopic = "user-profiles";
inline constexpr const char* kOutputTopic = "user-clicks-enriched";

// JSON {"page": "/cart"}.
struct Click {
  std::string page;
};
void to_json(nlohmann::json& json, const Click& click);
void from_json(const nlohmann::json& json, Click& click);

// JSON {"age": 34, "gender": "f"}.
struct Profile {
  int age = 0;
  std::string gender;
};
void to_json(nlohmann::json& json, const Profile& profile);
void from_json(const nlohmann::json& json, Profile& profile);

// JSON {"page": "/cart", "age": 34, "gender": "f"}.
struct EnrichedClick {
  std::string page;
  int age = -1;
  std::string gender = "unknown";
  friend bool operator==(const EnrichedClick&, const EnrichedClick&) = default;
};
void to_json(nlohmann::json& json, const EnrichedClick& click);
void from_json(const nlohmann::json& json, EnrichedClick& click);

// The click with the profile's age and gender, or the unknowns without a profile.
EnrichedClick enrich(const Click& click, const std::optional<Profile>& profile);

// Built with `config` (StreamsBuilder::build: its topology.optimization).
brook::Result<brook::Topology> build_topology(
    const std::map<std::string, std::string>& config = {});

}  // namespace click_enrichment
