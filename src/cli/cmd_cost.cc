// `gpuplan cost SIZE --region R`: one size's cost under every pricing model
// and the utilization at which a commitment beats pay-as-you-go. Parses the
// flags, calls cost::cost_size, formats (no arithmetic here).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/lookup.h"
#include "catalog/store.h"
#include "cli/choices.h"
#include "cli/command.h"
#include "cli/number_flags.h"
#include "core/format.h"
#include "core/strings.h"
#include "core/text_table.h"
#include "cost/cost.h"

namespace gpuplan::cli {
namespace {

struct CostFlags {
  std::string size;
  std::string region;
  std::optional<double> hours;
  std::optional<double> utilization;
  std::string os = "linux";
  bool hybrid_benefit = false;
  int count = 1;
  bool json = false;
};

// Hours as the reader wants them: whole from 100, two decimals below, and
// significant digits under 0.01 (0.001 h showed as "0.00 h of use" beside
// a commitment's whole term).
std::string hours_text(double h) {
  if (h >= 100) return strings::fixed(h, 0);
  if (h >= 0.01) return strings::fixed(h, 2);
  return strings::general(h);
}

// "- text" wrapped at `width`, continuation lines indented.
std::string bullet(const std::string& text, size_t width) {
  return wrap_text("- " + text, width, 0, 4);
}

// The table's columns, left out from the first when the terminal is narrow:
// the effective rate (the listed one when the commitment is used in full),
// then the listed rate (the cost column carries the money).
const std::vector<std::string> kDropOrder = {"effective $/h", "$/h per VM"};

// `not_reservable`: catalog::reservation_note of the size ("" when it is).
void print(std::ostream& os, const cost::SizeCost& sc, const std::string& not_reservable,
           size_t width, bool verbose) {
  os << wrap_text(sc.size + " x" + std::to_string(sc.count) + " in " + sc.region + ", " +
                      std::string(catalog::to_string(sc.os)) +
                      (sc.hybrid_benefit ? " with Hybrid Benefit" : "") + ": " +
                      hours_text(sc.hours) + " h of use",
                  width, 0, 2)
     << "\n";
  TextTable t;
  t.add_column("pricing");
  t.add_column("$/h per VM", TextTable::Align::kRight);
  t.add_column("cost", TextTable::Align::kRight);
  t.add_column("effective $/h", TextTable::Align::kRight);
  t.add_column("break-even", TextTable::Align::kRight);
  t.add_column("price");
  for (const cost::PricingCost& r : sc.rows) {
    std::string name(catalog::to_string(r.pricing));
    if (!r.breakdown) {
      const bool unoffered = catalog::commitment_hours(r.pricing) > 0 && !not_reservable.empty();
      t.add_row({name, "-", "-", "-", "-",
                 unoffered ? not_reservable : (r.not_offered ? "not offered" : "no listed price")});
      continue;
    }
    const cost::CostBreakdown& b = *r.breakdown;
    std::string be = r.break_even_utilization
                         ? (*r.break_even_utilization > 1
                                ? "never"
                                : strings::fixed(*r.break_even_utilization * 100, 0) + "%")
                         : "-";
    std::string price = b.quote.estimated ? "estimated" : "listed " + b.quote.as_of;
    t.add_row({name, format::usd(b.quote.compute_usd_per_hour + b.quote.licence_usd_per_hour),
               format::usd(b.numbers.total_usd), format::usd(b.numbers.usd_per_hour), be, price});
  }
  std::vector<std::string> dropped;
  os << t.render_fitting(width, kDropOrder, &dropped);
  if (!dropped.empty()) {
    std::string names;
    for (const std::string& d : dropped) names += (names.empty() ? "" : ", ") + d;
    os << wrap_text(
        "(" + names + " left out to fit " + std::to_string(width) + " columns; see --json)", width,
        0, 1);
  }
  os << "\n"
     << wrap_text("break-even: the share of a commitment's term you must use for it to beat payg.",
                  width, 0, 2);
  // Each estimated price names its rule and the rule's source.
  for (const cost::PricingCost& r : sc.rows) {
    if (r.breakdown && r.breakdown->quote.estimated) {
      os << bullet(
          std::string(catalog::to_string(r.pricing)) + " is estimated: " + r.breakdown->quote.rule,
          width);
    }
  }
  const cost::PricingCost& payg = sc.rows.front();
  // Why pay-as-you-go itself is not offered (Windows on a Linux-only size).
  if (!payg.breakdown && payg.not_offered) os << bullet(payg.missing, width);
  if (payg.breakdown) {
    const std::string& source = payg.breakdown->quote.source;
    os << bullet("prices: " + (verbose ? source : short_source(source)), width);
    if (!payg.breakdown->quote.licence_basis.empty()) {
      os << bullet("windows licence: " + payg.breakdown->quote.licence_basis, width);
    }
  }
  for (const auto& [name, value] : sc.assumptions) os << bullet(name + ": " + value, width);
}

// --quiet: the pay-as-you-go total (else the first priced model's), one line.
void print_quiet(std::ostream& os, const cost::SizeCost& sc) {
  for (const cost::PricingCost& r : sc.rows) {
    if (!r.breakdown) continue;
    os << strings::fixed(r.breakdown->numbers.total_usd, 2) << " USD ("
       << catalog::to_string(r.pricing) << ", " << hours_text(sc.hours) << " h, " << sc.count
       << (sc.count == 1 ? " VM" : " VMs") << ")\n";
    return;
  }
  os << "no listed price\n";
}

}  // namespace

void add_cost_command(CLI::App& app, Context& ctx) {
  auto f = std::make_shared<CostFlags>();
  CLI::App* cmd = app.add_subcommand(
      "cost",
      "One VM size's cost under every pricing model (payg, spot, reserved, savings plan)\n"
      "for a month or some hours, and the utilization at which a commitment beats payg.\n"
      "Example: gpuplan cost Standard_NC40ads_H100_v5 --region eastus --utilization 0.6");
  cmd->add_option("size", f->size, "VM size, e.g. Standard_NC40ads_H100_v5 (or NC40ads_H100_v5)")
      ->required();
  cmd->add_option("--region", f->region, "Region, e.g. eastus")->required();
  auto* hours = cmd->add_option("--hours", f->hours,
                                "Hours of use (a commitment then serves only these hours)")
                    ->check(number_in(0, range::kMaxHours, Low::kOpen));
  auto* util = cmd->add_option("--utilization", f->utilization,
                               "Share of the month in use, (0,1]; commitments amortised at it")
                   ->check(number_in(0, 1, Low::kOpen));
  hours->excludes(util);
  cmd->add_option("--os", f->os, "linux or windows")
      ->capture_default_str()
      ->check(one_of("OS", os_names()));
  cmd->add_flag("--hybrid-benefit", f->hybrid_benefit,
                "Windows with Azure Hybrid Benefit (pays the Linux rate)");
  cmd->add_option("--count", f->count, "Number of VMs")
      ->check(number_in(1, 10000, Low::kClosed, true))
      ->capture_default_str();
  cmd->add_flag("--json", f->json, "Print JSON");
  cmd->callback([f, &ctx] {
    ctx.action = [f, &ctx]() -> int {
      auto os = catalog::parse_os(f->os, Where{"", 0, 0, "--os"});
      if (!os) return report(ctx, os.error());
      if (f->hybrid_benefit && *os != catalog::Os::kWindows)
        return report(ctx, invalid_argument("Azure Hybrid Benefit applies to Windows VMs only; "
                                            "add --os windows or drop the flag",
                                            Where{"", 0, 0, "--hybrid-benefit"})
                               .value());
      auto cat = load_catalog(ctx);
      if (!cat) return report(ctx, cat.error());
      if (auto bad = (*cat)->check_gpu_region(f->region, Where{"", 0, 0, "--region"}); !bad) {
        return report(ctx, bad.error());
      }
      auto found = catalog::lookup_size(**cat, f->size, Where{"", 0, 0, "size"});
      if (!found) return report(ctx, found.error());
      const catalog::VmSize* size = *found;
      auto rates = cost::Rates::load_embedded();
      if (!rates) return report(ctx, rates.error());
      auto sc = cost::cost_size(**cat, *rates, *size, strings::to_lower(f->region), *os,
                                f->hybrid_benefit, f->hours, f->utilization, f->count);
      if (!sc) return report(ctx, sc.error());
      if (f->json) {
        ctx.out << cost::to_json(*sc).dump(2) << "\n";
      } else if (ctx.verbosity == Verbosity::kQuiet) {
        print_quiet(ctx.out, *sc);
      } else {
        print(ctx.out, *sc, catalog::reservation_note(*size), ctx.width,
              ctx.verbosity == Verbosity::kVerbose);
        for (const std::string& line : sc->warnings) ctx.out << wrap_text(line, ctx.width, 0, 2);
      }
      return 0;
    };
  });
}

}  // namespace gpuplan::cli
