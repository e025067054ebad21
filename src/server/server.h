// `gpuplan serve`: the library's operations over HTTP, plus a web page.
//
// Routes (JSON in and out; errors as {"error": {code, message, file, line,
// column, field}} with 400 for bad input, 404 unknown, 413 too large, 500 bug):
//   GET  /                      the web page (a workload editor and the plan)
//   GET  /api/health            {"status": "ok", "version": ...}
//   GET  /api/sizes             every VM size of the catalog with its specs
//   GET  /api/examples          the built-in example workloads (name -> YAML)
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
//   POST /api/simulate[?policy=NAME][&runs=N][&seed=N]
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

#include <map>
#include <memory>
#include <string>

#include "catalog/catalog.h"
#include "core/result.h"
#include "cost/cost.h"
#include "server/http_listener.h"

namespace gpuplan::server {

// Host, port and every limit of the socket side, with defaults: http_listener.h.
using ServerOptions = ListenerOptions;

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
  // The socket side's counters (zero before bind()).
  [[nodiscard]] ListenerStats stats() const;

 private:
  Server();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The routes, without a socket (Request and Response: http_request.h): the
// listener's workers call handle(), and so do the tests.
[[nodiscard]] Response handle(const catalog::Catalog& catalog, const cost::Rates& rates,
                              const Request& request);

}  // namespace gpuplan::server
