#include "server/server.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "catalog/lookup.h"
#include "core/strings.h"
#include "deploy/deploy.h"
#include "estimate/estimate.h"
#include "plan/plan.h"
#include "server/web_files.h"
#include "simulate/scenario.h"
#include "simulate/simulate.h"
#include "workload/workload.h"

namespace gpuplan::server {
namespace internal {
std::string_view embedded_file(std::string_view name);
}  // namespace internal

namespace {

using nlohmann::ordered_json;

// The example workloads offered on the web page, in this order.
constexpr const char* kExamples[] = {"finetune-llama3-8b.yaml", "pretrain-llama2-70b.yaml",
                                     "serve-llama3-8b.yaml",    "render-nv.yaml",
                                     "windows-hybrid.yaml",     "infeasible-budget.yaml"};
// The example scenarios the server can run: generated demand, no trace files,
// within the work caps below (server_test checks).
constexpr const char* kScenarios[] = {"sim-serve-day.yaml", "sim-serve-spot.yaml"};

// The page's own files (embedded, src/server/web) and their types.
struct StaticFile {
  const char* name;
  const char* content_type;
};
constexpr StaticFile kStaticFiles[] = {{"app.js", "text/javascript; charset=utf-8"},
                                       {"charts.js", "text/javascript; charset=utf-8"},
                                       {"style.css", "text/css; charset=utf-8"}};

int http_status_for(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kFailedPrecondition:
      return 400;
    case ErrorCode::kNotFound:
      return 404;
    case ErrorCode::kUnavailable:
      return 503;
    case ErrorCode::kDeadlineExceeded:
      return 504;  // Google's API mapping of DEADLINE_EXCEEDED (AIP-193)
    case ErrorCode::kInternal:
      return 500;
  }
  return 500;
}

Response json_response(int status, const ordered_json& j) {
  // Bytes that are not UTF-8 (a request's path or query echoed in an
  // error: /%FF) are written as U+FFFD; dump() would throw, and the client
  // got a 500 for its own bad input.
  return Response{status, "application/json",
                  j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"};
}

Response error_response(const Error& e) {
  ordered_json err;
  err["message"] = e.message;
  err["text"] = e.to_string();
  if (!e.where.file.empty()) err["file"] = e.where.file;
  if (e.where.line > 0) err["line"] = e.where.line;
  if (e.where.column > 0) err["column"] = e.where.column;
  if (!e.where.field.empty()) err["field"] = e.where.field;
  return json_response(http_status_for(e.code), ordered_json{{"error", err}});
}

Response error_response(const tl::unexpected<Error>& e) { return error_response(e.value()); }

// An error in a request's body: the body is the client's input, so what it
// names and the server lacks (an unknown model, size or region) is a 400,
// not a 404 — the route exists.
Response body_error(Error e) {
  if (e.code == ErrorCode::kNotFound) e.code = ErrorCode::kInvalidArgument;
  return error_response(e);
}

Response sizes(const catalog::Catalog& catalog) {
  ordered_json out = ordered_json::array();
  for (const auto& s : catalog.sizes()) {
    out.push_back({{"size", s.name},
                   {"series", s.series},
                   {"status", catalog::to_string(s.status)},
                   {"gpu", s.gpu_model},
                   {"gpu_count", s.gpu_count},
                   {"gpu_memory_gib", s.gpu_memory_gib},
                   {"vcpus", s.vcpus},
                   {"memory_gib", s.memory_gib},
                   {"driver", catalog::to_string(s.driver)},
                   {"regions", catalog.regions_for(s.name).size()}});
  }
  return json_response(200, out);
}

Response examples() {
  ordered_json out = ordered_json::array();
  auto add = [&out](const char* name, const char* kind) {
    std::string_view text = internal::embedded_file(name);
    if (!text.empty()) out.push_back({{"name", name}, {"kind", kind}, {"yaml", std::string(text)}});
  };
  for (const char* name : kExamples) add(name, "workload");
  for (const char* name : kScenarios) add(name, "scenario");
  return json_response(200, out);
}

// GET /static/NAME: the page's embedded files, and Chart.js from disk.
Response static_route(const std::string& name, const WebAssets* web) {
  if (name == "chart.js") {
    if (web != nullptr && !web->chart_js.empty())
      return Response{200, "text/javascript; charset=utf-8", web->chart_js};
    return error_response(Error{
        ErrorCode::kNotFound,
        web != nullptr ? web->chart_js_error : "the server did not load its web files", Where{}});
  }
  for (const StaticFile& f : kStaticFiles)
    if (name == f.name)
      return Response{200, f.content_type, std::string(internal::embedded_file(name))};
  return error_response(Error{ErrorCode::kNotFound, "no such file: /static/" + name, Where{}});
}

// The query parameter `name` as a number in [lo, hi] (whole when `integer`);
// nullopt when absent; kInvalidArgument naming the parameter otherwise.
Result<std::optional<double>> number_param(const Request& request, const std::string& name,
                                           double lo, double hi, bool integer) {
  auto it = request.params.find(name);
  if (it == request.params.end()) return std::optional<double>();
  auto v = strings::parse_double(it->second);
  if (!v || *v < lo || *v > hi || (integer && *v != static_cast<double>(static_cast<int64_t>(*v))))
    return invalid_argument("expected " + std::string(integer ? "an integer" : "a number") +
                                " from " + strings::fixed(lo, lo == static_cast<int>(lo) ? 0 : 3) +
                                " to " + strings::fixed(hi, 0) + ", found '" + it->second + "'",
                            Where{"", 0, 0, name});
  return std::optional<double>(*v);
}

// The query parameter `name`, or `fallback` when absent.
std::string text_param(const Request& request, const std::string& name,
                       const std::string& fallback = "") {
  auto it = request.params.find(name);
  return it == request.params.end() ? fallback : it->second;
}

// kInvalidArgument naming the first of `names` that is absent or empty.
Status require_params(const Request& request, std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (text_param(request, name).empty())
      return invalid_argument("required", Where{"", 0, 0, name});
  return {};
}

// A service given by its trace alone: the CLI reads the trace's mean rate;
// the server does not open files a request names, and sized it at 0 req/s.
Status rate_given(const workload::Workload& w) {
  if (w.kind != workload::Kind::kInfer || w.serving.request_rate > 0) return {};
  return invalid_argument(
      "a service over HTTP needs its request_rate (the server does not read serving.trace "
      "files; gpuplan estimate/plan on the command line reads the trace's mean rate)",
      Where{"request body", 0, 0, "serving.request_rate"});
}

Response plan_route(const catalog::Catalog& catalog, const cost::Rates& rates,
                    const Request& request) {
  plan::PlanOptions options;
  if (auto it = request.params.find("objective"); it != request.params.end()) {
    auto o = plan::parse_objective(it->second);
    if (!o) {
      Error e = o.error();
      e.where.field = "objective";
      return error_response(e);
    }
    options.objective = *o;
  }
  auto top = number_param(request, "top", 1, 1000, true);
  if (!top) return error_response(top.error());
  if (*top) options.top = static_cast<int>(**top);
  auto w = workload::parse_string(request.body, "request body");
  if (!w) return body_error(w.error());
  if (auto bad = rate_given(*w); !bad) return body_error(bad.error());
  auto p = plan::make_plan(*w, catalog, rates, options);
  if (!p) return body_error(p.error());
  return json_response(200, plan::to_json(*p));
}

// POST /api/estimate[?size=S[&count=N]]: the workload YAML in the body; every
// GPU size of the catalog, or the given size (smallest count, or N VMs).
Response estimate_route(const catalog::Catalog& catalog, const Request& request) {
  auto count = number_param(request, "count", 1, 1024, true);
  if (!count) return error_response(count.error());
  const std::string size_name = text_param(request, "size");
  if (*count && size_name.empty())
    return error_response(invalid_argument("count needs a size", Where{"", 0, 0, "count"}));
  auto w = workload::parse_string(request.body, "request body");
  if (!w) return body_error(w.error());
  if (auto bad = rate_given(*w); !bad) return body_error(bad.error());
  std::vector<estimate::Estimate> results;
  if (size_name.empty()) {
    results = estimate::estimate_all(*w, catalog);
  } else {
    auto size = catalog::lookup_size(catalog, size_name, Where{"", 0, 0, "size"});
    if (!size) return error_response(size.error());
    const catalog::Gpu* gpu = catalog.find_gpu((*size)->gpu_model);
    if (!gpu)
      return error_response(not_found("the catalog has no GPU '" + (*size)->gpu_model + "'",
                                      Where{"", 0, 0, "size"}));
    results.push_back(*count ? estimate::estimate(*w, **size, *gpu, static_cast<int>(**count))
                             : estimate::estimate_smallest(*w, **size, *gpu));
  }
  if (auto ok = plan::estimates_within_bounds(*w, results); !ok) return body_error(ok.error());
  return json_response(200, estimate::to_json(*w, results));
}

// GET /api/cost?size=S&region=R[&hours=H | &utilization=U][&os=windows]
// [&hybrid_benefit=true][&count=N]: one size under every pricing model.
Response cost_route(const catalog::Catalog& catalog, const cost::Rates& rates,
                    const Request& request) {
  if (auto ok = require_params(request, {"size", "region"}); !ok) return error_response(ok.error());
  auto hours = number_param(request, "hours", 0, 1e6, false);
  if (!hours) return error_response(hours.error());
  auto utilization = number_param(request, "utilization", 0, 1, false);
  if (!utilization) return error_response(utilization.error());
  auto count = number_param(request, "count", 1, 1024, true);
  if (!count) return error_response(count.error());
  auto os = catalog::parse_os(text_param(request, "os", "linux"), Where{"", 0, 0, "os"});
  if (!os) return error_response(os.error());
  const std::string hb = text_param(request, "hybrid_benefit");
  if (!hb.empty() && hb != "true" && hb != "false")
    return error_response(invalid_argument("expected true or false, found '" + hb + "'",
                                           Where{"", 0, 0, "hybrid_benefit"}));
  if (hb == "true" && *os != catalog::Os::kWindows)
    return error_response(invalid_argument("Azure Hybrid Benefit applies to Windows VMs only",
                                           Where{"", 0, 0, "hybrid_benefit"}));
  auto size = catalog::lookup_size(catalog, text_param(request, "size"), Where{"", 0, 0, "size"});
  if (!size) return error_response(size.error());
  auto sc =
      cost::cost_size(catalog, rates, **size, strings::to_lower(text_param(request, "region")), *os,
                      hb == "true", *hours, *utilization, *count ? static_cast<int>(**count) : 1);
  if (!sc) return error_response(sc.error());
  return json_response(200, cost::to_json(*sc));
}

// GET /api/stack?size=S[&pytorch=X.Y][&cuda=X.Y][&os=linux|windows]: the
// driver/CUDA/cuDNN/PyTorch stack for the size; a combination that cannot
// work is a 200 answer with "refused": true and the reason, as for a plan.
Response stack_route(const catalog::Catalog& catalog, const Request& request) {
  if (auto ok = require_params(request, {"size"}); !ok) return error_response(ok.error());
  auto os = catalog::parse_os(text_param(request, "os", "linux"), Where{"", 0, 0, "os"});
  if (!os) return error_response(os.error());
  auto answer = deploy::stack_for_size(catalog, text_param(request, "size"), *os,
                                       text_param(request, "pytorch"), text_param(request, "cuda"));
  if (!answer) return error_response(answer.error());
  return json_response(200, answer->to_json());
}

// GET /api/prices?size=S[&os=linux|windows]: the size's listed (or
// rule-estimated) price per VM-hour in each region, under each pricing model.
Response prices_route(const catalog::Catalog& catalog, const Request& request) {
  if (auto ok = require_params(request, {"size"}); !ok) return error_response(ok.error());
  auto os = catalog::parse_os(text_param(request, "os", "linux"), Where{"", 0, 0, "os"});
  if (!os) return error_response(os.error());
  auto size = catalog::lookup_size(catalog, text_param(request, "size"), Where{"", 0, 0, "size"});
  if (!size) return error_response(size.error());
  const catalog::VmSize& vm = **size;
  ordered_json regions = ordered_json::array();
  for (const std::string& region : catalog.regions_for(vm.name)) {
    ordered_json prices = ordered_json::object();
    for (catalog::Pricing p : catalog::kAllPricing) {
      const catalog::Offer* o = catalog.offer(vm.name, region, *os, p);
      if (o == nullptr || !o->usd_per_hour) {
        prices[std::string(catalog::to_string(p))] = nullptr;
        continue;
      }
      prices[std::string(catalog::to_string(p))] = {{"usd_per_hour", *o->usd_per_hour},
                                                    {"source", o->source},
                                                    {"as_of", o->as_of},
                                                    {"estimated", o->estimated}};
    }
    regions.push_back({{"region", region}, {"prices", prices}});
  }
  return json_response(200, ordered_json{{"size", vm.name},
                                         {"os", catalog::to_string(*os)},
                                         {"gpu", vm.gpu_model},
                                         {"gpu_count", vm.gpu_count},
                                         {"regions", regions}});
}

// Work one simulate request may cause, checked against
// simulate::estimate_work (upper bounds from every input: rate, duration,
// growth, diurnal peak and bursts; grid steps; fleet growth) before anything
// is allocated: a server shares its cores and memory (docs/ARCHITECTURE.md,
// the server). At ~10 M events/s a capped serving request runs in about a second.
constexpr int kMaxSimulateRuns = 100;
constexpr double kMaxSimulateRequests = 5e6;  // arrivals x runs
// The generator's thinning candidates x replays x runs, 5 to 15 ns each
// (an exponential and a uniform draw; 1.1e8 took 0.56 s, 4e8 5.7 s): its
// bound is the rate's largest factors together, so growth of 100x a week
// and a 100x burst drew 3e9 of them a replay for a few thousand arrivals
// (minutes a request).
constexpr double kMaxSimulateCandidates = 1e8;
// Arrivals x the fleet's VMs x runs: the router's scans, about a nanosecond
// each (a 100,000-VM fleet took 21 s for 180,000 arrivals), so about a
// second at most, as the other caps (a week at 8 req/s on 200 VMs fits).
constexpr double kMaxSimulateRoutings = 1e9;
// Timeline rows x policies x runs: ~300 bytes of JSON a row (with
// ?timeline=true), ~100 in memory; 1e6 rows made a 2.1 GB reply and held
// 10 GB while building it.
constexpr double kMaxTimelinePoints = 1e5;
// Policy decisions x policies x runs: ~0.6 us each with the engine's tick
// (a year at a 1 s interval and no traffic, 220 M of them, took 130 s).
constexpr double kMaxPolicyTicks = 2e6;
constexpr double kMaxDeadlineSteps = 100000;  // decision steps x runs
// Steps of the generated spot traces x runs (8 bytes each; 315 M of them, a
// 1 s gap over 10 years, took 212 s and 680 MB).
constexpr double kMaxSpotTraceSteps = 1e7;
// Reserve: history and projection hours read over all reviews x runs (~30 ns
// an hour; hourly reviews of 3 years' lookback, 1.4e9, took 42 s a run).
constexpr double kMaxReviewHours = 5e7;
constexpr double kMaxDpCellsPerRun = 5e7;   // states of one DP (memory)
constexpr double kMaxDpCells = 1e9;         // states x runs (time)
constexpr double kMaxReserveVmHours = 1e8;  // VM-hours of demand x runs

// kInvalidArgument naming `field` when `amount` (per request) exceeds `cap`.
Status within(double amount, double cap, const std::string& what, const std::string& field) {
  if (amount <= cap) return {};  // NaN and inf fail this test too
  return invalid_argument("this request would simulate " +
                              (std::isfinite(amount) ? strings::fixed(amount, 0)
                                                     : std::string("an unbounded number of")) +
                              " " + what + "; the server allows " + strings::fixed(cap, 0) +
                              " (run it with `gpuplan simulate` instead)",
                          Where{"request body", 0, 0, field});
}

// Every cap of one request, from the scenario's inputs; the simulated
// seconds each serving replay may run (0: no limit). The caps count the
// demand's span, but a backlog drains after it, and with clients that wait
// for ever (queue_timeout_seconds 0) for as long as it takes (half an hour
// of overload on two VMs drained for 25,000 simulated hours, 14 s of a
// worker under one policy): a replay may run only as long as the caps allow.
Result<double> check_simulate_work(const simulate::Scenario& s, int runs) {
  const simulate::WorkEstimate w = simulate::estimate_work(s);
  const double n = runs;
  GPUPLAN_RETURN_IF_ERROR(within(w.requests * n, kMaxSimulateRequests,
                                 "requests (rate x duration x peaks x runs)", "demand.synthetic"));
  GPUPLAN_RETURN_IF_ERROR(within(w.candidates * n, kMaxSimulateCandidates,
                                 "arrival candidates (rate x duration x the largest diurnal, "
                                 "burst and growth factors together x replays x runs)",
                                 "demand.synthetic"));
  GPUPLAN_RETURN_IF_ERROR(within(w.routings * n, kMaxSimulateRoutings,
                                 "routing scans (requests x VMs x runs)", "fleet.max_replicas"));
  GPUPLAN_RETURN_IF_ERROR(within(w.timeline_points * n, kMaxTimelinePoints,
                                 "timeline points (duration / timeline_seconds x policies x runs)",
                                 "fleet.timeline_seconds"));
  GPUPLAN_RETURN_IF_ERROR(within(w.policy_ticks * n, kMaxPolicyTicks,
                                 "policy decisions (duration / interval_seconds x policies x runs)",
                                 "fleet.interval_seconds"));
  GPUPLAN_RETURN_IF_ERROR(within(w.trace_steps * n, kMaxSpotTraceSteps,
                                 "spot trace steps (hours / gap_seconds x runs)",
                                 "spot.model.gap_seconds"));
  GPUPLAN_RETURN_IF_ERROR(within(w.review_hours * n, kMaxReviewHours,
                                 "hours of history and projection reviewed (weeks x 168 / "
                                 "review_hours x (lookback_hours + projection_hours) x runs)",
                                 "reservation.review_hours"));
  GPUPLAN_RETURN_IF_ERROR(within(w.decision_steps * n, kMaxDeadlineSteps,
                                 "decision steps (deadline / gap_seconds x runs)",
                                 "spot.model.gap_seconds"));
  GPUPLAN_RETURN_IF_ERROR(within(w.dp_cells, kMaxDpCellsPerRun,
                                 "dynamic-programme states in one run", "spot.model.gap_seconds"));
  GPUPLAN_RETURN_IF_ERROR(within((w.dp_cells + w.lookahead_states) * n, kMaxDpCells,
                                 "dynamic-programme states (the optimum's, and markov-lookahead's "
                                 "re-solves every 12 simulated hours, x runs)",
                                 "spot.model.gap_seconds"));
  GPUPLAN_RETURN_IF_ERROR(
      within(w.vm_hours * n, kMaxReserveVmHours, "VM-hours of demand", "demand.synthetic"));
  if (w.simulated_s <= 0) return 0.0;
  double scale = kMaxPolicyTicks / std::max(1.0, w.policy_ticks * n);
  if (w.timeline_points > 0) scale = std::min(scale, kMaxTimelinePoints / (w.timeline_points * n));
  return w.simulated_s * scale;
}

// POST /api/simulate[?policy=NAME][&runs=N][&seed=N]: a scenario YAML in the
// body whose demand and spot supply are generated (demand.synthetic,
// spot.model): the server reads no file a request names.
Response simulate_route(const catalog::Catalog& catalog, const Request& request,
                        const Deadline& deadline) {
  auto runs = number_param(request, "runs", 1, kMaxSimulateRuns, true);
  if (!runs) return error_response(runs.error());
  auto seed = number_param(request, "seed", 0, 2147483647, true);
  if (!seed) return error_response(seed.error());
  auto s = simulate::parse_scenario_string(request.body, "request body");
  if (!s) return body_error(s.error());
  if (!s->trace_files().empty())
    return error_response(invalid_argument(
        "the server simulates generated demand and supply only (demand.synthetic, spot.model); "
        "run scenarios with trace files with `gpuplan simulate`",
        Where{"request body", 0, 0,
              s->kind() == simulate::ScenarioKind::kDeadline ? "spot.traces" : "demand"}));
  const std::string timeline = text_param(request, "timeline", "false");
  if (timeline != "true" && timeline != "false")
    return error_response(invalid_argument("expected true or false, found '" + timeline + "'",
                                           Where{"", 0, 0, "timeline"}));
  simulate::RunOptions o;
  o.timeline = timeline == "true";
  if (const std::string p = text_param(request, "policy"); !p.empty()) o.policies = {p};
  if (*runs) o.runs = static_cast<int>(**runs);
  if (*seed) o.seed = static_cast<uint64_t>(**seed);
  const int total_runs = o.runs.value_or(s->runs);
  if (total_runs > kMaxSimulateRuns)
    return error_response(
        invalid_argument("at most " + std::to_string(kMaxSimulateRuns) + " runs per request",
                         Where{"", 0, 0, "runs"}));
  // The caps count the policies that will run: ?policy= replaces the
  // scenario's (a scenario naming one policy, run with ?policy=all, once
  // built a 228 MB timeline past the cap).
  simulate::Scenario as_run = *s;
  if (!o.policies.empty()) as_run.policies = o.policies;
  auto span = check_simulate_work(as_run, total_runs);
  if (!span) return error_response(span.error());
  o.max_simulated_s = *span;
  o.fixed_fleet_search = false;  // replays the caps above do not count
  o.deadline = deadline;
  auto report = simulate::run_scenario(*s, &catalog, o);
  if (!report && report.error().code == ErrorCode::kDeadlineExceeded) {
    // Work the caps did not foresee (a 100,000-VM fleet's per-VM loops at
    // every decision): the worker is freed, the client told where to run it.
    Error e = report.error();
    e.message = "the server gives a request " + strings::fixed(deadline.budget_s(), 0) +
                " s of a worker and this simulation needed more (" + e.message +
                "); run it with `gpuplan simulate` instead";
    return error_response(e);
  }
  if (!report) return error_response(report.error());
  ordered_json out = simulate::to_json(*report);
  if (o.timeline) out["timeline"] = simulate::timeline_json(*report);
  return json_response(200, out);
}

}  // namespace

WebAssets WebAssets::load(const std::vector<std::filesystem::path>& dirs) {
  WebAssets w;
  auto chart = find_chart_js(dirs.empty() ? web_dirs() : dirs);
  if (chart) {
    w.chart_js = std::move(chart->bytes);
    w.chart_js_path = std::move(chart->path);
  } else {
    w.chart_js_error = chart.error().message;
  }
  return w;
}

namespace {

// 405 with the methods the route takes (RFC 9110 §15.5.6: Allow is sent).
Response wrong_method(const std::string& allow, const std::string& hint) {
  Response r = error_response(Error{ErrorCode::kInvalidArgument, hint, Where{}});
  r.status = 405;
  r.allow = allow;
  return r;
}

// What a route's handler sees.
struct RouteContext {
  const catalog::Catalog& catalog;
  const cost::Rates& rates;
  const Request& request;
  const WebAssets* web;
  const Deadline& deadline;
};

Response index_route(const RouteContext&) {
  return Response{200, "text/html; charset=utf-8",
                  std::string(internal::embedded_file("index.html"))};
}

Response health_route(const RouteContext& c) {
  const bool chart = c.web != nullptr && !c.web->chart_js.empty();
  return json_response(
      200,
      ordered_json{{"status", "ok"},
                   {"version", "0.1.0"},
                   {"chart_js", chart ? ordered_json(c.web->chart_js_path) : nullptr},
                   {"chart_js_error", chart              ? nullptr
                                      : c.web != nullptr ? ordered_json(c.web->chart_js_error)
                                                         : ordered_json("web files not loaded")}});
}

// The routes: one path (or, with `prefix`, every path under it), the one
// method it takes, and what a client that used another is told.
struct Route {
  std::string_view path;
  bool prefix;
  bool post;  // POST; otherwise GET (and HEAD, which arrives as GET)
  std::string_view hint;
  Response (*handler)(const RouteContext&);
};

constexpr std::string_view kUseGet = "use GET";
const Route kRoutes[] = {
    {"/", false, false, kUseGet, index_route},
    {"/index.html", false, false, kUseGet, index_route},
    {"/static/", true, false, kUseGet,
     [](const RouteContext& c) { return static_route(c.request.path.substr(8), c.web); }},
    {"/api/health", false, false, kUseGet, health_route},
    {"/api/sizes", false, false, kUseGet, [](const RouteContext& c) { return sizes(c.catalog); }},
    {"/api/prices", false, false, kUseGet,
     [](const RouteContext& c) { return prices_route(c.catalog, c.request); }},
    {"/api/examples", false, false, kUseGet, [](const RouteContext&) { return examples(); }},
    {"/api/cost", false, false, kUseGet,
     [](const RouteContext& c) { return cost_route(c.catalog, c.rates, c.request); }},
    {"/api/stack", false, false, kUseGet,
     [](const RouteContext& c) { return stack_route(c.catalog, c.request); }},
    {"/api/estimate", false, true, "use POST with a workload YAML body",
     [](const RouteContext& c) { return estimate_route(c.catalog, c.request); }},
    {"/api/simulate", false, true, "use POST with a scenario YAML body",
     [](const RouteContext& c) { return simulate_route(c.catalog, c.request, c.deadline); }},
    {"/api/plan", false, true, "use POST with a workload YAML body",
     [](const RouteContext& c) { return plan_route(c.catalog, c.rates, c.request); }},
};

}  // namespace

Response handle(const catalog::Catalog& catalog, const cost::Rates& rates, const Request& request,
                const WebAssets* web, const Deadline& deadline) {
  const std::string& path = request.path;
  for (const Route& r : kRoutes) {
    if (r.prefix ? !path.starts_with(r.path) : path != r.path) continue;
    if (request.method != (r.post ? "POST" : "GET"))
      return wrong_method(r.post ? "POST" : "GET, HEAD", std::string(r.hint));
    return r.handler(RouteContext{catalog, rates, request, web, deadline});
  }
  return error_response(
      Error{ErrorCode::kNotFound, "no such route: " + request.method + " " + path, Where{}});
}

struct Server::Impl {
  Impl(std::unique_ptr<catalog::Catalog> c, cost::Rates r, ServerOptions o)
      : catalog(std::move(c)), rates(std::move(r)), options(std::move(o)) {}
  std::unique_ptr<catalog::Catalog> catalog;
  cost::Rates rates;
  ServerOptions options;
  WebAssets web = WebAssets::load();
  std::unique_ptr<HttpListener> listener;
};

Server::Server() = default;
Server::~Server() = default;

Result<std::unique_ptr<Server>> Server::create(std::unique_ptr<catalog::Catalog> catalog,
                                               ServerOptions options) {
  auto rates = cost::Rates::load_embedded();
  if (!rates) return tl::unexpected(rates.error());
  std::unique_ptr<Server> s(new Server());
  s->impl_ = std::make_unique<Impl>(std::move(catalog), std::move(*rates), std::move(options));
  return s;
}

Result<int> Server::bind() {
  Impl* impl = impl_.get();
  // Every route but the health probe runs on a worker; the probe is answered
  // by the I/O thread, so it answers while the workers are all busy.
  auto worker = [impl](const Request& r, const std::atomic<bool>& gone) {
    const Deadline deadline = Deadline::after(impl->options.compute_timeout_ms / 1000.0, &gone);
    return handle(*impl->catalog, impl->rates, r, &impl->web, deadline);
  };
  auto at_once = [impl](const Request& r) -> std::optional<Response> {
    if (r.method == "GET" && r.path == "/api/health")
      return handle(*impl->catalog, impl->rates, r, &impl->web);
    return std::nullopt;
  };
  GPUPLAN_TRY(impl->listener, HttpListener::bind(impl->options, worker, at_once));
  return impl->listener->port();
}

void Server::listen() {
  if (impl_->listener) impl_->listener->run();
}

void Server::stop() {
  if (impl_->listener) impl_->listener->stop();
}

const WebAssets& Server::web() const { return impl_->web; }

ListenerStats Server::stats() const {
  return impl_->listener ? impl_->listener->stats() : ListenerStats{};
}

}  // namespace gpuplan::server
