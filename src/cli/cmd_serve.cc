// `gpuplan serve`: the HTTP API and web page of src/server over the catalog.
// The server lives in gpuplan-serve.so, loaded here with dlopen, so that no
// other command loads its code at start (server/serve_module.h says why).
// The module is looked for beside the binary (the build tree), then in the
// install prefix's lib/gpuplan (GPUPLAN_MODULE_DIR_FROM_BIN, set by
// src/cli/CMakeLists.txt from the install rules), both relative to the
// binary's resolved path, so a copied or installed prefix serves.
#include <climits>
#include <string>

#include <dlfcn.h>
#include <unistd.h>

#include "cli/command.h"
#include "server/serve_module.h"

namespace gpuplan::cli {

namespace {

// The folder of the running binary, symbolic links resolved (/proc/self/exe); "" if unknown.
std::string binary_dir() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  std::string exe(buf, static_cast<size_t>(n));
  size_t slash = exe.rfind('/');
  return slash == std::string::npos ? "" : exe.substr(0, slash + 1);
}

Result<GpuplanServeMain> load_serve_module() {
  const std::string dir = binary_dir();
  if (dir.empty()) return unavailable("cannot find the gpuplan binary's folder (/proc/self/exe)");
  const std::string candidates[] = {
      dir + server::kServeModuleFile,
      dir + GPUPLAN_MODULE_DIR_FROM_BIN + "/" + server::kServeModuleFile,
  };
  const std::string* found = nullptr;
  for (const std::string& c : candidates) {
    if (::access(c.c_str(), F_OK) == 0) {
      found = &c;
      break;
    }
  }
  if (found == nullptr) {
    return unavailable(std::string("cannot find the server module ") + server::kServeModuleFile +
                       " (looked in " + candidates[0] + " and " + candidates[1] +
                       "); reinstall gpuplan, or build it beside the binary");
  }
  const std::string& path = *found;
  void* lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = ::dlerror();
    return unavailable(std::string("cannot load the server module (") + (why ? why : path) + ")");
  }
  auto fn = reinterpret_cast<GpuplanServeMain>(::dlsym(lib, server::kServeMainSymbol));
  if (fn == nullptr) return unavailable(path + " lacks " + server::kServeMainSymbol);
  return fn;
}

}  // namespace

void add_serve_command(CLI::App& app, Context& ctx) {
  struct Options {
    std::string host = "127.0.0.1";
    int port = 8080;
    int workers = 0;
    int max_queued = 64;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd =
      app.add_subcommand("serve",
                         "Serve the planner over HTTP with a web page.\n"
                         "Example: gpuplan serve --port 8080   (then open http://127.0.0.1:8080/)");
  cmd->add_option("--host", opts->host, "Address to listen on (loopback by default)");
  cmd->add_option("--port", opts->port, "Port (0 = any free port)")->check(CLI::Range(0, 65535));
  cmd->add_option("--workers", opts->workers,
                  "Threads running requests (0 = the machine's hardware threads)")
      ->check(CLI::Range(0, 1024));
  cmd->add_option("--max-queued", opts->max_queued,
                  "Requests waiting beyond the busy workers; more are answered 503 with "
                  "Retry-After")
      ->capture_default_str()
      ->check(CLI::Range(0, 100000));
  cmd->callback([&ctx, opts] {
    ctx.action = [&ctx, opts]() -> int {
      // 1. The server module (loaded only now).
      auto serve = load_serve_module();
      if (!serve) return report(ctx, serve.error());
      // 2. It loads the catalog, binds, says where and serves until SIGINT/SIGTERM.
      ctx.out << std::flush;
      const std::string db = store_path(ctx);
      GpuplanServeArgs args;
      args.db_path = db.c_str();
      args.host = opts->host.c_str();
      args.port = opts->port;
      args.workers = opts->workers;
      args.max_queued = opts->max_queued;
      return (*serve)(&args);
    };
  });
}

}  // namespace gpuplan::cli
