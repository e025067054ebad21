// libFuzzer harness for the server's HTTP request heads (src/server/
// http_request.h): any bytes are either incomplete, a refusal with a 4xx/5xx
// status, or a head whose path and parameters hold no control bytes and whose
// body length is within the cap.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "server/http_request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view buf(reinterpret_cast<const char*>(data), size);
  gpuplan::server::HttpLimits limits;
  limits.max_head_bytes = 4096;
  limits.max_body_bytes = 1000;
  // Byte-at-a-time search (a slow client) finds the same end as one search.
  const auto whole = gpuplan::server::find_head_end(buf);
  size_t scanned = 0;
  std::optional<size_t> drip;
  for (size_t n = 1; n <= buf.size() && !drip; ++n) {
    drip = gpuplan::server::find_head_end(buf.substr(0, n), scanned);
    scanned = n;
  }
  if (drip != whole) __builtin_trap();
  gpuplan::server::HttpRefusal refusal;
  auto head =
      gpuplan::server::parse_head(buf.substr(0, whole.value_or(buf.size())), limits, &refusal);
  if (!head) {
    if (refusal.status < 400 || refusal.status > 599) __builtin_trap();
    return 0;
  }
  if (head->content_length > limits.max_body_bytes || head->path.empty() || head->path[0] != '/')
    __builtin_trap();
  for (const auto& [k, v] : head->params)
    for (char c : k + v)
      if (static_cast<unsigned char>(c) < 0x20) __builtin_trap();
  return 0;
}
