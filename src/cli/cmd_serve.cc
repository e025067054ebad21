// `gpuplan serve`: the HTTP API and web page of src/server over the catalog.
#include <csignal>

#include "catalog/catalog.h"
#include "catalog/store.h"
#include "cli/command.h"
#include "server/server.h"

namespace gpuplan::cli {

namespace {
server::Server* g_running = nullptr;
extern "C" void stop_on_signal(int) {
  if (g_running) g_running->stop();
}
}  // namespace

void add_serve_command(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<server::ServerOptions>();
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "Serve the planner over HTTP with a web page.\n"
      "Example: gpuplan serve --port 8080   (then open http://127.0.0.1:8080/)");
  cmd->add_option("--host", opts->host, "Address to listen on (loopback by default)");
  cmd->add_option("--port", opts->port, "Port (0 = any free port)")->check(CLI::Range(0, 65535));
  cmd->callback([&ctx, opts] {
    ctx.action = [&ctx, opts]() -> int {
      // 1. The catalog, once for every request.
      auto cat = load_catalog(ctx);
      if (!cat) return report(ctx, cat.error());
      // 2. Bind, say where, serve until SIGINT/SIGTERM.
      auto s = server::Server::create(std::move(*cat), *opts);
      if (!s) return report(ctx, s.error());
      auto port = (*s)->bind();
      if (!port) return report(ctx, port.error());
      ctx.out << "gpuplan: serving on http://" << opts->host << ":" << *port << "/\n" << std::flush;
      g_running = s->get();
      std::signal(SIGINT, stop_on_signal);
      std::signal(SIGTERM, stop_on_signal);
      (*s)->listen();
      g_running = nullptr;
      return 0;
    };
  });
}

}  // namespace gpuplan::cli
