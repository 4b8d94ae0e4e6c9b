// StoreEndpoints: the interactive-query endpoints (/v1/stores..., /v1/instances...). A keyed
// request is answered from the local store when this instance owns the key, else forwarded
// once to the owner; with stale=true, from a standby replica here too, else forwarded to the
// owner and, if it cannot answer, to the instances keeping standbys, and the answer says how far
// behind its copy is. A range or a listing of every entry reads every partition of the store,
// one after another, each from its owner (with stale=true from a copy here first, and from a
// standby when the owner cannot answer), a page at a time with a continuation token.
#pragma once

#include <cstdint>
#include <expected>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <typeindex>
#include <vector>

#include "brook/serve.h"
#include "brook/streams.h"
#include "serve/forwarder.h"
#include "serve/request.h"

namespace brook::internal {

class StoreEndpoints {
 public:
  StoreEndpoints(Streams& app, const ServeOptions& options, Forwarder& forwarder);

  Reply stores() const;  // GET /v1/stores
  Reply key(const std::string& store, const std::string& key, const Request& request);
  Reply windows(const std::string& store, const std::string& key, const Request& request);
  // GET /v1/stores/{store}?from=&to= (`all` false) and /v1/stores/{store}/all.
  Reply range(const std::string& store, bool all, const Request& request);
  // GET /v1/stores/{store}/partitions/{p}?from=&to=&after=&limit= (hex-encoded keys): the
  // entries of one partition of this instance, keys and values as hex bytes. What range()
  // asks each owner for.
  Reply partition(const std::string& store, const std::string& partition, const Request& request);
  Reply instances() const;                // GET /v1/instances
  Reply for_key(const Request& request);  // GET /v1/instances/for-key?store=&key=

 private:
  struct Found {
    std::shared_ptr<StoreQuery> query;
    const StoreSpec* spec;
  };
  Result<Found> find(const std::string& store, bool allow_stale = false) const;
  // Whether the request allows a stale answer (stale=true); kInvalidArgument if `stale` is
  // neither true nor false.
  Result<bool> allows_stale(const Request& request) const;
  // The store's key from its text form; an error reply if it has none or this is not one.
  std::optional<Reply> key_bytes(const StoreSpec& spec, const std::string& text,
                                 std::string& out) const;
  // Where to forward a request for `key`: nowhere (answer here) if this instance owns its
  // partition or the request was forwarded already; else its owner. With `stale`: nowhere also
  // if a standby of it is here, else its owner, if known, then the instances keeping standbys
  // of it. The error if there is none.
  Result<std::vector<std::string>> forward_to(const StoreSpec& spec, const std::string& key,
                                              const Request& request, bool stale) const;
  // Forwards `request` to `servers` in turn until one answers other than 503 (unreachable,
  // restoring, moving); the last answer.
  Reply forward(const std::vector<std::string>& servers, const Request& request);
  // `body` answered from this instance, with, for a stale answer, how far behind the copy of
  // `partition` read here is.
  Reply answered_from(const StoreSpec& spec, std::int32_t partition, bool stale,
                      nlohmann::json body) const;
  // How far behind this instance's copy of `partition` is: {standby, restoring, lag}.
  Result<nlohmann::json> copy_of(const StoreSpec& spec, std::int32_t partition) const;
  // Up to `limit` entries in `range` of partition `p`, with the server they came from and, with
  // `stale`, its copy_of(). Read here if this instance holds p, else forwarded to its owner;
  // with `stale`, this instance's standby first and the standbys' instances after the owner,
  // each tried in turn while one answers 503. The reply to give if none answers.
  struct PartitionPage {
    std::vector<std::pair<std::string, std::string>> entries;
    std::string server;
    nlohmann::json copy;
  };
  std::expected<PartitionPage, Reply> read_partition(const Found& found,
                                                     const std::vector<StreamsMetadata>& instances,
                                                     std::int32_t p, const KeyRange& range,
                                                     std::size_t limit, bool stale);
  Result<nlohmann::json> render_value(const StoreSpec& spec, std::string_view bytes) const;
  nlohmann::json render_key(const StoreSpec& spec, std::string_view bytes) const;
  // The page size asked for: `limit`, default_page without one; an error reply if bad.
  Result<std::size_t> page_size(const Request& request) const;
  Reply answered(nlohmann::json body) const;

  Streams& app_;
  const ServeOptions& options_;
  Forwarder& forwarder_;
  std::string self_;  // application.server
  std::map<std::type_index, ValueRenderer> renderers_;
};

}  // namespace brook::internal
