// Enriches the clicks of topic `clicks` with the rows of a PostgreSQL table `profiles`, captured
// by the PostgreSQL source running inside the application, into `clicks-enriched`. Flags:
//   --dsn DSN     the database (libpq connection string); required
//   --slot NAME   the replication slot (default profile_enrichment)
// and those of examples/common. The database needs wal_level=logical, the table and the
// publication:
//   CREATE TABLE profiles (user_id bigint PRIMARY KEY, name text NOT NULL, tier text NOT NULL);
//   CREATE PUBLICATION profiles FOR TABLE profiles;
#include <cstdio>
#include <string_view>
#include <vector>

#include "app_runner.h"
#include "profile_enrichment.h"

int main(int argc, char** argv) {
  brook::PostgresSourceConfig source{.publication = profile_enrichment::kPublication,
                                     .slot = "profile_enrichment",
                                     .topic_prefix = profile_enrichment::kTopicPrefix};
  // The source's flags; the rest are the application's.
  std::vector<char*> app_args = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if ((arg == "--dsn" || arg == "--slot") && i + 1 < argc) {
      (arg == "--dsn" ? source.dsn : source.slot) = argv[++i];
    } else {
      app_args.push_back(argv[i]);
    }
  }
  if (source.dsn.empty()) {
    std::fprintf(stderr, "%s: --dsn is required (the database holding the profiles table)\n",
                 argv[0]);
    return 2;
  }
  return examples::run_app(profile_enrichment::build_topology, "profile-enrichment",
                           static_cast<int>(app_args.size()), app_args.data(),
                           {.beside = [&](const brook::Streams& app, std::stop_token stop) {
                             return brook::run_postgres_source(source, app, stop);
                           }});
}
