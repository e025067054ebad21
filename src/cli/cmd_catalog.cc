// `gpuplan catalog` (list sizes x regions with prices) and `gpuplan regions`.
// Parses flags, calls Catalog::query / region_summaries, formats. The
// `catalog import` and `catalog history` subcommands hang under `catalog`
// (cmd_catalog_import.cc).
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/freshness.h"
#include "catalog/store.h"
#include "cli/choices.h"
#include "cli/command.h"
#include "cli/number_flags.h"
#include "core/csv.h"
#include "core/format.h"
#include "core/json_value.h"
#include "core/strings.h"
#include "core/text_table.h"

namespace gpuplan::cli {
namespace {

using catalog::CatalogQuery;
using catalog::CatalogRow;

struct CatalogFlags {
  std::vector<std::string> series;
  std::string gpu;
  std::vector<std::string> regions;
  std::optional<double> min_vram;
  std::optional<double> min_total_vram;
  std::optional<double> gpus_min;
  std::optional<double> gpus_max;
  std::optional<double> max_price;
  std::string pricing = "payg";
  std::string os = "linux";
  std::string sort = "price";
  bool include_retired = false;
  bool include_restricted = false;
  bool include_restricted_regions = false;
  catalog::FreshnessPolicy freshness;
  bool json = false;
  bool csv = false;
};

Result<CatalogQuery> to_query(const CatalogFlags& f) {
  CatalogQuery q;
  q.series = split_list(f.series);
  q.gpu = f.gpu;
  q.regions = split_list(f.regions);
  auto flag_error = [](Error e, const char* flag) {
    e.where.field = flag;
    return tl::unexpected(std::move(e));
  };
  auto pricing = catalog::parse_pricing(f.pricing);
  if (!pricing) return flag_error(pricing.error(), "--pricing");
  q.pricing = *pricing;
  auto os = catalog::parse_os(f.os);
  if (!os) return flag_error(os.error(), "--os");
  q.os = *os;
  auto sort = catalog::parse_catalog_sort(f.sort);
  if (!sort) return flag_error(sort.error(), "--sort");
  q.sort = *sort;
  auto non_negative = [](const std::optional<double>& v, const char* flag) -> Status {
    if (v && !(std::isfinite(*v) && *v >= 0)) {
      return invalid_argument("must be a finite number, not negative", Where{"", 0, 0, flag});
    }
    return {};
  };
  GPUPLAN_RETURN_IF_ERROR(non_negative(f.min_vram, "--min-vram"));
  GPUPLAN_RETURN_IF_ERROR(non_negative(f.min_total_vram, "--min-total-vram"));
  GPUPLAN_RETURN_IF_ERROR(non_negative(f.gpus_min, "--gpus-min"));
  GPUPLAN_RETURN_IF_ERROR(non_negative(f.gpus_max, "--gpus-max"));
  GPUPLAN_RETURN_IF_ERROR(non_negative(f.max_price, "--max-price"));
  if (f.gpus_min && f.gpus_max && *f.gpus_min > *f.gpus_max) {
    return invalid_argument("must not be above --gpus-max", Where{"", 0, 0, "--gpus-min"});
  }
  q.min_gpu_memory_gib = f.min_vram.value_or(0);
  q.min_total_gpu_memory_gib = f.min_total_vram.value_or(0);
  q.min_gpus = f.gpus_min;
  q.max_gpus = f.gpus_max;
  q.max_usd_per_hour = f.max_price;
  q.include_retired = f.include_retired;
  q.include_restricted = f.include_restricted;
  q.include_restricted_regions = f.include_restricted_regions;
  return q;
}

std::string short_size(const std::string& name) {
  return strings::starts_with_icase(name, "Standard_") ? name.substr(9) : name;
}

nlohmann::ordered_json optional_text(const std::string& s) {
  return s.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s);
}

nlohmann::ordered_json row_json(const CatalogRow& r, const CatalogQuery& q,
                                const std::string& today) {
  nlohmann::ordered_json j;
  const catalog::VmSize& s = *r.size;
  j["size"] = s.name;
  j["series"] = s.series;
  j["gpu"] = s.gpu_model;
  j["gpu_count"] = s.gpu_count;
  j["gpu_memory_gib"] = s.gpu_memory_gib;
  j["vcpus"] = s.vcpus;
  j["memory_gib"] = s.memory_gib;
  j["region"] =
      r.region.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.region);
  j["pricing"] = catalog::to_string(q.pricing);
  j["os"] = catalog::to_string(q.os);
  j["usd_per_hour"] = r.usd_per_hour ? nlohmann::ordered_json(*r.usd_per_hour) : nullptr;
  j["usd_per_gpu_hour"] =
      r.usd_per_gpu_hour ? nlohmann::ordered_json(*r.usd_per_gpu_hour) : nullptr;
  j["as_of"] = r.offer ? nlohmann::ordered_json(r.offer->as_of) : nullptr;
  j["retrieved"] = r.offer ? optional_text(r.offer->retrieved) : nullptr;
  auto age = r.offer ? catalog::days_between(r.offer->retrieved, today) : std::nullopt;
  // As the text says it: a price retrieved after today (GPUPLAN_TODAY set
  // back) is 0 days old, not -30.
  j["age_days"] = age ? nlohmann::ordered_json(std::max(0, *age)) : nullptr;
  j["estimated"] = r.offer ? r.offer->estimated : false;
  j["rule"] =
      r.offer && r.offer->estimated ? nlohmann::ordered_json(r.offer->rule.text()) : nullptr;
  j["source"] = r.offer ? nlohmann::ordered_json(r.offer->source) : nullptr;
  j["note"] = r.note.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.note);
  j["quota_headroom_vcpus"] =
      r.quota_headroom_vcpus ? nlohmann::ordered_json(*r.quota_headroom_vcpus) : nullptr;
  j["restricted"] = r.restricted;
  j["region_access"] = r.region.empty()
                           ? nlohmann::ordered_json(nullptr)
                           : nlohmann::ordered_json(catalog::to_string(r.region_access));
  j["status"] = catalog::to_string(s.status);
  j["status_date"] = optional_text(s.status_date);
  j["retire_date"] = optional_text(s.retire_date);
  j["reservations_end"] = optional_text(s.reservations_end);
  j["reservable"] = s.reservable;
  j["status_source"] = optional_text(s.status_source);
  j["driver"] = catalog::to_string(s.driver);
  return j;
}

// Money without "$" (the column headers name the unit).
std::string bare_money(double v) {
  return format::number(v, format::Kind::kMoney, format::Form::kCsv);
}

// CSV rounds as text does (docs/json.md): money to cents, or three
// significant digits below ten cents; --json has the full figures.
void print_csv(std::ostream& out, const std::vector<CatalogRow>& rows, const CatalogQuery& q) {
  out << "size,series,gpu,gpu_count,gpu_memory_gib,vcpus,memory_gib,region,pricing,os,"
         "usd_per_hour,usd_per_gpu_hour,as_of,estimated,rule,source,note,"
         "quota_headroom_vcpus,restricted,status,status_date,driver,retrieved,region_access\n";
  for (const CatalogRow& r : rows) {
    const catalog::VmSize& s = *r.size;
    std::vector<std::string> cells = {
        s.name,
        s.series,
        s.gpu_model,
        format::trimmed(s.gpu_count, 4),
        format::trimmed(s.gpu_memory_gib, 2),
        std::to_string(s.vcpus),
        format::trimmed(s.memory_gib, 2),
        r.region,
        std::string(catalog::to_string(q.pricing)),
        std::string(catalog::to_string(q.os)),
        r.usd_per_hour ? bare_money(*r.usd_per_hour) : "",
        r.usd_per_gpu_hour ? bare_money(*r.usd_per_gpu_hour) : "",
        r.offer ? r.offer->as_of : "",
        r.offer && r.offer->estimated ? "true" : "false",
        r.offer && r.offer->estimated ? r.offer->rule.text() : "",
        r.offer ? r.offer->source : "",
        r.note,
        r.quota_headroom_vcpus ? format::trimmed(*r.quota_headroom_vcpus, 0) : "",
        r.restricted ? "true" : "false",
        std::string(catalog::to_string(s.status)),
        s.status_date,
        std::string(catalog::to_string(s.driver)),
        r.offer ? r.offer->retrieved : "",
        r.region.empty() ? "" : std::string(catalog::to_string(r.region_access))};
    for (size_t i = 0; i < cells.size(); ++i) {
      out << (i ? "," : "") << csv::escape(cells[i]);
    }
    out << "\n";
  }
}

// The listing's table within `width`: narrow terminals lose the least useful
// columns first (kDropOrder); their names go to `dropped`. The prices and
// their dates (AS-OF) always stay.
const std::vector<std::string> kDropOrder = {"SERIES", "RAM",   "vCPU", "$/GPU-H",
                                             "VRAM",   "QUOTA", "GPUS"};

std::string render_table(const std::vector<CatalogRow>& rows, bool with_quota, bool with_as_of,
                         size_t width, std::vector<std::string>* dropped) {
  using Align = TextTable::Align;
  TextTable t;
  t.add_column("SIZE");
  t.add_column("SERIES");
  t.add_column("GPUS");
  t.add_column("VRAM", Align::kRight);
  t.add_column("vCPU", Align::kRight);
  t.add_column("RAM", Align::kRight);
  t.add_column("REGION");
  t.add_column("$/HOUR", Align::kRight);
  t.add_column("$/GPU-H", Align::kRight);
  if (with_quota) t.add_column("QUOTA", Align::kRight);
  if (with_as_of) t.add_column("AS-OF");
  for (const CatalogRow& r : rows) {
    const catalog::VmSize& s = *r.size;
    std::vector<std::string> cells;
    cells.push_back(short_size(s.name) + (r.restricted ? " (R)" : "") +
                    (s.status == catalog::SizeStatus::kRetired ? " (retired)" : ""));
    cells.push_back(s.series);
    cells.push_back(format::trimmed(s.gpu_count, 4) + "x " + s.gpu_model);
    cells.push_back(format::trimmed(s.gpu_memory_gib, 1));
    cells.push_back(std::to_string(s.vcpus));
    cells.push_back(format::trimmed(s.memory_gib, 1));
    cells.push_back(r.region.empty()
                        ? "-"
                        : r.region +
                              (r.region_access == catalog::RegionAccess::kRestricted ? "*" : ""));
    const char* mark = r.offer && r.offer->estimated ? "~" : "";
    cells.push_back(r.usd_per_hour ? mark + bare_money(*r.usd_per_hour) : "-");
    cells.push_back(r.usd_per_gpu_hour ? mark + bare_money(*r.usd_per_gpu_hour) : "-");
    if (with_quota) {
      cells.push_back(r.quota_headroom_vcpus ? format::trimmed(*r.quota_headroom_vcpus, 0) : "-");
    }
    if (with_as_of) cells.push_back(r.offer ? r.offer->as_of : "-");
    t.add_row(std::move(cells));
  }
  return t.render_fitting(width, kDropOrder, dropped);
}

// "prefix: a, b, c." wrapped at `width`, continuation lines indented.
std::string wrap(const std::string& prefix, const std::vector<std::string>& items, size_t width) {
  std::string text = prefix;
  for (size_t i = 0; i < items.size(); ++i) {
    text += (i ? " " : "") + items[i] + (i + 1 < items.size() ? "," : ".");
  }
  return wrap_text(text, width, 0, 2);
}

// The footer lines about the rows' sizes and regions: retired sizes shown,
// access-restricted regions shown.
void print_marks(std::ostream& out, const std::vector<CatalogRow>& rows, size_t width) {
  bool any_restricted = false, any_retired = false, any_region = false;
  for (const CatalogRow& r : rows) {
    any_restricted = any_restricted || r.restricted;
    any_retired = any_retired || r.size->status == catalog::SizeStatus::kRetired;
    any_region = any_region || r.region_access == catalog::RegionAccess::kRestricted;
  }
  if (any_restricted) {
    out << wrap_text("(R) not available to this subscription in that region (list-skus).", width, 0,
                     2);
  }
  if (any_retired) {
    out << wrap_text(
        "(retired) past its retirement date: cannot be deployed, no reservations (see --json "
        "status_source).",
        width, 0, 2);
  }
  if (any_region) {
    out << wrap_text(
        "* access-restricted region: open only to customers with a business need in that "
        "country; ask for access through Azure's region access request process.",
        width, 0, 2);
  }
}

// Prices' age and, past the policy's limits, the refresh commands.
void print_freshness(std::ostream& out, const std::vector<CatalogRow>& rows, const CatalogQuery& q,
                     const std::string& today, const catalog::FreshnessPolicy& policy,
                     size_t width) {
  std::vector<const catalog::Offer*> offers;
  offers.reserve(rows.size());
  for (const CatalogRow& r : rows) offers.push_back(r.offer);
  const std::string region = q.regions.size() == 1 ? q.regions.front() : "";
  for (const std::string& line :
       catalog::freshness_lines(catalog::price_ages(offers, today, policy), region)) {
    out << wrap_text(line, width, 0, 2);
  }
}

// How the listing is printed: the terminal's width, and whether sources are
// cited in full (--verbose) or by their short form.
struct Layout {
  size_t width = kDefaultWidth;
  bool verbose = false;
};

void print_table(std::ostream& out, const std::vector<CatalogRow>& rows, const CatalogQuery& q,
                 const std::string& today, const catalog::FreshnessPolicy& policy,
                 const Layout& lay) {
  const size_t width = lay.width;
  if (rows.empty()) {
    out << wrap_text("No sizes match (" + std::string(catalog::to_string(q.pricing)) + ", " +
                         std::string(catalog::to_string(q.os)) +
                         "). Try --include-retired, --include-restricted, "
                         "--include-restricted-regions or fewer filters.",
                     width, 0, 2);
    return;
  }
  // Columns that only show when they say something: QUOTA when any quota is
  // known, AS-OF when the dates differ (else one footer line says it).
  bool with_quota = false;
  std::set<std::string> dates, sources;
  bool any_estimated = false, any_missing = false;
  std::set<std::string> notes;
  for (const CatalogRow& r : rows) {
    with_quota = with_quota || r.quota_headroom_vcpus.has_value();
    if (r.offer && r.usd_per_hour) {
      dates.insert(r.offer->as_of);
      if (r.offer->estimated) {
        any_estimated = true;
      } else {
        // The listed source's short form (publisher and date), in full with --verbose.
        sources.insert(lay.verbose ? r.offer->source : short_source(r.offer->source));
      }
    }
    if (!r.usd_per_hour && !r.region.empty()) {
      any_missing = true;
      notes.insert(r.note);
    }
  }
  const bool with_as_of = dates.size() > 1;
  // Sizes no price source places in any region go below the table, by name.
  std::vector<CatalogRow> placed;
  std::vector<std::string> nowhere;
  for (const CatalogRow& r : rows) {
    if (r.region.empty()) {
      nowhere.push_back(short_size(r.size->name) + " (" + r.size->gpu_model + ")");
    } else {
      placed.push_back(r);
    }
  }
  std::vector<std::string> dropped;
  if (!placed.empty()) out << render_table(placed, with_quota, with_as_of, width, &dropped);
  std::string summary =
      std::to_string(rows.size()) + " row(s); " + std::string(catalog::to_string(q.pricing)) +
      " on " + std::string(catalog::to_string(q.os)) + ", USD per VM-hour, VRAM and RAM in GiB";
  if (dates.size() == 1) summary += ", as of " + *dates.begin();
  out << wrap_text(summary + ".", width, 0, 2);
  for (const std::string& s : sources) out << wrap_text("Listed prices: " + s + ".", width, 0, 2);
  if (any_estimated) {
    out << wrap_text(
        "~ estimated from a rule in data/catalog/pricing_rules.csv (see --json for each rule).",
        width, 0, 2);
  }
  if (any_missing) {
    std::string text = "- no price:";
    const char* sep = " ";
    for (const std::string& n : notes) {
      text += sep + n;
      sep = "; ";
    }
    out << wrap_text(text + ".", width, 0, 2);
  }
  if (!nowhere.empty()) {
    out << wrap("No listed price in any region (" + std::to_string(nowhere.size()) + "): ", nowhere,
                width);
    out << wrap_text("Fetch their prices, if Azure lists any: " + catalog::refresh_command(""),
                     width, 2, 4);
  }
  if (!dropped.empty()) {
    std::string names;
    for (const std::string& d : dropped) names += (names.empty() ? "" : ", ") + d;
    out << wrap_text(names + (dropped.size() == 1 ? " column" : " columns") + " left out to fit " +
                         std::to_string(width) + " columns; see --json or --csv.",
                     width, 0, 2);
  }
  print_marks(out, rows, width);
  print_freshness(out, rows, q, today, policy, width);
}

// --quiet: the first row (the cheapest, or first by --sort), one line: size,
// region, USD per VM-hour ("-" when unpriced). Nothing when no size matches.
void print_quiet(std::ostream& out, const std::vector<CatalogRow>& rows) {
  for (const CatalogRow& r : rows) {
    if (r.region.empty()) continue;
    out << r.size->name << " " << r.region << " "
        << (r.usd_per_hour ? strings::fixed(*r.usd_per_hour, 3) + " USD/h" : std::string("-"))
        << "\n";
    return;
  }
}

void print_regions(std::ostream& out, const std::vector<catalog::RegionSummary>& regions,
                   size_t width) {
  using Align = TextTable::Align;
  bool with_quota = false;
  for (const auto& r : regions) {
    with_quota = with_quota || r.total_headroom_vcpus || r.spot_headroom_vcpus;
  }
  TextTable t;
  t.add_column("REGION");
  t.add_column("SIZES", Align::kRight);
  if (with_quota) {
    t.add_column("vCPU FREE", Align::kRight);
    t.add_column("GPU FREE", Align::kRight);
    t.add_column("SPOT FREE", Align::kRight);
  }
  t.add_column("GPU MODELS");
  // Wrap the model list so the table fits `width`: REGION (18) + SIZES (5) +
  // the quota columns (9 each, three) + separators, and one character for the
  // trailing comma of a wrapped line; at least one model name a line.
  const size_t models_width = std::max<size_t>(width - (with_quota ? 60 : 28), 16);
  for (const auto& r : regions) {
    std::vector<std::string> lines(1);
    for (const std::string& m : r.gpu_models) {
      std::string& cur = lines.back();
      if (!cur.empty() && cur.size() + 2 + m.size() > models_width) {
        cur += ",";
        lines.emplace_back();
      }
      if (!lines.back().empty()) lines.back() += ", ";
      lines.back() += m;
    }
    for (size_t i = 0; i < lines.size(); ++i) {
      std::vector<std::string> cells;
      const char* mark = r.access == catalog::RegionAccess::kRestricted ? "*" : "";
      cells.push_back(i == 0 ? r.region + mark : "");
      cells.push_back(i == 0 ? std::to_string(r.sizes) : "");
      if (with_quota) {
        cells.push_back(i == 0 && r.total_headroom_vcpus
                            ? format::trimmed(*r.total_headroom_vcpus, 0)
                            : (i == 0 ? "-" : ""));
        cells.push_back(i == 0 && r.gpu_headroom_vcpus ? format::trimmed(*r.gpu_headroom_vcpus, 0)
                                                       : (i == 0 ? "-" : ""));
        cells.push_back(i == 0 && r.spot_headroom_vcpus ? format::trimmed(*r.spot_headroom_vcpus, 0)
                                                        : (i == 0 ? "-" : ""));
      }
      cells.push_back(lines[i]);
      t.add_row(std::move(cells));
    }
  }
  out << t.render();
  out << wrap_text(
      std::to_string(regions.size()) + " region(s); SIZES counts sizes that are not retired." +
          (with_quota ? " vCPU FREE: the regional total's headroom; GPU FREE: the most vCPUs one "
                        "GPU family offered there can still start (its family quota, capped by "
                        "the total); SPOT FREE: the low-priority pool."
                      : ""),
      width, 0, 2);
  bool any_restricted = false;
  for (const auto& r : regions) {
    any_restricted = any_restricted || r.access == catalog::RegionAccess::kRestricted;
  }
  out << wrap_text(any_restricted ? "* access-restricted region: open only to customers with a "
                                    "business need in that country."
                                  : "Access-restricted regions are hidden; "
                                    "--include-restricted-regions lists them.",
                   width, 0, 2);
  if (!with_quota) {
    out << wrap_text("Quota: import `az vm list-usage` with `gpuplan catalog import usage`.", width,
                     0, 2);
  }
}

// `catalog`: the flags as a query, the catalog, the rows, printed.
int run_catalog(Context& ctx, const CatalogFlags& flags) {
  // 1. Flags -> query (bad spellings are exit 2 before anything loads).
  auto query = to_query(flags);
  if (!query) return report(ctx, query.error());
  // 2. The catalog: embedded default + the store's imports.
  auto cat = load_catalog(ctx);
  if (!cat) return report(ctx, cat.error());
  // 3. Filter and sort.
  auto rows = (*cat)->query(*query);
  if (!rows) return report(ctx, rows.error());
  // 4. Format.
  if (flags.json) {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const CatalogRow& r : *rows) arr.push_back(row_json(r, *query, (*cat)->today()));
    ctx.out << arr.dump(2) << "\n";
  } else if (flags.csv) {
    print_csv(ctx.out, *rows, *query);
  } else if (ctx.verbosity == Verbosity::kQuiet) {
    print_quiet(ctx.out, *rows);
  } else {
    print_table(ctx.out, *rows, *query, (*cat)->today(), flags.freshness,
                Layout{ctx.width, ctx.verbosity == Verbosity::kVerbose});
  }
  return 0;
}

// `regions`: each region's GPU models, sizes and quota headroom, printed.
int run_regions(Context& ctx, bool json, bool include_restricted) {
  auto cat = load_catalog(ctx);
  if (!cat) return report(ctx, cat.error());
  std::vector<catalog::RegionSummary> summaries = (*cat)->region_summaries(include_restricted);
  if (json) {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const auto& r : summaries) {
      nlohmann::ordered_json j;
      j["region"] = r.region;
      j["region_access"] = catalog::to_string(r.access);
      j["gpu_models"] = r.gpu_models;
      j["sizes"] = r.sizes;
      j["quota_headroom_vcpus"] = json::or_null(r.total_headroom_vcpus);
      j["spot_quota_headroom_vcpus"] = json::or_null(r.spot_headroom_vcpus);
      j["gpu_quota_headroom_vcpus"] = json::or_null(r.gpu_headroom_vcpus);
      arr.push_back(std::move(j));
    }
    ctx.out << arr.dump(2) << "\n";
  } else if (ctx.verbosity == Verbosity::kQuiet) {
    // --quiet: the region names, one line.
    for (size_t i = 0; i < summaries.size(); ++i) {
      ctx.out << (i ? " " : "") << summaries[i].region;
    }
    ctx.out << "\n";
  } else {
    print_regions(ctx.out, summaries, ctx.width);
  }
  return 0;
}

// ---- gpuplan regions
void add_regions_command(CLI::App& app, Context& ctx) {
  auto regions_json = std::make_shared<bool>(false);
  auto regions_restricted = std::make_shared<bool>(false);
  CLI::App* regions = app.add_subcommand(
      "regions",
      "List regions with the GPU models offered there and quota headroom when imported.\n"
      "Example: gpuplan regions --json");
  regions->add_flag("--json", *regions_json, "Print a JSON array");
  regions->add_flag("--include-restricted-regions", *regions_restricted,
                    "Also list access-restricted regions (marked *)");
  regions->callback([regions_json, regions_restricted, &ctx] {
    ctx.action = [regions_json, regions_restricted, &ctx] {
      return run_regions(ctx, *regions_json, *regions_restricted);
    };
  });
}

}  // namespace

void add_catalog_commands(CLI::App& app, Context& ctx) {
  // ---- gpuplan catalog
  auto flags = std::make_shared<CatalogFlags>();
  CLI::App* cmd = app.add_subcommand(
      "catalog",
      "List Azure GPU VM sizes by region with prices, quota and restrictions.\n"
      "Default: payg on linux, current sizes, unrestricted, cheapest first.\n"
      "Example: gpuplan catalog --gpu H100 --region eastus --pricing reserved-1y");
  cmd->add_option("--series", flags->series,
                  "Series (NCads_H100_v5) or family letter (NC, ND, NV, NG); repeatable")
      ->check(not_blank("leave --series out for every series"));
  cmd->add_option("--gpu", flags->gpu,
                  "GPU model, e.g. H100-SXM; a prefix matches all its parts (H100)");
  cmd->add_option("--region", flags->regions, "Region, e.g. eastus; repeatable or comma-separated")
      ->check(not_blank("leave --region out for every region"));
  cmd->add_option("--min-vram", flags->min_vram, "Minimum GPU memory per GPU, GiB")
      ->check(number_in(0, 1e6));
  cmd->add_option("--min-total-vram", flags->min_total_vram, "Minimum GPU memory per VM, GiB")
      ->check(number_in(0, 1e6));
  cmd->add_option("--gpus-min", flags->gpus_min, "Minimum GPUs per VM (fractions allowed)")
      ->check(number_in(0, 1024));
  cmd->add_option("--gpus-max", flags->gpus_max, "Maximum GPUs per VM")->check(number_in(0, 1024));
  cmd->add_option("--max-price", flags->max_price, "Maximum USD per VM-hour (drops unpriced rows)")
      ->check(number_in(0, range::kMaxUsd));
  cmd->add_option("--pricing", flags->pricing,
                  "payg, spot, reserved-1y, reserved-3y, savings-1y, savings-3y")
      ->capture_default_str()
      ->check(one_of("pricing", pricing_names()));
  cmd->add_option("--os", flags->os, "linux or windows")
      ->capture_default_str()
      ->check(one_of("OS", os_names()));
  cmd->add_option("--sort", flags->sort, "price, gpu-price, size, region, gpu-memory, gpus")
      ->capture_default_str()
      ->check(one_of("sort", sort_names()));
  cmd->add_flag("--include-retired", flags->include_retired, "Also list retired sizes");
  cmd->add_flag("--include-restricted", flags->include_restricted,
                "Also list sizes list-skus says this subscription cannot use");
  cmd->add_flag("--include-restricted-regions", flags->include_restricted_regions,
                "Also list access-restricted regions (e.g. jioindiawest, germanynorth), marked *");
  cmd->add_option("--stale-payg-days", flags->freshness.payg_days,
                  "Warn when pay-as-you-go (and reserved/savings) prices are older than this")
      ->capture_default_str()
      ->check(CLI::Range(0, 100000));
  cmd->add_option("--stale-spot-days", flags->freshness.spot_days,
                  "Warn when spot prices are older than this")
      ->capture_default_str()
      ->check(CLI::Range(0, 100000));
  auto* json = cmd->add_flag("--json", flags->json, "Print a JSON array of rows");
  auto* csv_flag = cmd->add_flag("--csv", flags->csv, "Print CSV rows");
  json->excludes(csv_flag);

  add_catalog_import_commands(*cmd, ctx);

  cmd->callback([cmd, flags, &ctx] {
    // CLI11 runs this parent callback after `catalog import ...` too.
    if (!cmd->get_subcommands().empty()) return;
    ctx.action = [flags, &ctx] { return run_catalog(ctx, *flags); };
  });

  add_regions_command(app, ctx);
}

}  // namespace gpuplan::cli
