// `gpuplan plan WORKLOAD.yaml`: parse the workload and the flags, call
// plan::make_plan, print the ranked table, the frontier, fallbacks, quota
// requests, drops, warnings and assumptions (or the JSON of docs/plan.md).
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/freshness.h"
#include "catalog/store.h"
#include "cli/choices.h"
#include "cli/command.h"
#include "cli/number_flags.h"
#include "core/format.h"
#include "core/strings.h"
#include "core/text_table.h"
#include "cost/cost.h"
#include "plan/plan.h"
#include "workload/workload.h"

namespace gpuplan::cli {
namespace {

// "spot risk high (Azure band 20+ %: 0.255 evictions per VM-hour; 9.9
// evictions expected, 12.0% to miss the deadline)"; without a band the
// default range and "unknown" are said.
std::string spot_risk_text(const plan::SpotRisk& r) {
  std::string basis;
  if (r.band) {
    basis = "Azure band " + *r.band + " %: ";
  } else if (r.rate_basis == "default") {
    basis = "no Azure eviction band imported; priced at " +
            strings::fixed(r.eviction_rate_per_hour, 2) + "-" +
            strings::fixed(r.eviction_rate_high_per_hour, 2) + " evictions per VM-hour; ";
  } else {
    basis = "--eviction-rate ";
  }
  if (r.rate_basis != "default")
    basis += strings::fixed(r.eviction_rate_per_hour, 3) + " evictions per VM-hour; ";
  // A service has no deadline: what it carries against evictions is spares.
  const std::string after =
      r.spare_vms > 0
          ? std::to_string(r.spare_vms) + " spare VM" + (r.spare_vms == 1 ? "" : "s") + " for them"
          : strings::fixed(r.deadline_miss_probability * 100, 1) + "% to miss the deadline";
  return "spot risk " + r.level + " (" + basis + strings::fixed(r.expected_evictions, 1) +
         " evictions expected, " + after + ")";
}

// The text's width (cli/term.h), set once per command by run_plan from
// ctx.width (tests writing to a string get 100 unless they set COLUMNS).
size_t g_width = kDefaultWidth;
// --verbose: sources cited in full; else by their short form (term.h).
bool g_verbose = false;

size_t text_width() { return g_width; }

struct PlanFlags {
  std::string file;
  std::string objective = "cost";
  int top = 5;
  bool json = false;
  std::vector<std::string> regions;
  std::vector<std::string> pricings;
  std::string os;
  bool hybrid_benefit = false;
  bool no_spot = false;
  bool allow_amd = false;
  bool include_restricted_regions = false;
  std::optional<double> utilization, eviction_rate, eviction_rate_high, restart_hours,
      checkpoint_hours, setup_hours, data_disk_gib, egress_gb, dataset_gb, billing_minimum_seconds,
      deadline_hours, budget, blob_gb, blob_usd_per_gb_month;
  std::optional<std::string> blob_tier;
  std::optional<int> max_nodes;
  std::optional<int> horizon_weeks;
};

Error flag_error(Error e, const char* flag) {
  e.where.field = flag;
  return e;
}

Result<plan::PlanOptions> to_options(const PlanFlags& f) {
  plan::PlanOptions o;
  auto objective = plan::parse_objective(f.objective);
  if (!objective) return tl::unexpected(flag_error(objective.error(), "--objective"));
  o.objective = *objective;
  o.top = f.top;
  o.regions = split_list(f.regions);
  for (const std::string& p : split_list(f.pricings)) {
    auto pricing = catalog::parse_pricing(p);
    if (!pricing) return tl::unexpected(flag_error(pricing.error(), "--pricing"));
    o.pricings.push_back(*pricing);
  }
  if (!f.os.empty()) {
    auto os = catalog::parse_os(f.os);
    if (!os) return tl::unexpected(flag_error(os.error(), "--os"));
    o.os = *os;
  }
  if (f.hybrid_benefit) o.hybrid_benefit = true;
  if (f.no_spot) o.allow_spot = false;
  o.allow_amd = f.allow_amd;
  o.include_restricted_regions = f.include_restricted_regions;
  o.utilization = f.utilization;
  o.eviction_rate = f.eviction_rate;
  o.eviction_rate_high = f.eviction_rate_high;
  o.restart_hours = f.restart_hours;
  o.checkpoint_hours = f.checkpoint_hours;
  o.setup_hours = f.setup_hours;
  o.data_disk_gib = f.data_disk_gib;
  o.egress_gb = f.egress_gb;
  o.dataset_gb = f.dataset_gb;
  o.blob_gb = f.blob_gb;
  o.blob_tier = f.blob_tier;
  o.blob_usd_per_gb_month = f.blob_usd_per_gb_month;
  o.billing_minimum_seconds = f.billing_minimum_seconds;
  o.deadline_hours = f.deadline_hours;
  o.budget_usd = f.budget;
  o.horizon_weeks = f.horizon_weeks;
  if (f.max_nodes) {
    o.max_count = *f.max_nodes;
    o.max_count_given = true;
  }
  return o;
}

// `text` wrapped at text_width(), `indent` spaces before its first line and two
// more before the others, with a trailing newline.
std::string wrap(const std::string& text, size_t indent) {
  return wrap_text(text, text_width(), indent, indent + 2);
}

std::string short_size(const std::string& s) {
  return strings::starts_with_icase(s, "Standard_") ? s.substr(9) : s;
}

std::string hours_cell(double h) { return strings::fixed(h, h >= 100 ? 0 : 1); }

std::string money(double usd) {
  // Whole dollars above $1,000 keep the table narrow.
  std::string s = format::usd(usd);
  if (usd >= 1000) s = s.substr(0, s.size() - 3);
  return s;
}

std::string gpus_text(double g) {
  std::string s = strings::fixed(g, g == static_cast<long long>(g) ? 0 : 2);
  return s + (g == 1 ? " GPU" : " GPUs");
}

// One table of options; under each row, its details (why, GPUs, range, risk).
std::string options_table(const std::vector<plan::Option>& options, bool details,
                          size_t limit = 0) {
  // Narrow terminals drop the lowest-value columns first ($/GPU-h, then the
  // pricing model's column, which the row's details repeat), never wrap a row.
  const size_t n = limit ? std::min(limit, options.size()) : options.size();
  auto render = [&](bool per_gpu, bool pricing) {
    TextTable t;
    t.add_column("#", TextTable::Align::kRight);
    t.add_column("size");
    t.add_column("VMs", TextTable::Align::kRight);
    t.add_column("region");
    if (pricing) t.add_column("pricing");
    t.add_column("hours", TextTable::Align::kRight);
    t.add_column("cost", TextTable::Align::kRight);
    if (per_gpu) t.add_column("$/GPU-h", TextTable::Align::kRight);
    for (size_t i = 0; i < n; ++i) {
      const plan::Option& o = options[i];
      std::vector<std::string> row = {std::to_string(o.rank), short_size(o.size),
                                      std::to_string(o.count), o.region};
      if (pricing) row.push_back(std::string(catalog::to_string(o.pricing)));
      row.push_back(hours_cell(o.hours));
      row.push_back(money(o.cost_usd));
      if (per_gpu)
        row.push_back(format::number(o.usd_per_gpu_hour, format::Kind::kMoney, format::Form::kCsv));
      t.add_row(row);
    }
    return t.render();
  };
  auto widest = [](const std::string& text) {
    size_t w = 0;
    for (const std::string& l : strings::split(text, '\n')) w = std::max(w, l.size());
    return w;
  };
  std::string table = render(true, true);
  bool pricing_shown = true;
  if (widest(table) > text_width()) table = render(false, true);
  if (widest(table) > text_width()) {
    table = render(false, false);
    pricing_shown = false;
  }
  std::vector<std::string> lines = strings::split(table, '\n');
  std::string out;
  size_t row = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    out += lines[i] + "\n";
    if (i < 2 || !details) continue;
    const plan::Option& o = options[row++];
    std::string d = o.why + " | " + gpus_text(o.gpus) + " " + o.gpu_model;
    if (!pricing_shown) d = std::string(catalog::to_string(o.pricing)) + " | " + d;
    if (!o.layout.empty()) d += " (" + o.layout + ")";
    if (o.cost_high_usd > o.cost_low_usd + 0.005) {
      d += " | range " + money(o.cost_low_usd) + "-" + money(o.cost_high_usd) + ", " +
           hours_cell(o.hours_low) + "-" + hours_cell(o.hours_high) + " h";
    }
    if (o.spot_risk) d += " | " + spot_risk_text(*o.spot_risk);
    if (o.price.estimated) d += " | price estimated";
    if (o.quota_known) d += std::string(" | quota ") + (o.quota_ok ? "ok" : "short");
    if (o.confidential) d += " | confidential: true";
    for (const std::string& w : o.price_warnings) d += " | PRICE LOOKS WRONG: " + w;
    out += wrap(d, 4);
  }
  return out;
}

// What growth does to the winner: the sentence, then one line a week.
void print_growth(std::ostream& os, const plan::Growth& g) {
  os << "\nGrowth (" << strings::fixed(g.growth_per_week * 100, 0) << "% a week, "
     << g.horizon_weeks << " weeks)\n";
  os << wrap(g.summary, 2);
  for (const plan::GrowthWeek& w : g.weeks) {
    std::string line =
        "week " + std::to_string(w.week) + ": x" + strings::fixed(w.demand_factor, 2);
    if (w.vms > 0) {
      const auto count = [](int n) {
        return n >= plan::kGrowthCountCap ? std::string("over 10^9") : std::to_string(n);
      };
      line += ", " + strings::fixed(w.rate_rps, 2) + " req/s, " + count(w.replicas) +
              " replicas on " + count(w.vms) + (w.vms == 1 ? " VM" : " VMs") +
              (w.beyond_scale_set ? " (more than one scale set holds)" : "");
    } else {
      line +=
          ", " + hours_cell(w.hours) + " h" + (w.meets_deadline ? "" : " (misses the deadline)");
    }
    line += ", " + money(w.cost_usd);
    if (w.budget_usd) line += " of " + money(*w.budget_usd) + (w.within_budget ? "" : " (over)");
    os << wrap(line, 4);
  }
  if (g.reserve_pays_until_week) {
    os << wrap("a 1-year reservation bought today pays for the VMs the demand reaches within " +
                   strings::fixed(*g.reserve_pays_until_week, 1) + " weeks (" +
                   std::to_string(g.reserve_vms) + (g.reserve_vms == 1 ? " VM" : " VMs") +
                   " within the horizon)",
               2);
  }
}

// The ranked options, their caveats (each once, in option order) and the
// cost lines of #1 with their assumptions.
void print_ranked(std::ostream& os, const std::vector<plan::Option>& options) {
  os << "\nRanked options\n" << options_table(options, true);
  std::vector<std::string> caveats;  // each once, in option order
  for (const plan::Option& o : options) {
    for (const std::string& c : o.caveats) {
      if (std::find(caveats.begin(), caveats.end(), c) == caveats.end()) caveats.push_back(c);
    }
  }
  if (!caveats.empty()) os << "\nCaveats\n";
  for (const std::string& c : caveats) os << wrap("- " + c, 2);
  const plan::Option& best = options.front();
  os << "\n"
     << wrap("Cost of #1 (" + short_size(best.size) + " x" + std::to_string(best.count) + ", " +
                 best.region + ", " + std::string(catalog::to_string(best.pricing)) +
                 "; price as of " + best.price.as_of + ")",
             0);
  for (const cost::CostLine& l : best.lines) {
    std::string head =
        "  " + l.name + std::string(l.name.size() < 24 ? 24 - l.name.size() : 1, ' ');
    std::string amount = format::usd(l.usd);
    os << head << std::string(amount.size() < 12 ? 12 - amount.size() : 0, ' ') << amount << "\n";
    os << wrap(l.assumption, 6);
  }
}

// Each quota request that would unlock a better option, with every limit
// that binds: current, used, needed, the value to ask for and the command.
void print_quota_requests(std::ostream& os, const std::vector<plan::QuotaRequest>& requests) {
  os << "\nQuota requests that unlock a better option\n";
  for (const plan::QuotaRequest& q : requests) {
    // Every limit that binds, each with current, used, needed and the value to ask for.
    os << wrap(short_size(q.unlocks.size) + " x" + std::to_string(q.unlocks.count) + " in " +
                   q.region + " (" + std::string(catalog::to_string(q.unlocks.pricing)) + ", " +
                   money(q.unlocks.cost_usd) + ", " + hours_cell(q.unlocks.hours) + " h) needs " +
                   strings::fixed(q.vcpus_needed, 0) + " vCPUs; " +
                   std::to_string(q.limits.size()) +
                   (q.limits.size() == 1 ? " limit stands" : " limits stand") + " in the way:",
               2);
    for (const plan::QuotaLimit& l : q.limits) {
      os << wrap(l.scope + " limit " + l.resource + ": current " + strings::fixed(l.limit, 0) +
                     ", used " + strings::fixed(l.used, 0) + ", needed " +
                     strings::fixed(l.needed, 0) + ", ask for " + strings::fixed(l.new_limit, 0),
                 4);
      os << wrap(l.command, 6);
    }
  }
}

// The options dropped, grouped by reason, with a count and an example.
void print_dropped(std::ostream& os, const std::vector<plan::Drop>& dropped) {
  long long total = 0;
  for (const plan::Drop& d : dropped) total += d.count;
  os << "\nDropped: " << total << " options\n";
  for (const plan::Drop& d : dropped) {
    os << wrap(std::to_string(d.count) + " " + d.reason + " (" + std::to_string(d.sizes) +
                   (d.sizes == 1 ? " size" : " sizes") + " in " + std::to_string(d.regions) +
                   (d.regions == 1 ? " region" : " regions") + "), e.g. " + d.example,
               2);
  }
}

void print_plan(std::ostream& os, const plan::Plan& p) {
  os << wrap("gpuplan plan: " + p.workload_name + " (" + p.kind + "), objective " +
                 std::string(plan::to_string(p.objective)),
             0)
     << wrap(std::to_string(p.feasible) + " feasible of " + std::to_string(p.considered) +
                 " options considered (size x VMs x region x pricing)",
             0);
  if (!p.options.empty()) print_ranked(os, p.options);
  if (!p.frontier.empty()) {
    std::string title = "Cost-time Pareto frontier, fastest first";
    std::vector<plan::Option> shown = p.frontier;
    if (shown.size() > 8) {
      // The fastest four and the cheapest four; every point is in --json.
      title +=
          " (the 4 fastest and 4 cheapest of " + std::to_string(shown.size()) + "; all in --json)";
      shown.erase(shown.begin() + 4, shown.end() - 4);
    }
    os << "\n" << wrap(title, 0) << options_table(shown, false);
  }
  if (!p.fallbacks.empty()) {
    os << "\nFallbacks for #1 (other regions, then other sizes)\n"
       << options_table(p.fallbacks, false);
  }
  if (p.growth) print_growth(os, *p.growth);
  if (!p.quota_requests.empty()) print_quota_requests(os, p.quota_requests);
  if (!p.dropped.empty()) print_dropped(os, p.dropped);
  if (!p.warnings.empty()) {
    os << "\nWarnings\n";
    for (const std::string& w : p.warnings) os << wrap("- " + w, 2);
  }
  os << "\n" << wrap("Assumptions (override with flags or the workload's assumptions:)", 0);
  for (const plan::Assumption& a : p.assumptions) {
    os << wrap(
        a.name + " = " + a.value + " [" + (g_verbose ? a.source : short_source(a.source)) + "]", 2);
  }
}

// --quiet: the chosen option, one line: size, VMs, region, pricing, hours, cost.
void print_quiet(std::ostream& os, const plan::Option& o) {
  os << o.size << " x" << o.count << " " << o.region << " " << catalog::to_string(o.pricing) << " "
     << hours_cell(o.hours) << " h "
     << format::number(o.cost_usd, format::Kind::kMoney, format::Form::kCsv) << " USD\n";
}

// How old the prices behind the ranked options are (catalog/freshness.h):
// the Linux offer of each option's pricing, which any Windows price builds on.
void print_price_age(std::ostream& os, const catalog::Catalog& cat, const plan::Plan& p) {
  std::vector<const catalog::Offer*> offers;
  for (const plan::Option& o : p.options) {
    offers.push_back(cat.offer(o.size, o.region, catalog::Os::kLinux, o.pricing));
  }
  const auto ages = catalog::price_ages(offers, cat.today(), catalog::FreshnessPolicy{});
  if (ages.empty()) return;
  os << "\nPrices\n";
  for (const std::string& line : catalog::freshness_lines(ages, "")) os << wrap(line, 2);
}

// The flags that replace an assumption of the cost model: commitment
// utilization, spot evictions and restarts, checkpoints, setup, disks, data
// movement, Blob storage and the billing minimum.
void add_cost_model_flags(CLI::App& cmd, PlanFlags& f) {
  cmd.add_option("--utilization", f.utilization,
                 "Share of a reservation/savings-plan term in use, (0,1] (default: this work only)")
      ->check(number_in(0, 1, Low::kOpen));
  cmd.add_option("--eviction-rate", f.eviction_rate,
                 "Spot evictions per VM-hour for every size and region, replacing Azure's "
                 "imported bands (default where no band was imported: 0.05)")
      ->check(number_in(0, range::kMaxEvictionsPerHour));
  cmd.add_option("--eviction-rate-high", f.eviction_rate_high,
                 "Spot evictions per VM-hour for the high end of the range (default 0.20)")
      ->check(number_in(0, range::kMaxEvictionsPerHour));
  cmd.add_option("--restart-hours", f.restart_hours, "Hours lost restarting after an eviction")
      ->check(number_in(0, range::kMaxHours));
  cmd.add_option("--checkpoint-hours", f.checkpoint_hours,
                 "Hours between checkpoints (replaces the workload's constraints.checkpoint_hours)")
      ->check(number_in(0, range::kMaxHours, Low::kOpen));
  cmd.add_option("--setup-hours", f.setup_hours, "Billed idle hours per VM launch")
      ->check(number_in(0, range::kMaxHours));
  cmd.add_option("--data-disk-gib", f.data_disk_gib,
                 "Premium SSD data disk per VM, GiB (Premium_LRS, the disk deploy builds)")
      ->check(number_in(0, range::kMaxDiskGib));
  cmd.add_option("--egress-gb", f.egress_gb, "GB sent to the internet")
      ->check(number_in(0, range::kMaxGb));
  cmd.add_option("--dataset-gb", f.dataset_gb, "GB moved from the workload's data_region")
      ->check(number_in(0, range::kMaxGb));
  cmd.add_option("--blob-gb", f.blob_gb,
                 "GB kept in Blob storage while the job runs (default: dataset + latest "
                 "checkpoint, or the served model's weights)")
      ->check(number_in(0, range::kMaxGb));
  cmd.add_option("--blob-tier", f.blob_tier, "Blob access tier: hot (default) or cool")
      ->check(one_of("Blob tier", {"hot", "cool"}));
  cmd.add_option("--blob-usd-per-gb-month", f.blob_usd_per_gb_month,
                 "Blob price per GB-month for the tier (none: shown as 'no listed price', "
                 "left out of the total)")
      ->check(number_in(0, range::kMaxUsd));
  cmd.add_option("--billing-minimum-seconds", f.billing_minimum_seconds,
                 "Billed minimum per VM launch")
      ->check(number_in(0, 86400));
}

// `plan WORKLOAD`: the flags, the workload, the catalog and rates, the plan,
// printed; exit 1 when no option is feasible.
int run_plan(Context& ctx, const PlanFlags& f) {
  // 1. The flags.
  auto options = to_options(f);
  if (!options) return report(ctx, options.error());
  // 2. The workload.
  auto w = workload::parse_file(f.file);
  if (!w) return report(ctx, w.error());
  // Hybrid Benefit is a Windows licence: refused on Linux, from a flag or
  // from --os overriding a Windows workload that asks for it.
  const bool windows =
      options->os ? *options->os == catalog::Os::kWindows : w->constraints.os == "windows";
  if (options->hybrid_benefit.value_or(w->constraints.hybrid_benefit) && !windows)
    return report(ctx,
                  invalid_argument("Azure Hybrid Benefit applies to Windows VMs only; "
                                   "add --os windows (or os: windows in the workload)",
                                   Where{"", 0, 0, f.hybrid_benefit ? "--hybrid-benefit" : "--os"})
                      .value());
  // 3. The catalog and the cost rates.
  auto cat = load_catalog(ctx);
  if (!cat) return report(ctx, cat.error());
  if (auto bad = check_regions(**cat, split_list(f.regions), Where{"", 0, 0, "--region"}); !bad) {
    return report(ctx, bad.error());
  }
  if (auto bad = check_workload_names(**cat, *w); !bad) return report(ctx, bad.error());
  if (auto bad = rate_from_trace(*w); !bad) return report(ctx, bad.error());
  auto rates = cost::Rates::load_embedded();
  if (!rates) return report(ctx, rates.error());
  // 4. Plan.
  auto p = plan::make_plan(*w, **cat, *rates, *options);
  if (!p) return report(ctx, located_in(*w, p.error()));
  // 5. Print.
  g_width = ctx.width;
  g_verbose = ctx.verbosity == Verbosity::kVerbose;
  if (f.json) {
    ctx.out << plan::to_json(*p).dump(2) << "\n";
  } else if (ctx.verbosity == Verbosity::kQuiet) {
    if (!p->options.empty()) print_quiet(ctx.out, p->options.front());
  } else {
    print_plan(ctx.out, *p);
    print_price_age(ctx.out, **cat, *p);
  }
  if (p->options.empty()) {
    ctx.err << "gpuplan: no feasible option for " << p->workload_name
            << (ctx.verbosity == Verbosity::kQuiet ? " (without --quiet the drops say why)\n"
                                                   : " (see the drops above)\n");
    return 1;
  }
  return 0;
}

}  // namespace

void add_plan_command(CLI::App& app, Context& ctx) {
  auto f = std::make_shared<PlanFlags>();
  CLI::App* cmd = app.add_subcommand(
      "plan",
      "Find the cheapest, fastest or best-balanced way to run a workload on Azure:\n"
      "every GPU size x VM count x region x pricing model, filtered by memory fit,\n"
      "deadline, budget, regions, restrictions and quota; ranked, with the cost-time\n"
      "frontier, fallbacks and drops explained. Exit 1 when nothing is feasible.\n"
      "Example: gpuplan plan examples/finetune-llama3-8b.yaml --objective balanced --top 5");
  cmd->add_option("workload", f->file, "Workload YAML (docs/workload.md)")->required();
  cmd->add_option("--objective", f->objective, "cost, time or balanced (cost x sqrt(hours))")
      ->capture_default_str()
      ->check(one_of("objective", objective_names()));
  cmd->add_option("--top", f->top, "How many ranked options to print")->capture_default_str();
  cmd->add_flag("--json", f->json, "Print the plan as JSON (docs/plan.md)");
  cmd->add_option("--region", f->regions,
                  "Allowed region (replaces the workload's); repeatable or comma-separated")
      ->check(not_blank("leave --region out for the workload's regions"));
  cmd->add_option("--pricing", f->pricings,
                  "Pricing model(s) to consider: payg, spot, reserved-1y, reserved-3y, "
                  "savings-1y, savings-3y (default: all)")
      ->check(one_of("pricing", pricing_names(), true));
  cmd->add_option("--os", f->os, "linux or windows (default: the workload's)")
      ->check(one_of("OS", os_names()));
  cmd->add_flag("--hybrid-benefit", f->hybrid_benefit,
                "Windows with Azure Hybrid Benefit (pays the Linux rate)");
  cmd->add_flag("--no-spot", f->no_spot, "Do not consider spot");
  cmd->add_flag("--include-restricted-regions", f->include_restricted_regions,
                "Also consider access-restricted regions (e.g. jioindiawest, germanynorth)");
  cmd->add_flag("--allow-amd", f->allow_amd,
                "Also consider AMD GPUs (MI300X, V620, V710, MI25: ROCm, not set up by deploy)");
  add_cost_model_flags(*cmd, *f);
  cmd->add_option("--deadline-hours", f->deadline_hours, "Deadline (replaces the workload's)")
      ->check(number_in(0, range::kMaxHours, Low::kOpen));
  cmd->add_option("--budget", f->budget, "Budget in USD (replaces the workload's)")
      ->check(number_in(0, range::kMaxUsd, Low::kOpen));
  cmd->add_option("--max-nodes", f->max_nodes, "Most VMs per option (default 64)");
  cmd->add_option("--horizon-weeks", f->horizon_weeks,
                  "Weeks to look ahead when data.growth_per_week > 0 (default 4)");
  cmd->callback([f, &ctx] { ctx.action = [f, &ctx] { return run_plan(ctx, *f); }; });
}

}  // namespace gpuplan::cli
