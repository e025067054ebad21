// libFuzzer harness for request traces (Azure LLM inference CSV, BurstGPT
// CSV, Mooncake JSON lines, told apart by the first line; and Alibaba QPS
// CSV), which the simulator streams from a file: the bytes are written to a
// temporary file and read to the end with both openers. Every row gives a
// request with a finite, non-decreasing arrival within a year, or an Error
// naming the file; nothing crashes or hangs.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include <unistd.h>

#include "simulate/demand.h"

namespace {

// Reads every request; traps on an arrival that goes back or past a year.
void drain(gpuplan::simulate::DemandSource& src, const std::string& path) {
  gpuplan::simulate::Request r;
  int64_t last = 0;
  for (int i = 0; i < 1000000; ++i) {
    auto more = src.next(r);
    if (!more) {
      if (more.error().where.file != path) __builtin_trap();
      return;
    }
    if (!*more) return;
    if (r.arrival < last || r.arrival > int64_t{367} * 24 * 3600 * 1000000) __builtin_trap();
    last = r.arrival;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char path[] = "/tmp/gpuplan_fuzz_trace_XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) return 0;
  size_t off = 0;
  while (off < size) {
    const ssize_t n = ::write(fd, data + off, size - off);
    if (n <= 0) break;
    off += static_cast<size_t>(n);
  }
  ::close(fd);
  const std::string p = path;
  // The first line decides the format: the input is read by both openers.
  if (auto trace = gpuplan::simulate::open_request_trace(p, 1.0)) drain(**trace, p);
  gpuplan::simulate::TokenDist in{}, out{};
  in.mean = in.min = in.max = 100;
  out.mean = out.min = out.max = 10;
  if (auto qps = gpuplan::simulate::open_alibaba_qps(p, 1.0, 60, in, out, 1)) drain(**qps, p);
  ::unlink(path);
  return 0;
}
