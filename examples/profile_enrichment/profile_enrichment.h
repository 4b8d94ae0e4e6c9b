// profile_enrichment: the seed's stream-table join, its table fed by change data capture. The
// `profiles` table of a PostgreSQL database is captured by Brook's PostgreSQL source
// (brook/postgres_source.h) into the topic `pg.public.profiles` as Debezium change events; the
// application keeps its rows as a table (table_from_changes) and enriches each click (topic
// `clicks`) with the clicking user's name and tier into `clicks-enriched`, or tier "unknown"
// for a user without a profile (a left join). An UPDATE of a profile in PostgreSQL changes the
// enrichment of the clicks after it; a DELETE removes it. The database is never queried per
// click.
//
// Clicks are keyed as Debezium keys the table's rows, by the primary key's columns
// ({"user_id": 7}), so that a user's clicks and row are in the same partition of topics with
// the same number of partitions (the application refuses to start otherwise).
#pragma once

#include <brook/brook.h>
#include <brook/change_event.h>
#include <brook/json_serde.h>

#include <cstdint>
#include <optional>
#include <string>

namespace profile_enrichment {

inline constexpr const char* kProfilesTopic = "pg.public.profiles";
inline constexpr const char* kClicksTopic = "clicks";
inline constexpr const char* kOutputTopic = "clicks-enriched";

// The table, and the publication and the source's topic prefix the example expects.
inline constexpr const char* kCreateTable =
    "CREATE TABLE profiles (user_id bigint PRIMARY KEY, name text NOT NULL, tier text NOT NULL)";
inline constexpr const char* kPublication = "profiles";
inline constexpr const char* kTopicPrefix = "pg";

// JSON {"user_id": 7}: a profile's primary key, the key of clicks and of the table.
struct UserKey {
  std::int64_t user_id = 0;
  friend auto operator<=>(const UserKey&, const UserKey&) = default;
};
void to_json(nlohmann::json& json, const UserKey& key);
void from_json(const nlohmann::json& json, UserKey& key);

// A row of `profiles` (Debezium's `after` image): {"user_id": 7, "name": "Ada", "tier": "gold"}.
struct Profile {
  std::string name;
  std::string tier;
};
void to_json(nlohmann::json& json, const Profile& profile);
void from_json(const nlohmann::json& json, Profile& profile);

// JSON {"page": "/cart"}.
struct Click {
  std::string page;
};
void to_json(nlohmann::json& json, const Click& click);
void from_json(const nlohmann::json& json, Click& click);

// JSON {"page": "/cart", "name": "Ada", "tier": "gold"}; without a profile, name "" and tier
// "unknown".
struct EnrichedClick {
  std::string page;
  std::string name;
  std::string tier = "unknown";
  friend bool operator==(const EnrichedClick&, const EnrichedClick&) = default;
};
void to_json(nlohmann::json& json, const EnrichedClick& click);
void from_json(const nlohmann::json& json, EnrichedClick& click);

EnrichedClick enrich(const Click& click, const std::optional<Profile>& profile);

// Built with `config` (StreamsBuilder::build: its topology.optimization).
brook::Result<brook::Topology> build_topology(
    const std::map<std::string, std::string>& config = {});

}  // namespace profile_enrichment
