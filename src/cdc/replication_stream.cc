#include "cdc/replication_stream.h"

#include <fmt/format.h>
#include <libpq-fe.h>
#include <poll.h>

#include <charconv>

#include "brook/internal/coding.h"

namespace brook::internal {
namespace {

// Microseconds between the Unix epoch and PostgreSQL's (2000-01-01).
constexpr std::int64_t kPostgresEpochUs = 946'684'800'000'000;

std::int64_t now_postgres_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
             .count() -
         kPostgresEpochUs;
}

}  // namespace

std::string lsn_text(Lsn lsn) { return fmt::format("{:X}/{:X}", lsn >> 32, lsn & 0xffffffff); }

Result<Lsn> parse_lsn(std::string_view text) {
  const auto slash = text.find('/');
  std::uint32_t high = 0, low = 0;
  if (slash != std::string_view::npos) {
    const char* end = text.data() + text.size();
    auto [p1, e1] = std::from_chars(text.data(), text.data() + slash, high, 16);
    auto [p2, e2] = std::from_chars(text.data() + slash + 1, end, low, 16);
    if (e1 == std::errc() && e2 == std::errc() && p1 == text.data() + slash && p2 == end &&
        slash > 0 && slash + 1 < text.size()) {
      return (static_cast<Lsn>(high) << 32) | low;
    }
  }
  return error(
      Status::invalid_argument(fmt::format("'{}' is not an LSN (like 16/B374D848)", text)));
}

void ReplicationStream::Freer::operator()(char* buffer) const { PQfreemem(buffer); }

ReplicationStream::~ReplicationStream() = default;

Result<ReplicationStream> ReplicationStream::start(PgConnection connection, const std::string& slot,
                                                   Lsn from, const std::string& publication) {
  const std::string command =
      fmt::format("START_REPLICATION SLOT {} LOGICAL {} (proto_version '1', publication_names {})",
                  connection.quote_identifier(slot), lsn_text(from),
                  // publication_names is a list of identifiers inside a string literal.
                  connection.quote_literal(connection.quote_identifier(publication)));
  PGresult* result = PQexec(connection.raw(), command.c_str());
  const auto status = PQresultStatus(result);
  std::string message = result ? PQresultErrorMessage(result) : "";
  PQclear(result);
  if (status != PGRES_COPY_BOTH) {
    if (PQstatus(connection.raw()) == CONNECTION_BAD) {
      return error(pg_error(connection.raw(), "start replication"));
    }
    while (!message.empty() && message.back() == '\n') message.pop_back();
    std::string text = fmt::format("postgres: cannot stream slot {}: {}", slot, message);
    // A killed source's walsender holds the slot until it notices: a moment.
    if (message.find("is active for PID") != std::string::npos) {
      return error(Status::unavailable(std::move(text)));
    }
    return error(Status::failed_precondition(std::move(text)));
  }
  return ReplicationStream(std::move(connection));
}

Result<std::optional<WalMessage>> ReplicationStream::next(std::chrono::milliseconds timeout) {
  pg_conn* conn = connection_.raw();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    char* raw = nullptr;
    const int length = PQgetCopyData(conn, &raw, /*async=*/1);
    buffer_.reset(raw);
    if (length == -1) {
      return error(Status::unavailable("postgres: the server ended the replication stream"));
    }
    if (length == -2) return error(pg_error(conn, "read the replication stream"));
    if (length > 0) {
      const std::string_view message(raw, static_cast<std::size_t>(length));
      if (message[0] == 'w' && message.size() >= 25) {
        return WalMessage(WalChange{.lsn = get_big_endian<std::uint64_t>(raw + 1),
                                    .payload = message.substr(25)});
      }
      if (message[0] == 'k' && message.size() >= 18) {
        return WalMessage(WalKeepalive{.wal_end = get_big_endian<std::uint64_t>(raw + 1),
                                       .reply_requested = raw[17] != 0});
      }
      return error(Status::corruption(fmt::format(
          "postgres: a replication message of type '{}' and {} bytes that cannot be read",
          message[0], message.size())));
    }
    // Nothing buffered: wait for the socket, then let libpq read what came.
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::optional<WalMessage>();
    pollfd fd{.fd = PQsocket(conn), .events = POLLIN, .revents = 0};
    if (::poll(&fd, 1, static_cast<int>(left.count())) < 0 && errno != EINTR) {
      return error(Status::io_error("postgres: poll on the replication connection failed"));
    }
    if (PQconsumeInput(conn) == 0) return error(pg_error(conn, "read the replication stream"));
  }
}

Status ReplicationStream::confirm(Lsn flushed) {
  // 'r', written, flushed, applied, the client's clock, reply requested.
  char update[34];
  update[0] = 'r';
  put_big_endian(update + 1, flushed);
  put_big_endian(update + 9, flushed);
  put_big_endian(update + 17, flushed);
  put_big_endian(update + 25, now_postgres_us());
  update[33] = 0;
  pg_conn* conn = connection_.raw();
  if (PQputCopyData(conn, update, sizeof update) != 1 || PQflush(conn) != 0) {
    return pg_error(conn, "send a status update");
  }
  return Status();
}

}  // namespace brook::internal
