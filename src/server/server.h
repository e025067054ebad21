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
// concurrently (cpp-httplib's thread pool) and only read it. Limits: request
// bodies over 1 MiB are refused, reads time out after 10 s.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "catalog/catalog.h"
#include "core/result.h"
#include "cost/cost.h"

namespace gpuplan::server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;          // 0 = any free port (tests)
  size_t max_body_bytes = 1 << 20;
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
  void stop();

 private:
  Server();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One request and its answer, without a socket: the routes call handle(),
// and so do the tests.
struct Request {
  std::string method;                        // "GET", "POST"
  std::string path;                          // "/api/plan"
  std::map<std::string, std::string> params;  // query parameters
  std::string body;
};
struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};
[[nodiscard]] Response handle(const catalog::Catalog& catalog, const cost::Rates& rates,
                              const Request& request);

}  // namespace gpuplan::server
