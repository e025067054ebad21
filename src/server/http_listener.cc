// The I/O thread and the worker pool of http_listener.h.
//
// One poll(2) loop owns every socket; workers never touch one. A connection
// is in one of three states: reading (its request arriving), working (its
// request queued or running; the loop watches only for the client leaving)
// and writing (its answer going out). Workers hand answers back through a
// mutex-guarded list and a self-pipe that wakes the loop; stop() writes to
// the same pipe, which is why it is safe in a signal handler. poll(2) costs
// O(connections) a wake-up; with max_connections at 512 that is microseconds.
#include "server/internal/http_listener.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace gpuplan::server {
namespace {

using Clock = std::chrono::steady_clock;

struct Conn {
  int fd = -1;
  std::string client;  // the peer's address, for the per-client cap
  enum class State { kReading, kWorking, kWriting } state = State::kReading;
  std::string in;      // bytes read and not yet consumed
  size_t scanned = 0;  // where find_head_end stopped looking
  std::optional<HttpHead> head;
  size_t head_bytes = 0;
  std::string out;
  size_t out_offset = 0;
  bool close_after = false;
  bool timed_out = false;  // the answer being written is a 408
  bool head_only = false;  // the request being answered is a HEAD
  Clock::time_point deadline;
  std::shared_ptr<std::atomic<bool>> gone;
};

struct Job {
  uint64_t id;
  Request request;
  std::shared_ptr<std::atomic<bool>> gone;
};

// `head_only`: the answer to a HEAD request, the GET's head with its
// Content-Length and no body (RFC 9110 §9.3.2); a body there desynchronised
// a kept-alive connection ("Excess found").
std::string serialize(const Response& r, bool close, int retry_after_s, bool head_only = false) {
  std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + status_text(r.status) + "\r\n";
  out += "Content-Type: " + r.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(r.body.size()) + "\r\n";
  out += "X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n";
  if (retry_after_s > 0) out += "Retry-After: " + std::to_string(retry_after_s) + "\r\n";
  if (!r.allow.empty()) out += "Allow: " + r.allow + "\r\n";
  out += close ? "Connection: close\r\n\r\n" : "Connection: keep-alive\r\n\r\n";
  return head_only ? out : out + r.body;
}

Response error_answer(int status, const std::string& message) {
  nlohmann::ordered_json j = {{"error", {{"message", message}, {"text", message}}}};
  // Bytes that are not UTF-8 (a request's path or query echoed in an
  // error: /%FF) are written as U+FFFD; dump() would throw, and the client
  // got a 500 for its own bad input.
  return Response{status, "application/json",
                  j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"};
}

int ms_until(Clock::time_point t, Clock::time_point now) {
  if (t <= now) return 0;
  return static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(t - now).count());
}

}  // namespace

struct HttpListener::Impl {
  ListenerOptions options;
  WorkerRoute route;
  InlineRoute inline_route;
  int listen_fd = -1;
  int wake_r = -1;
  int wake_w = -1;
  int port = 0;
  std::atomic<bool> stopping{false};

  std::unordered_map<uint64_t, Conn> conns;            // the I/O thread's only
  std::unordered_map<std::string, size_t> per_client;  // open connections by peer address
  uint64_t next_id = 1;
  size_t buffered = 0;  // sum of conns' in.size()

  std::mutex mu;  // guards what follows
  std::condition_variable cv;
  std::deque<Job> jobs;
  size_t in_flight = 0;  // queued + running
  bool workers_stop = false;
  std::vector<std::pair<uint64_t, Response>> done;
  ListenerStats stats;
  std::vector<std::thread> workers;

  ~Impl() {
    for (int fd : {listen_fd, wake_r, wake_w})
      if (fd >= 0) ::close(fd);
  }

  void count(uint64_t ListenerStats::*field) {
    std::lock_guard<std::mutex> lock(mu);
    ++(stats.*field);
  }

  void worker_loop();
  void accept_all();
  void on_readable(uint64_t id, Conn& c);
  void process_input(uint64_t id, Conn& c);
  void dispatch(uint64_t id, Conn& c, Request request, bool keep_alive);
  void answer(Conn& c, const Response& r, bool close, int retry_after_s = 0);
  void on_writable(uint64_t id, Conn& c);
  void close_conn(uint64_t id);
  void take_done();
  void expire(Clock::time_point now);
  void loop();
};

void HttpListener::Impl::worker_loop() {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return workers_stop || !jobs.empty(); });
      if (workers_stop) return;
      job = std::move(jobs.front());
      jobs.pop_front();
      if (job.gone->load()) {
        --in_flight;
        ++stats.dropped_gone;
        continue;
      }
    }
    Response r;
    try {
      r = route(job.request, *job.gone);
    } catch (...) {
      r = error_answer(500, "internal error");
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      --in_flight;
      done.emplace_back(job.id, std::move(r));
    }
    const char x = 'd';
    [[maybe_unused]] ssize_t n = ::write(wake_w, &x, 1);
  }
}

// Who the per-client cap counts a connection against: an IPv4 address
// (also when it arrives IPv4-mapped on an IPv6 socket), or an IPv6 /64 — one
// subscriber's network (RFC 6177), in which a client picks any address it
// likes, so counting addresses would let one client open 512 from 512 of
// them. "" if unknown.
std::string client_key(const sockaddr_storage& a) {
  char text[INET6_ADDRSTRLEN] = {0};
  if (a.ss_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&a)->sin_addr, text, sizeof text);
  } else if (a.ss_family == AF_INET6) {
    in6_addr addr = reinterpret_cast<const sockaddr_in6*>(&a)->sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(&addr)) {
      ::inet_ntop(AF_INET, &addr.s6_addr[12], text, sizeof text);
      return text;
    }
    std::fill(addr.s6_addr + 8, addr.s6_addr + 16, 0);  // the /64
    ::inet_ntop(AF_INET6, &addr, text, sizeof text);
    return std::string(text) + "/64";
  }
  return text;
}

void HttpListener::Impl::accept_all() {
  for (int i = 0; i < 256; ++i) {
    sockaddr_storage peer{};
    socklen_t len = sizeof peer;
    const int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&peer), &len,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or an error for that one connection
    count(&ListenerStats::accepted);
    std::string client = client_key(peer);
    const bool client_full = options.max_connections_per_client > 0 &&
                             per_client[client] >= options.max_connections_per_client;
    if (conns.size() >= options.max_connections || client_full) {
      if (per_client[client] == 0) per_client.erase(client);
      const std::string busy =
          serialize(error_answer(503, client_full ? "too many connections from this address"
                                                  : "too many connections"),
                    true, options.retry_after_s);
      [[maybe_unused]] ssize_t n = ::send(fd, busy.data(), busy.size(), MSG_NOSIGNAL);
      ::close(fd);
      count(&ListenerStats::busy);
      continue;
    }
    ++per_client[client];
    Conn c;
    c.client = std::move(client);
    c.fd = fd;
    c.deadline = Clock::now() + std::chrono::milliseconds(options.idle_timeout_ms);
    conns.emplace(next_id++, std::move(c));
  }
}

void HttpListener::Impl::on_readable(uint64_t id, Conn& c) {
  // Read no further than this request's end: pipelined bytes stay in the kernel.
  const size_t want =
      c.head ? c.head_bytes + c.head->content_length : options.limits.max_head_bytes + 1;
  char buf[65536];
  const size_t room = std::min(sizeof buf, want > c.in.size() ? want - c.in.size() : size_t{1});
  const ssize_t n = ::recv(c.fd, buf, room, 0);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
    return close_conn(id);
  if (n < 0) return;
  if (c.in.empty() && !c.head)
    c.deadline = Clock::now() + std::chrono::milliseconds(options.request_timeout_ms);
  c.in.append(buf, static_cast<size_t>(n));
  buffered += static_cast<size_t>(n);
  process_input(id, c);
}

void HttpListener::Impl::process_input(uint64_t id, Conn& c) {
  if (!c.head) {
    auto end = find_head_end(c.in, c.scanned);
    c.scanned = c.in.size();
    if (!end) {
      if (c.in.size() > options.limits.max_head_bytes)
        answer(c,
               error_answer(431, "request head over " +
                                     std::to_string(options.limits.max_head_bytes) + " bytes"),
               true);
      return;
    }
    HttpRefusal refusal;
    c.head = parse_head(std::string_view(c.in).substr(0, *end), options.limits, &refusal);
    if (!c.head) return answer(c, error_answer(refusal.status, refusal.reason), true);
    c.head_bytes = *end;
    if (c.head->expect_continue && c.in.size() < c.head_bytes + c.head->content_length) {
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      [[maybe_unused]] ssize_t n = ::send(c.fd, kContinue.data(), kContinue.size(), MSG_NOSIGNAL);
    }
  }
  const size_t total = c.head_bytes + c.head->content_length;
  if (c.in.size() < total) return;
  HttpHead head = std::move(*c.head);
  // HEAD runs as the GET it stands for; its answer leaves the body out.
  c.head_only = head.method == "HEAD";
  Request request{c.head_only ? std::string("GET") : head.method, head.path, std::move(head.params),
                  c.in.substr(c.head_bytes, head.content_length)};
  c.in.erase(0, total);
  buffered -= total;
  c.head.reset();
  c.scanned = 0;
  dispatch(id, c, std::move(request), head.keep_alive);
}

void HttpListener::Impl::dispatch(uint64_t id, Conn& c, Request request, bool keep_alive) {
  if (auto now = inline_route(request)) return answer(c, *now, !keep_alive);
  {
    std::lock_guard<std::mutex> lock(mu);
    if (in_flight >= workers.size() + options.max_queued) {
      ++stats.busy;
    } else {
      ++in_flight;
      c.gone = std::make_shared<std::atomic<bool>>(false);
      c.close_after = !keep_alive;
      jobs.push_back(Job{id, std::move(request), c.gone});
      c.state = Conn::State::kWorking;
    }
  }
  if (c.state == Conn::State::kWorking) return cv.notify_one();
  answer(c,
         error_answer(503, "the server is busy: " + std::to_string(options.max_queued) +
                               " requests are waiting; retry after " +
                               std::to_string(options.retry_after_s) + " s"),
         true, options.retry_after_s);
}

void HttpListener::Impl::answer(Conn& c, const Response& r, bool close, int retry_after_s) {
  c.out = serialize(r, close, retry_after_s, std::exchange(c.head_only, false));
  c.out_offset = 0;
  c.close_after = close;
  c.state = Conn::State::kWriting;
  c.deadline = Clock::now() + std::chrono::milliseconds(options.write_timeout_ms);
}

void HttpListener::Impl::on_writable(uint64_t id, Conn& c) {
  while (c.out_offset < c.out.size()) {
    const ssize_t n =
        ::send(c.fd, c.out.data() + c.out_offset, c.out.size() - c.out_offset, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (n <= 0) return close_conn(id);
    c.out_offset += static_cast<size_t>(n);
  }
  if (!c.timed_out) count(&ListenerStats::answered);
  if (c.close_after) return close_conn(id);
  c.out.clear();
  c.state = Conn::State::kReading;
  c.deadline = Clock::now() + std::chrono::milliseconds(c.in.empty() ? options.idle_timeout_ms
                                                                     : options.request_timeout_ms);
  if (!c.in.empty()) process_input(id, c);  // a pipelined request
}

void HttpListener::Impl::close_conn(uint64_t id) {
  auto it = conns.find(id);
  if (it == conns.end()) return;
  if (it->second.gone) it->second.gone->store(true);
  buffered -= it->second.in.size();
  ::close(it->second.fd);
  if (auto pc = per_client.find(it->second.client); pc != per_client.end() && --pc->second == 0)
    per_client.erase(pc);
  conns.erase(it);
}

void HttpListener::Impl::take_done() {
  char drain[256];
  while (::read(wake_r, drain, sizeof drain) > 0) {
  }
  std::vector<std::pair<uint64_t, Response>> ready;
  {
    std::lock_guard<std::mutex> lock(mu);
    ready.swap(done);
  }
  for (auto& [id, response] : ready) {
    auto it = conns.find(id);
    if (it == conns.end()) continue;  // the client left
    answer(it->second, response, it->second.close_after);
  }
}

void HttpListener::Impl::expire(Clock::time_point now) {
  std::vector<uint64_t> late;
  for (auto& [id, c] : conns)
    if (c.state != Conn::State::kWorking && c.deadline <= now) late.push_back(id);
  for (uint64_t id : late) {
    Conn& c = conns.at(id);
    count(&ListenerStats::timed_out);
    if (c.state == Conn::State::kWriting || c.in.empty()) {
      close_conn(id);  // an answer not taken, or an idle keep-alive connection
      continue;
    }
    // A request not read whole in time: one try at a 408, then close.
    const std::string out =
        serialize(error_answer(408, "the request did not arrive whole within " +
                                        std::to_string(options.request_timeout_ms) + " ms"),
                  true, 0);
    [[maybe_unused]] ssize_t n = ::send(c.fd, out.data(), out.size(), MSG_NOSIGNAL);
    close_conn(id);
  }
}

void HttpListener::Impl::loop() {
  std::vector<pollfd> fds;
  std::vector<uint64_t> ids;
  while (!stopping.load()) {
    fds.assign({pollfd{wake_r, POLLIN, 0}, pollfd{listen_fd, POLLIN, 0}});
    ids.assign({0, 0});
    const Clock::time_point now = Clock::now();
    int timeout = -1;
    const bool reads_paused = buffered >= options.max_buffered_bytes;
    for (auto& [id, c] : conns) {
      short events = POLLRDHUP;
      if (c.state == Conn::State::kReading && (!reads_paused || (!c.head && c.in.size() < 4096)))
        events |= POLLIN;
      if (c.state == Conn::State::kWriting) events |= POLLOUT;
      if (c.state != Conn::State::kWorking) {
        const int t = ms_until(c.deadline, now);
        timeout = timeout < 0 ? t : std::min(timeout, t);
      }
      fds.push_back(pollfd{c.fd, events, 0});
      ids.push_back(id);
    }
    if (::poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) break;
    if (fds[0].revents) take_done();
    if (fds[1].revents & POLLIN) accept_all();
    for (size_t i = 2; i < fds.size(); ++i) {
      if (!fds[i].revents) continue;
      auto it = conns.find(ids[i]);
      if (it == conns.end()) continue;
      Conn& c = it->second;
      if (c.state == Conn::State::kWorking) {
        close_conn(ids[i]);  // the client left (or half-closed) before its answer
      } else if (c.state == Conn::State::kWriting) {
        on_writable(ids[i], c);
      } else if (fds[i].revents & (POLLIN | POLLERR | POLLHUP | POLLRDHUP)) {
        on_readable(ids[i], c);  // on POLLRDHUP it reads the EOF and closes
      }
    }
    expire(Clock::now());
  }
}

HttpListener::HttpListener() : impl_(std::make_unique<Impl>()) {}

HttpListener::~HttpListener() {
  if (!impl_) return;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->workers_stop = true;
  }
  impl_->cv.notify_all();
  for (auto& t : impl_->workers) t.join();
  for (auto& [id, c] : impl_->conns) ::close(c.fd);
}

Result<std::unique_ptr<HttpListener>> HttpListener::bind(ListenerOptions options, WorkerRoute route,
                                                         InlineRoute inline_route) {
  std::unique_ptr<HttpListener> l(new HttpListener());
  Impl& impl = *l->impl_;
  const std::string where = options.host + ":" + std::to_string(options.port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  if (::getaddrinfo(options.host.c_str(), std::to_string(options.port).c_str(), &hints, &res) != 0)
    return unavailable("cannot listen on " + where + ": unknown host");
  for (addrinfo* a = res; a && impl.listen_fd < 0; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    const int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, options.backlog) == 0)
      impl.listen_fd = fd;
    else
      ::close(fd);
  }
  ::freeaddrinfo(res);
  if (impl.listen_fd < 0) return unavailable("cannot listen on " + where);
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  ::getsockname(impl.listen_fd, reinterpret_cast<sockaddr*>(&addr), &len);
  impl.port = ntohs(addr.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port
                                               : reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_NONBLOCK | O_CLOEXEC) != 0) return unavailable("cannot create a pipe");
  impl.wake_r = pipe_fds[0];
  impl.wake_w = pipe_fds[1];
  impl.route = std::move(route);
  impl.inline_route = std::move(inline_route);
  const int hw = static_cast<int>(std::thread::hardware_concurrency());
  const int n = options.workers > 0 ? options.workers : std::max(2, hw);
  impl.options = std::move(options);
  for (int i = 0; i < n; ++i) impl.workers.emplace_back([&impl] { impl.worker_loop(); });
  return l;
}

int HttpListener::port() const { return impl_->port; }

void HttpListener::run() { impl_->loop(); }

void HttpListener::stop() {
  impl_->stopping.store(true);
  const char x = 's';
  [[maybe_unused]] ssize_t n = ::write(impl_->wake_w, &x, 1);
}

ListenerStats HttpListener::stats() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->stats;
}

}  // namespace gpuplan::server
