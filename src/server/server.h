// `gpuplan serve`: the library's operations over HTTP, plus a web page.
//
// Routes (JSON in and out; errors as {"error": {code, message, file, line,
// column, field}} with 400 for bad input, 404 unknown, 413 too large, 500 bug):
//   GET  /                      the web page: plan (charts of the cost-time
//                               frontier and of a size's price by region),
//                               estimate and simulate forms
//   GET  /static/NAME           the page's script and style (embedded), and
//                               /static/chart.js, Chart.js from disk
//                               (web_files.h); 404 saying where it looked
//   GET  /api/health            {"status": "ok", "version": ..., "chart_js":
//                               its path or null, "chart_js_error": why null}
//   GET  /api/sizes             every VM size of the catalog with its specs
//   GET  /api/examples          the built-in examples: [{name, kind: "workload"
//                               | "scenario", yaml}]
//   GET  /api/prices?size=S[&os=linux|windows]
//                               the size's price per VM-hour in every region
//                               under every pricing model, each with its
//                               source and date (null: not listed there)
//   POST /api/estimate[?size=S[&count=N]]
//                               body: workload YAML; answer: the estimate JSON
//                               of `gpuplan estimate --json` (docs/estimator.md)
//   GET  /api/cost?size=S&region=R[&hours=H|&utilization=U][&os=linux|windows]
//                 [&hybrid_benefit=true][&count=N]
//                               one size under every pricing model, as
//                               `gpuplan cost --json` (docs/cost.md)
//   GET  /api/stack?size=S[&pytorch=X.Y][&cuda=X.Y][&os=linux|windows]
//                               the GPU software stack, as `gpuplan stack
//                               --json` (refused: 200 with "refused": true)
//   POST /api/simulate[?policy=NAME][&runs=N][&seed=N][&timeline=true]
//                               body: a scenario YAML whose demand and spot
//                               supply are generated (demand.synthetic,
//                               spot.model; the server reads no file a request
//                               names); answer: `gpuplan simulate --json`.
//                               At most 100 runs and 5 M requests.
//   POST /api/plan[?objective=cost|time|balanced&top=N]
//                               body: workload YAML; answer: the plan JSON of
//                               docs/plan.md (no feasible option: 200 with an
//                               empty options[] and the drops)
//
// The server holds one catalog loaded at start; requests are served
// concurrently by a fixed pool of workers and only read it. The socket side
// (http_listener.h) bounds what a client can hold: a request must arrive whole
// within 10 s, heads over 16 KiB and bodies over 1 MiB are refused, at most 64
// requests wait beyond the busy workers (503 with Retry-After beyond), and
// /api/health is answered by the I/O thread without queueing.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/deadline.h"
#include "core/result.h"
#include "cost/cost.h"
#include "server/internal/http_listener.h"

namespace gpuplan::server {

// Host, port and every limit of the socket side, with defaults: http_listener.h.
using ServerOptions = ListenerOptions;

// The page's files read from disk once, when the server starts: Chart.js, or
// why it is missing (the page then says so and shows its tables alone).
struct WebAssets {
  std::string chart_js;        // the library's bytes; empty when not found
  std::string chart_js_path;   // where it was found
  std::string chart_js_error;  // why it was not found (web_files.h's search)
  // Searches web_files.h's folders (`dirs`; empty: web_dirs()).
  [[nodiscard]] static WebAssets load(const std::vector<std::filesystem::path>& dirs = {});
};

class Server {
 public:
  // Takes ownership of the catalog. kInternal if the embedded cost rates fail.
  [[nodiscard]] static Result<std::unique_ptr<Server>> create(
      std::unique_ptr<catalog::Catalog> catalog, ServerOptions options);
  ~Server();

  // Binds; returns the port actually bound. kUnavailable if it can't bind.
  [[nodiscard]] Result<int> bind();
  // Serves until stop() (blocking). Call bind() first.
  void listen();
  // Async-signal-safe.
  void stop();
  // The page's files read from disk at create().
  [[nodiscard]] const WebAssets& web() const;
  // The socket side's counters (zero before bind()).
  [[nodiscard]] ListenerStats stats() const;

 private:
  Server();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The routes, without a socket (Request and Response: http_request.h): the
// listener's workers call handle(), and so do the tests. Without `web`, the
// page's charts are answered as missing.
// `deadline`: when a long route (simulate) gives up, with 504.
[[nodiscard]] Response handle(const catalog::Catalog& catalog, const cost::Rates& rates,
                              const Request& request, const WebAssets* web = nullptr,
                              const Deadline& deadline = Deadline());

}  // namespace gpuplan::server
