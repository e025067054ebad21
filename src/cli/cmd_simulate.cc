// `gpuplan simulate SCENARIO.yaml`: parse the scenario and the flags, load the
// catalog (prices and sizes the scenario does not give), run every policy and
// the optimal row, print the report and write the requested files.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/store.h"
#include "cli/command.h"
#include "core/files.h"
#include "core/strings.h"
#include "simulate/simulate.h"

namespace gpuplan::cli {

namespace {

struct SimulateFlags {
  std::string file;
  std::string policy;
  std::string trace;
  std::vector<std::string> spot_traces;
  int runs = 0;
  long long seed = -1;
  bool json = false;
  std::string plot;
  std::string timeline;
  std::string events;
};

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
  cmd->add_option("scenario", f->file, "Scenario YAML (docs/simulate.md)")->required();
  cmd->add_option("--policy", f->policy, "One policy by name, or all (default: the scenario's)");
  cmd->add_option("--trace", f->trace, "Demand trace that replaces the scenario's (serving; reserve: a pods file)");
  cmd->add_option("--spot-trace", f->spot_traces,
                  "Spot trace(s) that replace the scenario's; each file is one zone (deadline)");
  cmd->add_option("--runs", f->runs, "Start offsets drawn within each spot trace (deadline); synthetic draws (reserve)");
  cmd->add_option("--seed", f->seed, "Seed of every random draw");
  cmd->add_flag("--json", f->json, "Print the report as JSON");
  cmd->add_option("--plot", f->plot, "Write a self-contained HTML chart of the timeline");
  cmd->add_option("--timeline", f->timeline, "Write the timeline as CSV (.csv) or JSON (.json)");
  cmd->add_option("--events", f->events, "Write the event log (scale events, launches, evictions)");
  cmd->callback([f, &ctx] {
    ctx.action = [f, &ctx]() -> int {
      // 1. The scenario and the flags.
      auto scenario = simulate::parse_scenario_file(f->file);
      if (!scenario) return report(ctx, scenario.error());
      simulate::RunOptions opt;
      if (!f->policy.empty()) opt.policies = {f->policy};
      if (!f->trace.empty()) opt.trace = f->trace;
      opt.spot_traces = f->spot_traces;
      if (f->runs != 0) {
        if (f->runs < 0)
          return report(
              ctx,
              Error{ErrorCode::kInvalidArgument, "expected a count >= 1", {"", 0, 0, "--runs"}});
        opt.runs = f->runs;
      }
      if (f->seed >= 0) opt.seed = static_cast<uint64_t>(f->seed);
      if (!f->timeline.empty() && !strings::ends_with(f->timeline, ".csv") &&
          !strings::ends_with(f->timeline, ".json"))
        return report(ctx, Error{ErrorCode::kInvalidArgument,
                                 "expected a file name ending in .csv or .json",
                                 {"", 0, 0, "--timeline"}});
      opt.timeline = !f->plot.empty() || !f->timeline.empty();
      opt.event_log = !f->events.empty();
      // 2. The catalog (prices and sizes).
      auto cat = load_catalog(ctx);
      if (!cat) return report(ctx, cat.error());
      // 3. Simulate.
      if (ctx.err_is_tty) {
        ctx.err << "gpuplan: simulating " << scenario->name << " ...\n";
        opt.progress = [&ctx](int64_t done, int64_t total) {
          ctx.err << "\r  run " << done << " of " << total << std::flush;
          if (done == total) ctx.err << "\n";
        };
      }
      auto rep = simulate::run_scenario(*scenario, cat->get(), opt);
      if (!rep) return report(ctx, rep.error());
      // 4. Files (all computed first, each written atomically).
      if (!f->timeline.empty()) {
        const std::string body = strings::ends_with(f->timeline, ".csv")
                                     ? simulate::timeline_csv(*rep)
                                     : simulate::timeline_json(*rep).dump(2) + "\n";
        if (auto s = files::write_atomic(f->timeline, body); !s) return report(ctx, s.error());
      }
      if (!f->plot.empty())
        if (auto s = files::write_atomic(f->plot, simulate::plot_html(*rep)); !s)
          return report(ctx, s.error());
      if (!f->events.empty())
        if (auto s = files::write_atomic(f->events, rep->event_log); !s)
          return report(ctx, s.error());
      // 5. Print.
      if (f->json)
        ctx.out << simulate::to_json(*rep).dump(2) << "\n";
      else
        ctx.out << simulate::to_text(*rep);
      return 0;
    };
  });
}

}  // namespace gpuplan::cli
