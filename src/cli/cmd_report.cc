// `gpuplan report COSTS.csv [--plan PLAN.json]`: a FOCUS or Azure cost
// export read back against the plan. Parses flags, calls report::read_export_file,
// formats (no arithmetic here).
#include <algorithm>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/number_flags.h"
#include "core/files.h"
#include "core/format.h"
#include "core/strings.h"
#include "core/text_table.h"
#include "cost/cost.h"
#include "deploy/plan_input.h"
#include "report/report.h"

namespace gpuplan::cli {
namespace {

struct ReportFlags {
  std::string file;
  std::string plan;
  int option = 1;
  bool json = false;
  report::AnomalyRule rule;
};

std::string per_hour(const std::optional<double>& v) { return v ? format::usd(*v) : "-"; }

Result<report::Options> options(const ReportFlags& f) {
  report::Options o;
  o.rule = f.rule;  // the flags' ranges are checked as they are parsed
  if (f.plan.empty()) return o;
  GPUPLAN_TRY(std::string text, files::read_text(f.plan));
  GPUPLAN_TRY(deploy::PlanDocument doc, deploy::parse_plan_json(text, f.plan));
  if (f.option < 1 || static_cast<size_t>(f.option) > doc.options.size()) {
    return invalid_argument("the plan has " + std::to_string(doc.options.size()) +
                                " option(s); --option " + std::to_string(f.option) +
                                " is not one of them",
                            Where{f.plan, 0, 0, "--option"});
  }
  o.plan = doc.options[static_cast<size_t>(f.option) - 1];
  o.plan_file = f.plan;
  o.plan_option = f.option;
  return o;
}

// The VM table; columns that would overflow `width` are dropped, least
// useful first: pricing categories nobody used, then list, then size.
void print_vms(std::ostream& os, const report::Report& r, size_t width) {
  bool used[report::kCategories] = {false, false, false, false};
  for (const report::VmReport& v : r.vms)
    for (int i = 0; i < 3; ++i) used[i] = used[i] || v.usd_by_category[i] != 0;
  std::string out;
  for (int level = 0; level < 4; ++level) {
    const bool all_categories = level == 0, list = level < 2, size = level < 3;
    TextTable t;
    t.add_column("vm");
    if (size) t.add_column("size");
    t.add_column("days", TextTable::Align::kRight);
    t.add_column("hours", TextTable::Align::kRight);
    const char* names[] = {"on-demand", "spot", "committed"};
    for (int i = 0; i < 3; ++i)
      if (all_categories || used[i]) t.add_column(names[i], TextTable::Align::kRight);
    t.add_column("total", TextTable::Align::kRight);
    t.add_column("$/GPU-h", TextTable::Align::kRight);
    if (list) t.add_column("list", TextTable::Align::kRight);
    for (const report::VmReport& v : r.vms) {
      std::vector<std::string> row = {v.name};
      if (size) row.push_back(v.size);
      row.push_back(std::to_string(v.days_running));
      row.push_back(strings::fixed(v.hours_billed, 0));
      for (int i = 0; i < 3; ++i)
        if (all_categories || used[i]) row.push_back(format::usd(v.usd_by_category[i]));
      row.push_back(format::usd(v.usd_total));
      row.push_back(per_hour(v.effective_usd_per_gpu_hour));
      if (list) row.push_back(per_hour(v.list_usd_per_gpu_hour));
      t.add_row(std::move(row));
    }
    out = t.render();
    if (widest_line(out) <= width) break;
  }
  os << out;
}

void print_commitments(std::ostream& os, const report::Report& r) {
  if (r.commitments.empty()) return;
  os << "\nCommitments\n";
  TextTable t;
  t.add_column("name");
  t.add_column("type");
  t.add_column("size");
  t.add_column("hours used", TextTable::Align::kRight);
  t.add_column("used", TextTable::Align::kRight);
  t.add_column("unused", TextTable::Align::kRight);
  for (const report::CommitmentReport& c : r.commitments) {
    t.add_row({c.name.empty() ? c.id : c.name, c.type, c.size.empty() ? "-" : c.size,
               strings::fixed(c.used_hours, 0),
               c.utilization ? strings::fixed(*c.utilization * 100, 0) + "%" : "unknown",
               format::usd(c.unused_usd)});
  }
  os << t.render();
}

void print(std::ostream& os, const report::Report& r, size_t width) {
  std::ostringstream head;
  head << r.file << ": " << (r.format == report::ExportFormat::kFocus ? "FOCUS" : "Azure cost")
       << " export, " << r.rows << " rows, " << r.first_day << " .. " << r.last_day << "; total "
       << format::usd(r.usd_total) << " ("
       << (r.format == report::ExportFormat::kFocus ? "EffectiveCost" : "cost column") << ")"
       << (r.currency.empty() || r.currency == "USD" ? "" : " " + r.currency) << ", GPU VMs "
       << format::usd(r.usd_gpu_vms);
  os << wrap_text(head.str(), width, 0, 2);
  if (r.plan) {
    std::ostringstream plan;
    plan << "plan: " << r.plan_file << " option " << r.plan_option << ": " << r.plan->count << " x "
         << r.plan->size << " in " << r.plan->region << ", " << catalog::to_string(r.plan->pricing)
         << ", " << strings::fixed(r.plan->hours, 1) << " h";
    os << wrap_text(plan.str(), width, 0, 2);
  }
  os << "\n";
  if (r.vms.empty()) {
    os << "No GPU VM in this export (no Virtual Machines meter names a GPU size of the "
          "catalog).\n";
  } else {
    print_vms(os, r, width);
  }
  print_commitments(os, r);
  os << "\nFindings (" << r.findings.size() << ")\n";
  if (r.findings.empty()) os << "none\n";
  int i = 0;
  for (const report::Finding& f : r.findings) {
    const std::string lead = std::to_string(++i) + ". [" + std::string(report::to_string(f.kind)) +
                             "] " + f.subject + ": ";
    os << wrap_text(lead + f.what, width, 0, 3) << wrap_text("-> " + f.recommendation, width, 3, 6);
  }
  os << "\n";
  for (const std::string& a : r.assumptions) os << wrap_text("- " + a, width, 0, 2);
  for (const report::VmReport& v : r.vms) {
    if (!v.list_source.empty()) {
      os << wrap_text("- list price: " + v.list_source + ", " + v.list_as_of, width, 0, 2);
      break;
    }
  }
}

}  // namespace

void add_report_command(CLI::App& app, Context& ctx) {
  auto f = std::make_shared<ReportFlags>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Read a cost export (FOCUS 1.x or Azure's actual/amortized cost CSV) back against the\n"
      "plan: per GPU VM days, hours, cost by pricing and $/GPU-hour against list; anomalous\n"
      "days; hours beyond the plan; unused reservations; a recommendation per finding.\n"
      "Example: gpuplan report costs-2026-11.csv --plan plan.json");
  cmd->add_option("costs", f->file, "COSTS.csv: the export")->required();
  cmd->add_option("--plan", f->plan, "PLAN.json (gpuplan plan --json) to read the bill against");
  cmd->add_option("--option", f->option, "1-based option of the plan")->capture_default_str();
  // Finite ranges: `--anomaly-k inf` made the threshold NaN (inf x a MAD of
  // 0) and flagged 51 ordinary days. k: Leys et al. (2013) suggest 2.5 to
  // 3; past 100 no day of a bill is anomalous. window: a year of days.
  // min-hours: a VM bills at most 24 h a day, so a larger excess is never met.
  cmd->add_option("--anomaly-k", f->rule.k, "Robust standard deviations above the median")
      ->capture_default_str()
      ->check(number_in(0, 100, Low::kOpen));
  cmd->add_option("--anomaly-window", f->rule.window_days, "Trailing days for the median")
      ->capture_default_str()
      ->check(number_in(1, 366, Low::kClosed, /*integer=*/true));
  cmd->add_option("--anomaly-min-hours", f->rule.min_excess_hours,
                  "Smallest excess, in hours of the VM's rate")
      ->capture_default_str()
      ->check(number_in(0, 24));
  cmd->add_flag("--json", f->json, "Print JSON (schema gpuplan.report/1, docs/report.md)");
  cmd->callback([f, &ctx] {
    ctx.action = [f, &ctx]() -> int {
      auto o = options(*f);
      if (!o) return report(ctx, o.error());
      auto cat = load_catalog(ctx);
      if (!cat) return report(ctx, cat.error());
      auto r = report::read_export_file(f->file, **cat, *o);
      if (!r) return report(ctx, r.error());
      if (f->json) {
        ctx.out << report::to_json(*r).dump(2) << "\n";
      } else if (ctx.verbosity == Verbosity::kQuiet) {
        // The answer: what was billed, and how many findings need a look.
        ctx.out << format::usd(r->usd_total) << " total, " << r->findings.size()
                << (r->findings.size() == 1 ? " finding" : " findings") << "\n";
      } else {
        print(ctx.out, *r, ctx.width);
      }
      return 0;
    };
  });
}

}  // namespace gpuplan::cli
