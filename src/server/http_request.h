// HTTP/1.1 request heads, parsed strictly (RFC 9112): the server's own
// listener (http_listener.h) reads bytes from sockets and calls these pure
// functions, so they are unit-tested and fuzzed without a socket.
//
// What is accepted: a request line `METHOD SP origin-form SP HTTP/1.x`, header
// fields `name: value`, a body framed by Content-Length only. What is refused,
// with the status a client can act on: a head over the cap (431), a body over
// the cap (413), Transfer-Encoding (411: this API takes small bodies of known
// length), obs-fold, control characters, bad percent-encoding, two different
// Content-Length values (400; RFC 9112 section 6.3 calls that unrecoverable).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gpuplan::server {

struct HttpLimits {
  size_t max_head_bytes = size_t{16} * 1024;  // request line + header fields
  size_t max_body_bytes = 1 << 20;
};

// One request and its answer, as the routes see them.
struct Request {
  std::string method;                         // "GET", "POST"
  std::string path;                           // "/api/plan"
  std::map<std::string, std::string> params;  // query parameters
  std::string body;
};
struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::string allow;  // a 405's Allow field ("GET, HEAD"); empty: none
};

// A parsed head: what the routes need, decoded.
struct HttpHead {
  std::string method;                         // "GET"
  std::string path;                           // percent-decoded, "/api/plan"
  std::map<std::string, std::string> params;  // decoded query parameters
  size_t content_length = 0;
  bool keep_alive = true;        // HTTP/1.1 unless "Connection: close"
  bool expect_continue = false;  // "Expect: 100-continue"
  int host_fields = 0;           // Host header fields seen (at most one)
};

// A refusal: the status to answer and why.
struct HttpRefusal {
  int status = 400;
  std::string reason;
};

// The offset just past the blank line ending the head in `buf`, or nullopt
// if it has not arrived. `from` is where an earlier call stopped looking (the
// search resumes 3 bytes before it), so a slow client costs linear time.
[[nodiscard]] std::optional<size_t> find_head_end(std::string_view buf, size_t from = 0);

// Parses a complete head (as delimited by find_head_end, blank line
// included). Never throws; on refusal `refusal` is set and the result empty.
[[nodiscard]] std::optional<HttpHead> parse_head(std::string_view head, const HttpLimits& limits,
                                                 HttpRefusal* refusal);

// Percent-decoding of a path (`plus_is_space` false) or a query component
// (true). nullopt on a bad escape or a decoded control character.
[[nodiscard]] std::optional<std::string> percent_decode(std::string_view s, bool plus_is_space);

// The reason phrase of a status this server sends ("Service Unavailable").
[[nodiscard]] const char* status_text(int status);

}  // namespace gpuplan::server
