// `gpuplan simulate SCENARIO.yaml`: parse the scenario and the flags, load the
// catalog (prices and sizes the scenario does not give), run every policy and
// the optimal row, print the report and write the requested files.
// `gpuplan simulate merge PARTIAL...`: the report of a sweep run as shards.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/lookup.h"
#include "catalog/store.h"
#include "cli/choices.h"
#include "cli/command.h"
#include "core/files.h"
#include "core/strings.h"
#include "server/web_files.h"
#include "simulate/simulate.h"

namespace gpuplan::cli {
namespace internal {
// The web page's chart code (src/server/web/charts.js), embedded for --plot.
std::string_view embedded_file(std::string_view name);
}  // namespace internal

namespace {

struct SimulateFlags {
  std::string file;
  std::vector<std::string> policies;
  std::string trace;
  std::vector<std::string> spot_traces;
  int runs = 0;
  long long seed = -1;
  bool json = false;
  std::string plot;
  std::string timeline;
  std::string events;
  std::string export_autoscale;
  int threads = 0;
  std::string shard;
  std::vector<std::string> partials;  // merge
  bool merge_json = false;
};

// Timeline points --timeline and --plot may hold, all policies together. A
// point takes ~700 bytes of the process at its peak (a 1 s timeline of 88 h
// under six policies, 1.9 M points, held 1.37 GB and wrote 605 MB of JSON;
// 876 h ran out of memory): a million is ~0.7 GB, ten times what the server
// allows a request (kMaxTimelinePoints in src/server/server.cc), and a
// plot of it still opens in a browser.
constexpr double kMaxTimelinePoints = 1e6;

// "I/N" with 0 <= I < N.
Result<simulate::RunOptions::Shard> parse_shard(const std::string& s) {
  simulate::RunOptions::Shard sh;
  char tail = 0;
  if (std::sscanf(s.c_str(), "%d/%d%c", &sh.index, &sh.count, &tail) != 2 || sh.count < 1 ||
      sh.index < 0 || sh.index >= sh.count)
    return invalid_argument(
        "expected I/N with 0 <= I < N (e.g. 0/8; Slurm: $SLURM_ARRAY_TASK_ID/N)",
        Where{"", 0, 0, "--shard"});
  return sh;
}

// "run 120 of 800, 2 s left" on one line of a terminal (stderr only). The
// simulator never reads the clock; the estimate is the CLI's.
std::function<void(int64_t, int64_t)> progress_line(Context& ctx) {
  const auto start = std::chrono::steady_clock::now();
  return [&ctx, start](int64_t done, int64_t total) {
    const double spent =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double left = done > 0 ? spent * static_cast<double>(total - done) / done : 0;
    char buf[96];
    std::snprintf(buf, sizeof buf, "\r  run %lld of %lld, %.0f s elapsed, ~%.0f s left   ",
                  static_cast<long long>(done), static_cast<long long>(total), spent, left);
    ctx.err << buf << std::flush;
    if (done == total) ctx.err << "\n";
  };
}

// The report as text: --quiet the cheapest policy that can be run (the
// hindsight 'optimal' bound left out) on one line, with its cost and its
// service figure (share on time, SLO attainment); else the tables, fitted to
// the terminal.
void print_text(Context& ctx, const simulate::SimReport& rep) {
  if (ctx.verbosity != Verbosity::kQuiet) {
    ctx.out << simulate::to_text(rep, ctx.width, ctx.verbosity == Verbosity::kVerbose);
    return;
  }
  const simulate::PolicyRow* best = nullptr;
  for (const simulate::PolicyRow& p : rep.policies) {
    if (p.policy == "optimal") continue;
    if (best == nullptr || p.cost_usd < best->cost_usd) best = &p;
  }
  if (best == nullptr) return;
  ctx.out << best->policy << " " << strings::fixed(best->cost_usd, 2) << " USD";
  if (best->deadline_met_fraction) {
    ctx.out << ", " << strings::fixed(*best->deadline_met_fraction * 100, 1) << "% on time";
  }
  if (best->slo_attainment) {
    ctx.out << ", " << strings::fixed(*best->slo_attainment * 100, 2) << "% within SLO";
  }
  ctx.out << "\n";
}

// The catalog names a scenario uses, each error at the value's line: its
// region (an Azure region, "did you mean"), and its vm.size when prices come
// from the catalog (with explicit prices any name may label the VM).
Status check_scenario_names(const catalog::Catalog& cat, const simulate::Scenario& s) {
  if (!s.region.empty()) {
    GPUPLAN_RETURN_IF_ERROR(
        cat.check_region_name(s.region, field_where(s.file, "vm.region", s.region)));
  }
  if (!s.vm_size.empty() && !s.od_usd_per_hour) {
    auto found = catalog::lookup_size(cat, s.vm_size, field_where(s.file, "vm.size", s.vm_size));
    if (!found) return tl::unexpected(found.error());
  }
  return {};
}

// `simulate merge`: read the partials, merge, print.
int run_merge(Context& ctx, const SimulateFlags& f) {
  std::vector<nlohmann::json> docs;
  for (const std::string& file : f.partials) {
    auto text = files::read_text(file);
    if (!text) return report(ctx, text.error());
    auto doc = files::parse_json_unique_keys(*text, file);
    if (!doc) return report(ctx, doc.error());
    docs.push_back(std::move(*doc));
  }
  auto rep = simulate::merge_partials(docs, f.partials);
  if (!rep) return report(ctx, rep.error());
  if (f.merge_json)
    ctx.out << simulate::to_json(*rep).dump(2) << "\n";
  else
    print_text(ctx, *rep);
  return 0;
}

// The run options the flags ask for, checked against each other and the
// scenario (--shard only for deadline scenarios, and without files).
Result<simulate::RunOptions> run_options(const SimulateFlags& f,
                                         const simulate::Scenario& scenario) {
  simulate::RunOptions opt;
  // `all` runs every policy of the kind: with other names it says nothing
  // more, and a reader would not know which was meant.
  if (f.policies.size() > 1 &&
      std::find(f.policies.begin(), f.policies.end(), "all") != f.policies.end())
    return tl::unexpected(Error{ErrorCode::kInvalidArgument,
                                "'all' already runs every policy: give it alone, or list names",
                                {"", 0, 0, "--policy"}});
  opt.policies = f.policies;
  if (!f.trace.empty()) opt.trace = f.trace;
  opt.spot_traces = f.spot_traces;
  if (f.runs != 0) {
    if (f.runs < 0)
      return tl::unexpected(
          Error{ErrorCode::kInvalidArgument, "expected a count >= 1", {"", 0, 0, "--runs"}});
    opt.runs = f.runs;
  }
  if (f.seed >= 0) opt.seed = static_cast<uint64_t>(f.seed);
  if (!f.timeline.empty() && !strings::ends_with(f.timeline, ".csv") &&
      !strings::ends_with(f.timeline, ".json"))
    return tl::unexpected(Error{ErrorCode::kInvalidArgument,
                                "expected a file name ending in .csv or .json",
                                {"", 0, 0, "--timeline"}});
  // The output files, before anything runs or is written: each in a
  // directory that exists, no two the same file. A bad --events path once
  // failed after --timeline had been written (exit 3, half the outputs),
  // and --timeline t.csv --events t.csv kept only the last.
  std::vector<std::pair<std::string, std::string>> outputs;  // flag, path
  // The files it reads, too: --events S.yaml once replaced the scenario
  // with the event log, and --timeline T.csv the demand trace it replayed.
  {
    namespace fs = std::filesystem;
    std::error_code ec;
    std::vector<std::string> inputs = {f.file, f.trace};
    for (const std::string& t : f.spot_traces) inputs.push_back(t);
    for (const std::string& t : scenario.trace_files()) inputs.push_back(t);
    for (const std::string& in : inputs)
      if (!in.empty()) outputs.emplace_back("an input", fs::weakly_canonical(in, ec).string());
  }
  for (const auto& [flag, path] : {std::pair<std::string, std::string>{"--timeline", f.timeline},
                                   {"--plot", f.plot},
                                   {"--events", f.events},
                                   {"--export-autoscale", f.export_autoscale}}) {
    if (path.empty()) continue;
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path p(path);
    const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
    if (!fs::is_directory(dir, ec))
      return tl::unexpected(Error{ErrorCode::kInvalidArgument,
                                  "no directory '" + dir.string() + "' to write " + path + " in",
                                  {"", 0, 0, flag}});
    if (fs::is_directory(p, ec))
      return tl::unexpected(
          Error{ErrorCode::kInvalidArgument, path + " is a directory", {"", 0, 0, flag}});
    const std::string canon = fs::weakly_canonical(p, ec).string();
    for (const auto& [other_flag, other] : outputs)
      if (other == canon)
        return tl::unexpected(Error{ErrorCode::kInvalidArgument,
                                    "the same file as " + other_flag + " (" + path + ")",
                                    {"", 0, 0, flag}});
    outputs.emplace_back(flag, canon);
  }
  if (!f.export_autoscale.empty() && scenario.kind() != simulate::ScenarioKind::kServing)
    return tl::unexpected(Error{ErrorCode::kInvalidArgument,
                                "--export-autoscale applies to serving scenarios",
                                {"", 0, 0, "--export-autoscale"}});
  opt.timeline = !f.plot.empty() || !f.timeline.empty();
  opt.event_log = !f.events.empty();
  if (opt.timeline) {
    // Generated demand's span is known before the run: refuse it up front.
    // A trace's is not: the replay stops at the cap (max_timeline_points).
    simulate::Scenario as_run = scenario;
    if (!opt.policies.empty()) as_run.policies = opt.policies;
    const double points = simulate::estimate_work(as_run).timeline_points;
    if (points > kMaxTimelinePoints)
      return tl::unexpected(
          Error{ErrorCode::kInvalidArgument,
                "--timeline and --plot would hold up to " + strings::fixed(points, 0) +
                    " timeline points (duration / timeline_seconds x policies), more than " +
                    strings::fixed(kMaxTimelinePoints, 0) +
                    "; raise timeline_seconds, or write no --timeline or --plot",
                scenario.where("fleet.timeline_seconds")});
    opt.max_timeline_points = kMaxTimelinePoints;
  }
  opt.threads = f.threads;
  if (!f.shard.empty()) {
    auto sh = parse_shard(f.shard);
    if (!sh) return tl::unexpected(sh.error());
    if (scenario.kind() != simulate::ScenarioKind::kDeadline)
      return tl::unexpected(Error{ErrorCode::kInvalidArgument,
                                  "--shard applies to deadline scenarios (runs over spot traces)",
                                  {"", 0, 0, "--shard"}});
    if (opt.timeline || opt.event_log)
      return tl::unexpected(Error{ErrorCode::kInvalidArgument,
                                  "--shard writes a partial report only; run --events, "
                                  "--timeline and --plot without it",
                                  {"", 0, 0, "--shard"}});
    opt.shard = *sh;
  }
  return opt;
}

// The files the flags ask for (--timeline, --plot, --events,
// --export-autoscale), written once the report is complete, all or nothing:
// a --plot into an unwritable directory once left the --timeline written
// beside an exit 3.
Status write_outputs(const SimulateFlags& f, const simulate::SimReport& rep,
                     const std::string& chart_js) {
  std::vector<std::pair<std::string, std::string>> files;
  if (!f.timeline.empty())
    files.emplace_back(f.timeline, strings::ends_with(f.timeline, ".csv")
                                       ? simulate::timeline_csv(rep)
                                       : simulate::timeline_json_text(rep, 2) + "\n");
  if (!f.plot.empty()) {
    const simulate::PlotScripts scripts{chart_js, internal::embedded_file("charts.js")};
    files.emplace_back(f.plot, simulate::plot_html(rep, scripts));
  }
  if (!f.events.empty()) files.emplace_back(f.events, rep.event_log);
  if (!f.export_autoscale.empty())
    files.emplace_back(f.export_autoscale, rep.autoscale_export.dump(2) + "\n");
  return files::write_all_or_nothing(files);
}

// `simulate SCENARIO`: the scenario and flags, the catalog, the run, the
// files, the report.
int run_simulate(Context& ctx, const SimulateFlags& f) {
  // 1. The scenario and the flags.
  if (f.file.empty())
    return report(ctx, Error{ErrorCode::kInvalidArgument,
                             "expected a scenario file (or: simulate merge PARTIAL...)",
                             {"", 0, 0, "scenario"}});
  auto scenario = simulate::parse_scenario_file(f.file);
  if (!scenario) return report(ctx, scenario.error());
  auto opt = run_options(f, *scenario);
  if (!opt) return report(ctx, opt.error());
  // The plot's charting library, before anything runs: without it no
  // plot can be drawn (exit 3, nothing written).
  std::string chart_js;
  if (!f.plot.empty()) {
    auto lib = server::find_chart_js();
    if (!lib) return report(ctx, unavailable(lib.error().message, {"", 0, 0, "--plot"}).value());
    chart_js = std::move(lib->bytes);
  }
  // 2. The catalog (prices and sizes).
  auto cat = load_catalog(ctx);
  if (!cat) return report(ctx, cat.error());
  if (auto bad = check_scenario_names(**cat, *scenario); !bad) return report(ctx, bad.error());
  // 3. Simulate.
  if (ctx.err_is_tty) {
    ctx.err << "gpuplan: simulating " << scenario->name << " ...\n";
    opt->progress = progress_line(ctx);
  }
  auto rep = simulate::run_scenario(*scenario, cat->get(), *opt);
  if (!rep) return report(ctx, rep.error());
  // The rule set to export exists only if an exportable policy ran.
  if (!f.export_autoscale.empty()) {
    if (rep->autoscale_export.is_null())
      return report(ctx, Error{ErrorCode::kInvalidArgument,
                               "no exportable rule set ran: run --policy all, azure-autoscale or "
                               "slo-guard-autoscale",
                               {"", 0, 0, "--export-autoscale"}});
    rep->notes.push_back("export: " + f.export_autoscale + " holds the " +
                         rep->autoscale_export_policy +
                         " rule set as an ARM template (az deployment group create "
                         "--template-file " +
                         f.export_autoscale + " --parameters vmssName=NAME)");
  }
  // 4. Files (all computed first, each written atomically).
  if (auto s = write_outputs(f, *rep, chart_js); !s) return report(ctx, s.error());
  // 5. Print (a shard: its partial report, for simulate merge).
  if (rep->partial)
    ctx.out << simulate::partial_json(*rep).dump() << "\n";
  else if (f.json)
    ctx.out << simulate::to_json(*rep).dump(2) << "\n";
  else
    print_text(ctx, *rep);
  return 0;
}

}  // namespace

void add_simulate_command(CLI::App& app, Context& ctx) {
  auto f = std::make_shared<SimulateFlags>();
  CLI::App* cmd = app.add_subcommand(
      "simulate",
      "Replay demand or spot traces against scaling policies in a deterministic\n"
      "discrete-event simulator and compare cost, SLO attainment, deadlines and\n"
      "reservation purchases with the optimal row (docs/simulate.md).\n"
      "Example: gpuplan simulate examples/sim-deadline-spot.yaml --runs 50\n"
      "         gpuplan simulate examples/sim-serve-conv.yaml --json --plot serve.html\n"
      "         gpuplan simulate examples/sim-reserve-growth.yaml");
  cmd->add_option("scenario", f->file, "Scenario YAML (docs/simulate.md)");
  cmd->add_option("--policy", f->policies,
                  "Policies by name (repeatable or comma-separated), or all (default: the "
                  "scenario's)")
      ->delimiter(',')
      ->check(one_of("policy", policy_names()));
  cmd->add_option("--trace", f->trace,
                  "Demand trace that replaces the scenario's (serving: Azure LLM, BurstGPT or "
                  "Mooncake; reserve: a pods file)");
  cmd->add_option("--spot-trace", f->spot_traces,
                  "Spot trace(s) that replace the scenario's; each file is one zone (deadline)");
  // The ranges the scenario's own `runs` and `seed` keys have: --runs 0 was
  // ignored silently, 100000000 ran past any limit, and a seed above 2^31
  // was clamped.
  cmd->add_option(
         "--runs", f->runs,
         "Start offsets drawn within each spot trace (deadline); synthetic draws (reserve)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--seed", f->seed, "Seed of every random draw")
      ->check(CLI::Range(0LL, 2147483647LL));
  cmd->add_flag("--json", f->json, "Print the report as JSON");
  cmd->add_option(
      "--plot", f->plot,
      "Write a self-contained HTML page of charts (Chart.js, from Debian's "
      "libjs-chart.js): cost by policy, demand, replicas, latency, misses and cost over "
      "time");
  cmd->add_option("--timeline", f->timeline, "Write the timeline as CSV (.csv) or JSON (.json)");
  cmd->add_option("--events", f->events, "Write the event log (scale events, launches, evictions)");
  cmd->add_option("--export-autoscale", f->export_autoscale,
                  "Write the nearest exportable serving rule set (azure-autoscale or "
                  "slo-guard-autoscale, whichever meets the SLO target cheapest) as an ARM "
                  "template of Azure autoscale settings");
  // serve --workers' range: --threads 34000 --runs 34000 started a thread
  // a run until the system refused one (exit 134); more threads than a
  // large machine's cores only share them.
  cmd->add_option("--threads", f->threads,
                  "Threads for independent runs (deadline; 0, the default: all)")
      ->check(CLI::Range(0, 1024));
  cmd->add_option("--shard", f->shard,
                  "Run slice I of N (0-based) of the runs and print a partial report (deadline)");
  CLI::App* merge = cmd->add_subcommand(
      "merge", "Merge the partial reports of a sharded sweep into the report of the whole sweep");
  merge->add_option("partials", f->partials, "Partial reports (simulate --shard I/N output)")
      ->required();
  merge->add_flag("--json", f->merge_json, "Print the report as JSON");
  merge->callback([f, &ctx] { ctx.action = [f, &ctx]() -> int { return run_merge(ctx, *f); }; });
  cmd->callback([f, &ctx, merge] {
    if (merge->parsed()) return;
    ctx.action = [f, &ctx]() -> int { return run_simulate(ctx, *f); };
  });
}

}  // namespace gpuplan::cli
