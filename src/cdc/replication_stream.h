// PostgreSQL's logical replication stream (the streaming replication protocol's CopyBoth
// mode) from one slot through the pgoutput plugin: the WAL's changes, the server's
// keepalives, and the standby status updates that tell the server how far the changes are
// safe, so that it can advance the slot's confirmed LSN and free the WAL before it.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "brook/status.h"
#include "cdc/pg_connection.h"
#include "cdc/pgoutput.h"

namespace brook::internal {

// "16/B374D848", as PostgreSQL writes an LSN; and back (kInvalidArgument).
std::string lsn_text(Lsn lsn);
Result<Lsn> parse_lsn(std::string_view text);

// One change of the WAL: `payload` is a pgoutput message (pgoutput.h) of the WAL record at
// `lsn`; valid until the stream's next call.
struct WalChange {
  Lsn lsn = 0;
  std::string_view payload;
};
// The server's end of WAL, with whether it wants a status update now (else it ends the
// connection after wal_sender_timeout).
struct WalKeepalive {
  Lsn wal_end = 0;
  bool reply_requested = false;
};
using WalMessage = std::variant<WalChange, WalKeepalive>;

class ReplicationStream {
 public:
  // Starts streaming `slot` from `from` (the server starts at the slot's confirmed LSN if that
  // is later) with pgoutput protocol 1 and `publication`, on a connection of kind
  // kReplication. kFailedPrecondition with the server's message if the slot is missing;
  // kUnavailable while another connection streams it (a killed source's, until the server
  // notices).
  static Result<ReplicationStream> start(PgConnection connection, const std::string& slot, Lsn from,
                                         const std::string& publication);

  ReplicationStream(ReplicationStream&&) noexcept = default;
  ReplicationStream& operator=(ReplicationStream&&) noexcept = default;
  ~ReplicationStream();

  // The next message, waiting up to `timeout`; nullopt if none came. kUnavailable if the
  // connection broke (the server stopped, the network failed); kCorruption for a message
  // of the protocol that cannot be read.
  Result<std::optional<WalMessage>> next(std::chrono::milliseconds timeout);

  // A standby status update: every change before `flushed` is durable downstream, so the
  // server may advance the slot's confirmed LSN to it.
  Status confirm(Lsn flushed);

 private:
  struct Freer {
    void operator()(char* buffer) const;
  };
  explicit ReplicationStream(PgConnection connection) : connection_(std::move(connection)) {}

  PgConnection connection_;
  std::unique_ptr<char, Freer> buffer_;  // the last message libpq returned
};

}  // namespace brook::internal
