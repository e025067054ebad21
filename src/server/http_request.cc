#include "server/http_request.h"

#include <algorithm>
#include <charconv>
#include <vector>

#include "core/strings.h"

namespace gpuplan::server {
namespace {

// RFC 9110 section 5.6.2: token characters (header names, methods).
bool is_tchar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), is_tchar);
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Sets the refusal; false, for the helpers that return whether to go on.
bool fail(HttpRefusal* r, int status, std::string reason) {
  if (r) *r = HttpRefusal{status, std::move(reason)};
  return false;
}

std::nullopt_t refuse(HttpRefusal* r, int status, std::string reason) {
  fail(r, status, std::move(reason));
  return std::nullopt;
}

// The lines of a head, without their CRLF; the final empty line dropped.
// A bare LF ends a line too (RFC 9112 section 2.2 allows a recipient to).
std::vector<std::string_view> head_lines(std::string_view head) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < head.size()) {
    size_t nl = head.find('\n', start);
    if (nl == std::string_view::npos) nl = head.size();
    std::string_view line = head.substr(start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = nl + 1;
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

// "a=1&b=x%20y" into params; false on a bad escape.
bool parse_query(std::string_view query, std::map<std::string, std::string>* params) {
  for (const std::string& part : strings::split(query, '&')) {
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    auto key = percent_decode(std::string_view(part).substr(0, eq), true);
    auto value = percent_decode(
        eq == std::string::npos ? std::string_view() : std::string_view(part).substr(eq + 1), true);
    if (!key || !value) return false;
    params->insert_or_assign(*key, *value);  // the last of repeated keys wins
  }
  return true;
}

// The request line: METHOD SP request-target SP HTTP-version.
bool parse_request_line(std::string_view line, HttpHead* head, HttpRefusal* r, bool* http10) {
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos)
    return fail(r, 400, "malformed request line");
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (!is_token(method)) return fail(r, 400, "malformed method");
  if (version != "HTTP/1.1" && version != "HTTP/1.0")
    return fail(r, 505, "only HTTP/1.0 and HTTP/1.1 are served");
  *http10 = version == "HTTP/1.0";
  if (target.empty() || target[0] != '/') return fail(r, 400, "the request target must be a path");
  for (char c : target)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
      return fail(r, 400, "control character in the request target");
  const size_t q = target.find('?');
  auto path = percent_decode(target.substr(0, q), false);
  if (!path) return fail(r, 400, "bad percent-encoding in the path");
  head->method = std::string(method);
  head->path = std::move(*path);
  if (q != std::string_view::npos) {
    std::string_view query = target.substr(q + 1);
    if (const size_t hash = query.find('#'); hash != std::string_view::npos)
      query = query.substr(0, hash);
    if (!parse_query(query, &head->params))
      return fail(r, 400, "bad percent-encoding in the query");
  }
  return true;
}

// One header field into `head`; false (and `r` set) when it is refused.
bool apply_field(std::string_view line, const HttpLimits& limits, HttpHead* head,
                 std::optional<size_t>* content_length, bool* connection_close,
                 bool* connection_keep_alive, HttpRefusal* r) {
  if (line[0] == ' ' || line[0] == '\t')
    return fail(r, 400, "obsolete line folding in a header field");
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos || !is_token(line.substr(0, colon)))
    return fail(r, 400, "malformed header field");
  const std::string name = strings::to_lower(line.substr(0, colon));
  const std::string_view value = strings::trim(line.substr(colon + 1));
  for (char c : value)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f)
      return fail(r, 400, "control character in header field '" + name + "'");
  if (name == "transfer-encoding")
    return fail(r, 411, "send the body with Content-Length (no Transfer-Encoding)");
  if (name == "content-length") {
    size_t n = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (value.empty()) return fail(r, 400, "empty Content-Length");
    if (ec == std::errc::result_out_of_range)
      return fail(r, 413, "request body over " + std::to_string(limits.max_body_bytes) + " bytes");
    if (ec != std::errc() || end != value.data() + value.size())
      return fail(r, 400, "malformed Content-Length");
    if (*content_length && **content_length != n)
      return fail(r, 400, "two different Content-Length values");
    if (n > limits.max_body_bytes)
      return fail(r, 413, "request body over " + std::to_string(limits.max_body_bytes) + " bytes");
    *content_length = n;
  } else if (name == "connection") {
    const std::string v = strings::to_lower(value);
    *connection_close = *connection_close || v.find("close") != std::string::npos;
    *connection_keep_alive = *connection_keep_alive || v.find("keep-alive") != std::string::npos;
  } else if (name == "host") {
    // RFC 9112 §3.2: a request with more than one Host field is refused.
    if (head->host_fields++ > 0) return fail(r, 400, "more than one Host header field");
  } else if (name == "expect") {
    if (strings::to_lower(value) != "100-continue")
      return fail(r, 417, "only 'Expect: 100-continue' is understood");
    head->expect_continue = true;
  }
  return true;
}

}  // namespace

std::optional<size_t> find_head_end(std::string_view buf, size_t from) {
  size_t i = from > 3 ? from - 3 : 0;
  for (; i < buf.size(); ++i) {
    if (buf[i] != '\n') continue;
    if (i + 1 < buf.size() && buf[i + 1] == '\n') return i + 2;
    if (i + 2 < buf.size() && buf[i + 1] == '\r' && buf[i + 2] == '\n') return i + 3;
  }
  return std::nullopt;
}

std::optional<HttpHead> parse_head(std::string_view head, const HttpLimits& limits,
                                   HttpRefusal* refusal) {
  if (head.size() > limits.max_head_bytes)
    return refuse(refusal, 431,
                  "request head over " + std::to_string(limits.max_head_bytes) + " bytes");
  const std::vector<std::string_view> lines = head_lines(head);
  if (lines.empty()) return refuse(refusal, 400, "empty request");
  HttpHead out;
  bool http10 = false;
  if (!parse_request_line(lines[0], &out, refusal, &http10)) return std::nullopt;
  std::optional<size_t> content_length;
  bool close = false;
  bool keep_alive = false;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) return refuse(refusal, 400, "empty line inside the head");
    if (!apply_field(lines[i], limits, &out, &content_length, &close, &keep_alive, refusal))
      return std::nullopt;
  }
  out.content_length = content_length.value_or(0);
  out.keep_alive = http10 ? keep_alive && !close : !close;
  if (out.content_length == 0) out.expect_continue = false;
  return out;
}

std::optional<std::string> percent_decode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%') {
      if (i + 2 >= s.size()) return std::nullopt;
      const int hi = hex_value(s[i + 1]);
      const int lo = hex_value(s[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      c = static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (c == '+' && plus_is_space) {
      c = ' ';
    }
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return std::nullopt;
    out.push_back(c);
  }
  return out;
}

const char* status_text(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 411:
      return "Length Required";
    case 413:
      return "Content Too Large";
    case 417:
      return "Expectation Failed";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Unknown";
  }
}

}  // namespace gpuplan::server
