// The serve module: `gpuplan serve`'s body, built as gpuplan-serve.so and
// loaded by the command with dlopen (why: serve_module.h). It exports one
// symbol, gpuplan_serve_main (serve_module.map); everything else, the copy of
// the library code included, stays local to the module.
#include "server/serve_module.h"

#include <csignal>
#include <iostream>

#include "catalog/catalog.h"
#include "server/server.h"

namespace {

gpuplan::server::Server* g_running = nullptr;
extern "C" void stop_on_signal(int) {
  if (g_running) g_running->stop();
}

int fail(const gpuplan::Error& e) {
  std::cerr << "gpuplan: error: " << e.to_string() << "\n";
  return gpuplan::exit_code_for(e.code);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int gpuplan_serve_main(
    const GpuplanServeArgs* args) {
  using namespace gpuplan;
  if (args == nullptr || args->abi != kGpuplanServeAbi) {
    return fail(internal_error("gpuplan-serve.so does not match this gpuplan (interface " +
                               std::to_string(args ? args->abi : -1) + ", module " +
                               std::to_string(kGpuplanServeAbi) + "): rebuild both")
                    .value());
  }
  // 1. The catalog, once for every request.
  auto cat = catalog::Catalog::load(args->db_path);
  if (!cat) return fail(cat.error());
  // 2. Bind, say where, serve until SIGINT/SIGTERM.
  server::ServerOptions opts;
  opts.host = args->host;
  opts.port = args->port;
  opts.workers = args->workers;
  opts.max_queued = static_cast<size_t>(args->max_queued);
  auto s = server::Server::create(std::move(*cat), opts);
  if (!s) return fail(s.error());
  auto port = (*s)->bind();
  if (!port) return fail(port.error());
  if (!(*s)->web().chart_js_error.empty())
    std::cerr << "gpuplan: warning: " << (*s)->web().chart_js_error
              << "; the page shows its tables without charts\n";
  std::cout << "gpuplan: serving on http://" << opts.host << ":" << *port << "/\n" << std::flush;
  g_running = s->get();
  std::signal(SIGINT, stop_on_signal);
  std::signal(SIGTERM, stop_on_signal);
  (*s)->listen();
  g_running = nullptr;
  return 0;
}
