// The C interface between `gpuplan serve` (src/cli/cmd_serve.cc) and the
// serve module (gpuplan-serve.so, built from serve_module.cc beside the
// gpuplan binary), which the command loads with dlopen.
//
// Why a module: it was built so that only `serve` loaded cpp-httplib (a
// shared library built with OpenSSL, zlib and brotli; docs/ARCHITECTURE.md,
// "Start-up"). The server now has its own listener (http_listener.h) and no
// longer links cpp-httplib, but stays a module: only `serve` pays for its
// code. Only plain C types cross the boundary: the module holds its own copy
// of the library code it calls.
#pragma once

extern "C" {

// Bumped whenever GpuplanServeArgs changes; the module refuses other values.
inline constexpr int kGpuplanServeAbi = 2;

struct GpuplanServeArgs {
  int abi = kGpuplanServeAbi;
  const char* db_path = "";  // the store to overlay on the embedded catalog
  const char* host = "127.0.0.1";
  int port = 8080;      // 0 = any free port
  int workers = 0;      // 0: the machine's hardware threads (http_listener.h)
  int max_queued = 64;  // requests waiting beyond the busy workers (503 beyond)
};

// Loads the catalog, binds, prints "gpuplan: serving on http://HOST:PORT/"
// on stdout and serves until SIGINT or SIGTERM. Returns the process exit
// code: 0 after a signal, else the code of the error it printed on stderr
// ("gpuplan: error: ...", exit codes as every command's).
using GpuplanServeMain = int (*)(const GpuplanServeArgs* args);

}  // extern "C"

namespace gpuplan::server {
inline constexpr const char* kServeModuleFile = "gpuplan-serve.so";
inline constexpr const char* kServeMainSymbol = "gpuplan_serve_main";
}  // namespace gpuplan::server
