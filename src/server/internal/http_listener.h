// The server's socket side: one I/O thread that accepts connections and reads
// and writes every socket without blocking, and a fixed pool of workers that
// run the routes.
//
// Why not cpp-httplib's server: in Debian's 0.11 a connection holds a pool
// thread from its first byte to its last, and its read timeout applies to
// each recv(), so 50 clients sending one header byte a second held every
// thread and /api/health stopped answering (issue 15); its listen backlog is
// 5 (compiled in) and its task queue grows without bound. Here a connection
// costs a worker only once its request is complete:
//  - reading: a request must arrive whole within `request_timeout_ms` of its
//    first byte (408 after), its head within `limits.max_head_bytes` (431),
//    its body within `limits.max_body_bytes` (413); at most `max_connections`
//    sockets are open (503 beyond), at most `max_connections_per_client` of
//    them from one address (503 beyond: one client holding slow connections
//    open — slowloris — once filled all 512 and locked everyone else out),
//    and at most `max_buffered_bytes` of bodies
//    are held across them (reads pause beyond, until timeouts free them);
//  - dispatch: answers `inline_route` gives (the health probe) are written
//    at once by the I/O thread; the rest go to a queue bounded by
//    `max_queued` beyond the busy workers, and a request that finds it full
//    is answered 503 with Retry-After at once;
//  - a client that closes before its answer is ready marks its request gone:
//    a queued request whose client is gone is dropped without running;
//  - writing: one answer must be sent within `write_timeout_ms`;
//    keep-alive connections wait `idle_timeout_ms` for the next request.
// The defaults are stated in ListenerOptions; docs/server.md repeats them.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <sys/socket.h>

#include "core/result.h"
#include "server/http_request.h"

namespace gpuplan::server {

struct ListenerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: any free port
  HttpLimits limits;
  int workers = 0;               // 0: the machine's hardware threads, at least 2
  size_t max_queued = 64;        // requests waiting beyond the busy workers
  size_t max_connections = 512;  // open sockets
  // Open sockets from one client — an IPv4 address, or an IPv6 /64 (0: no
  // limit). A quarter of the total: one client cannot fill the server, and a
  // reverse proxy in front (one address for all its clients) still gets 128
  // at once. Four IPv4 addresses together still can: a per-client cap is no
  // defence against many addresses (put a proxy with its own limits in front).
  size_t max_connections_per_client = 128;
  size_t max_buffered_bytes = 64 << 20;  // request bytes held across connections
  int backlog = 1024;                    // listen(2); the kernel caps it at somaxconn
  int request_timeout_ms = 10000;        // a request's first byte to its last
  int write_timeout_ms = 10000;          // one answer, sent
  int idle_timeout_ms = 5000;            // keep-alive, between requests
  int retry_after_s = 1;                 // the Retry-After of a 503 when busy
  // A worker's time on one request: the server's routes that can run long
  // (simulate) give up past it with 504 (core/deadline.h). Not the
  // listener's own: Server passes it to the routes.
  int compute_timeout_ms = 30000;
};

// The client a connection from `peer` counts against for
// max_connections_per_client: "203.0.113.7" (IPv4, also IPv4-mapped IPv6),
// "2001:db8:1:2::/64" (IPv6: its /64). "" for another family.
[[nodiscard]] std::string client_key(const sockaddr_storage& peer);

// Counters, for tests and the log.
struct ListenerStats {
  uint64_t accepted = 0;
  uint64_t answered = 0;      // answers written whole
  uint64_t busy = 0;          // 503: queue full or too many connections
  uint64_t timed_out = 0;     // requests not read whole in time (408) or answers not sent
  uint64_t dropped_gone = 0;  // queued requests whose client left before they ran
};

// A route run on a worker thread. `gone` turns true if the client leaves.
using WorkerRoute = std::function<Response(const Request&, const std::atomic<bool>& gone)>;
// Answers the I/O thread writes at once (cheap routes only), or nullopt to queue.
using InlineRoute = std::function<std::optional<Response>(const Request&)>;

class HttpListener {
 public:
  // Binds and listens. kUnavailable naming host:port if it cannot.
  [[nodiscard]] static Result<std::unique_ptr<HttpListener>> bind(ListenerOptions options,
                                                                  WorkerRoute route,
                                                                  InlineRoute inline_route);
  ~HttpListener();

  [[nodiscard]] int port() const;
  // Serves until stop(); then closes every connection and joins the workers.
  void run();
  // Async-signal-safe: a signal handler may call it.
  void stop();
  [[nodiscard]] ListenerStats stats() const;

 private:
  HttpListener();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuplan::server
