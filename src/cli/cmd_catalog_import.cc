// `gpuplan catalog import retail-prices|skus|usage|spot` and `gpuplan catalog
// history`: parse flags, call the importers and the store, print what was
// read, used and ignored (or --json). No arithmetic here.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/freshness.h"
#include "catalog/import_retail_prices.h"
#include "catalog/import_skus.h"
#include "catalog/import_spot.h"
#include "catalog/import_usage.h"
#include "catalog/lookup.h"
#include "catalog/store.h"
#include "cli/choices.h"
#include "cli/command.h"
#include "core/strings.h"
#include "core/text_table.h"

namespace gpuplan::cli {
namespace {

using catalog::ImportReport;
using catalog::SizeFilter;

// The sizes an import keeps: the embedded catalog's GPU sizes.
Result<SizeFilter> size_filter() {
  GPUPLAN_TRY(auto cat, catalog::Catalog::load_embedded());
  return SizeFilter::from_sizes(cat->sizes());
}

using ImportFn = std::function<Result<ImportReport>(const SizeFilter&)>;

// Every import's steps after its flags: which sizes to keep, `import` reads
// and interprets the input (nothing is written on any error), then one
// transaction in the store and the summary (--json or text); the exit code.
int import_and_store(Context& ctx, bool json, const ImportFn& import) {
  auto filter = size_filter();
  if (!filter) return report(ctx, filter.error());
  Result<ImportReport> imported = import(*filter);
  if (!imported) return report(ctx, imported.error());
  auto info = catalog::write_snapshot(store_path(ctx), imported->data);
  if (!info) return report(ctx, info.error());
  imported->snapshot = *info;
  if (json) {
    nlohmann::ordered_json j = catalog::to_json(*imported);
    j["store"] = store_path(ctx);
    ctx.out << j.dump(2) << "\n";
  } else {
    ctx.out << catalog::describe(*imported) << "  store:            " << store_path(ctx) << "\n";
  }
  return 0;
}

// Ends the declaration of a file import command: its --json flag (last in
// --help, after the command's own flags) and its action, which runs
// `import` through import_and_store().
void add_import_action(CLI::App& cmd, Context& ctx, ImportFn import) {
  auto json = std::make_shared<bool>(false);
  cmd.add_flag("--json", *json, "Print the import summary as JSON");
  cmd.callback([json, import = std::move(import), &ctx] {
    ctx.action = [json, import, &ctx] { return import_and_store(ctx, *json, import); };
  });
}

struct RetailFlags {
  std::vector<std::string> files;
  bool live = false;
  std::string endpoint;
  std::string region;
  int max_attempts = 5;
  int backoff_ms = 1000;
  int max_pages = catalog::LiveOptions{}.max_pages;
  int max_page_mib = static_cast<int>(catalog::LiveOptions{}.max_page_bytes >> 20);
  bool json = false;
};

void add_retail_prices(CLI::App& import, Context& ctx) {
  auto f = std::make_shared<RetailFlags>();
  CLI::App* cmd = import.add_subcommand(
      "retail-prices",
      "Import Azure Retail Prices API pages ({\"Items\": [...], \"NextPageLink\": ...}):\n"
      "files (each one page of one import) or --live over HTTPS, following NextPageLink.\n"
      "Consumption -> payg / spot (\" Spot\" in skuName), Reservation -> reserved-1y/3y\n"
      "(term price / 8760 h per year), savingsPlan -> savings-1y/3y, productName\n"
      "\"... Windows\" -> windows. Low Priority and DevTestConsumption are ignored and counted.\n"
      "Example: gpuplan catalog import retail-prices --live --region eastus\n"
      "Example: gpuplan catalog import retail-prices page1.json page2.json\n"
      "Offline machine: save the pages on a connected one (curl and jq), copy them over:\n" +
          catalog::offline_refresh_command("") +
          "\n  then: gpuplan catalog import retail-prices prices-*.json");
  cmd->add_option("FILE", f->files, "Retail Prices API page(s), in order");
  auto* live = cmd->add_flag("--live", f->live, "Fetch from the API (libcurl)");
  cmd->add_option("--endpoint", f->endpoint,
                  "First page URL for --live (default: prices.azure.com, GPU VM sizes in USD)")
      ->needs(live);
  cmd->add_option("--region", f->region, "Keep only this armRegionName, e.g. eastus")
      ->check(not_blank("leave --region out to keep every region"));
  cmd->add_option("--max-attempts", f->max_attempts,
                  "--live: attempts per page on HTTP 429/5xx or network errors")
      ->capture_default_str()
      ->check(CLI::Range(1, 20));
  cmd->add_option("--backoff-ms", f->backoff_ms,
                  "--live: first retry delay, doubled per retry (capped at 30 s; "
                  "Retry-After is honoured up to the cap)")
      ->capture_default_str()
      ->check(CLI::Range(0, 30000));
  cmd->add_option("--max-pages", f->max_pages,
                  "--live: stop with an error after this many pages (a NextPageLink loop); the "
                  "GPU price list is ~20 pages, every VM price in USD ~600")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--max-page-mib", f->max_page_mib,
                  "--live: largest page body, MiB (a 1,000-item page is ~1 MiB)")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  cmd->add_flag("--json", f->json, "Print the import summary as JSON");
  cmd->callback([f, &ctx] {
    ctx.action = [f, &ctx]() -> int {
      // 1. Exactly one input: files or --live.
      if (f->live == !f->files.empty())
        return report(ctx, Error{ErrorCode::kInvalidArgument,
                                 "give FILE... or --live (not both, not neither)",
                                 Where{"", 0, 0, "retail-prices"}});
      // 2. Read and interpret every page, then one transaction in the store.
      return import_and_store(ctx, f->json, [&](const SizeFilter& filter) -> Result<ImportReport> {
        if (!f->live) return catalog::import_retail_price_files(f->files, filter, f->region);
        catalog::LiveOptions o;
        o.endpoint = f->endpoint;
        o.region = f->region;
        o.max_attempts = f->max_attempts;
        o.initial_backoff = std::chrono::milliseconds(f->backoff_ms);
        o.max_pages = f->max_pages;
        o.max_page_bytes = static_cast<size_t>(f->max_page_mib) << 20;
        if (ctx.err_is_tty)
          o.progress = [&ctx](int page, int64_t) {
            ctx.err << "\rfetched page " << page << std::flush;
          };
        auto res = catalog::import_retail_prices_live(o, filter);
        if (ctx.err_is_tty) ctx.err << "\n";
        return res;
      });
    };
  });
}

void add_skus(CLI::App& import, Context& ctx) {
  auto file = std::make_shared<std::string>();
  CLI::App* cmd = import.add_subcommand(
      "skus",
      "Import `az vm list-skus --all -o json` (or the REST {\"value\": [...]} shape):\n"
      "where each GPU size is offered (regions, zones) and the subscription's restrictions\n"
      "(NotAvailableForSubscription for a region or for zones). GPU counts are never read\n"
      "from it (the API rounds fractional GPUs).\n"
      "Example: az vm list-skus --all -o json > skus.json && gpuplan catalog import skus "
      "skus.json");
  cmd->add_option("FILE", *file, "list-skus JSON")->required();
  add_import_action(*cmd, ctx, [file](const SizeFilter& filter) {
    return catalog::import_skus_file(*file, filter);
  });
}

void add_usage(CLI::App& import, Context& ctx) {
  auto file = std::make_shared<std::string>();
  auto region = std::make_shared<std::string>();
  CLI::App* cmd = import.add_subcommand(
      "usage",
      "Import `az vm list-usage -l REGION -o json` (or {\"value\": [...]}): regional and\n"
      "per-family vCPU quota and usage, and the spot (low-priority) pool, for one region.\n"
      "Family names are matched to the catalog ignoring case and spaces.\n"
      "Example: az vm list-usage -l eastus -o json > usage.json && "
      "gpuplan catalog import usage usage.json --region eastus");
  cmd->add_option("FILE", *file, "list-usage JSON")->required();
  cmd->add_option("--region", *region, "The region the file is for (az's -l)")->required();
  add_import_action(*cmd, ctx, [file, region](const SizeFilter& filter) {
    return catalog::import_usage_file(*file, *region, filter);
  });
}

void add_spot(CLI::App& import, Context& ctx) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto as_of = std::make_shared<std::string>();
  CLI::App* cmd = import.add_subcommand(
      "spot",
      "Import Azure Resource Graph spot data (az graph query -o json pages, in order): the\n"
      "eviction-rate band of each GPU size per region (0-5, 5-10, 10-15, 15-20, 20+ percent of\n"
      "VMs evicted within an hour) and spot price history per size, OS and region. The plan's\n"
      "spot risk, its cost with evictions and the simulator's eviction model use the band.\n"
      "The exact query, with paging through skip_token, is in docs/importers.md.\n"
      "Example: az graph query -q \"SpotResources | where type in~ "
      "('microsoft.compute/skuspotevictionrate/location', "
      "'microsoft.compute/skuspotpricehistory/ostype/location') | ...\" --first 1000 -o json "
      "> spot1.json && gpuplan catalog import spot spot1.json");
  cmd->add_option("FILE", *files, "az graph query page(s), in order")->required();
  cmd->add_option("--as-of", *as_of,
                  "Day the pages were fetched, YYYY-MM-DD (default: today, UTC); dates the bands");
  add_import_action(*cmd, ctx, [files, as_of](const SizeFilter& filter) {
    return catalog::import_spot_files(*files, filter, *as_of);
  });
}

// The Resource Graph spot price points of a size in a region, oldest first.
void print_spot_history(Context& ctx, const catalog::VmSize& size, const std::string& region,
                        const std::vector<catalog::SpotPriceHistoryEntry>& points) {
  TextTable t;
  t.add_column("EFFECTIVE");
  t.add_column("OS");
  t.add_column("$/HOUR", TextTable::Align::kRight);
  t.add_column("SNAPSHOT", TextTable::Align::kRight);
  for (const auto& e : points)
    t.add_row({e.effective_date, std::string(catalog::to_string(e.os)),
               strings::fixed(e.usd_per_hour, 4), std::to_string(e.snapshot)});
  ctx.out << "Spot price history of " << size.name << " in " << region
          << " (Azure Resource Graph, gpuplan catalog import spot)\n"
          << t.render() << "Sources:\n";
  std::map<int64_t, std::string> sources;
  for (const auto& e : points) sources.emplace(e.snapshot, e.source);
  for (const auto& [id, src] : sources) ctx.out << "  " << id << ": spot: " << src << "\n";
}

struct HistoryFlags {
  std::string size;
  std::string region;
  std::string os;
  std::string pricing;
  bool json = false;
};

// `catalog history --json`: the retail price rows and, unless --pricing
// names another pricing, the spot price points.
void print_history_json(Context& ctx, const catalog::VmSize& size, const std::string& region,
                        const std::vector<catalog::PriceHistoryEntry>& rows,
                        const std::vector<catalog::SpotPriceHistoryEntry>& spot, bool with_spot) {
  nlohmann::ordered_json j;
  j["size"] = size.name;
  j["region"] = region;
  nlohmann::ordered_json arr = nlohmann::ordered_json::array();
  for (const auto& e : rows) {
    nlohmann::ordered_json r;
    r["snapshot"] = e.snapshot;
    r["imported_at"] = e.imported_at;
    r["source"] = "retail-prices: " + e.source;
    r["os"] = std::string(catalog::to_string(e.os));
    r["pricing"] = std::string(catalog::to_string(e.pricing));
    r["usd_per_hour"] = e.usd_per_hour;
    r["as_of"] = e.as_of;
    r["in_use"] = e.wins;
    arr.push_back(std::move(r));
  }
  j["prices"] = std::move(arr);
  if (with_spot) {
    nlohmann::ordered_json pts = nlohmann::ordered_json::array();
    for (const auto& e : spot)
      pts.push_back({{"snapshot", e.snapshot},
                     {"source", "spot: " + e.source},
                     {"os", std::string(catalog::to_string(e.os))},
                     {"effective_date", e.effective_date},
                     {"usd_per_hour", e.usd_per_hour}});
    j["spot_price_history"] = std::move(pts);
  }
  ctx.out << j.dump(2) << "\n";
}

// `catalog history` as text: the spot price points, then the retail price
// imports with the one in use marked and their sources.
void print_history_text(Context& ctx, const catalog::VmSize& size, const std::string& region,
                        const std::vector<catalog::PriceHistoryEntry>& rows,
                        const std::vector<catalog::SpotPriceHistoryEntry>& spot) {
  if (!spot.empty()) print_spot_history(ctx, size, region, spot);
  if (rows.empty() && !spot.empty()) return;
  if (rows.empty()) {
    ctx.out << "No imported prices for " << size.name << " in " << region
            << " (the embedded default is in use; import with "
               "`gpuplan catalog import retail-prices`).\n";
    return;
  }
  TextTable t;
  t.add_column("SNAPSHOT", TextTable::Align::kRight);
  t.add_column("IMPORTED");
  t.add_column("OS");
  t.add_column("PRICING");
  t.add_column("$/HOUR", TextTable::Align::kRight);
  t.add_column("AS-OF");
  t.add_column("IN USE");
  std::vector<std::pair<int64_t, std::string>> sources;
  for (const auto& e : rows) {
    t.add_row({std::to_string(e.snapshot), e.imported_at, std::string(catalog::to_string(e.os)),
               std::string(catalog::to_string(e.pricing)), strings::fixed(e.usd_per_hour, 4),
               e.as_of, e.wins ? "yes" : ""});
    if (sources.empty() || sources.back().first != e.snapshot)
      sources.emplace_back(e.snapshot, e.source);
  }
  ctx.out << "Price history of " << size.name << " in " << region << " (oldest import first)\n"
          << t.render()
          << "IN USE: the newest import per os and pricing; it replaces the "
             "embedded default.\nSources:\n";
  for (const auto& [id, src] : sources) ctx.out << "  " << id << ": retail-prices: " << src << "\n";
}

// `catalog history`: the flags, the size as the catalog spells it, the
// store's history filtered by --os and --pricing, printed.
int run_history(Context& ctx, const HistoryFlags& f) {
  // 1. Flags.
  std::optional<catalog::Os> os;
  std::optional<catalog::Pricing> pricing;
  if (!f.os.empty()) {
    auto p = catalog::parse_os(f.os, Where{"", 0, 0, "--os"});
    if (!p) return report(ctx, p.error());
    os = *p;
  }
  if (!f.pricing.empty()) {
    auto p = catalog::parse_pricing(f.pricing);
    if (!p)
      return report(ctx, Error{p.error().code, p.error().message, Where{"", 0, 0, "--pricing"}});
    pricing = *p;
  }
  // 2. The size as the catalog spells it ("NC24ads_A100_v4" also matches).
  auto cat = catalog::Catalog::load_embedded();
  if (!cat) return report(ctx, cat.error());
  auto found = catalog::lookup_size(**cat, f.size, Where{"", 0, 0, "SIZE"});
  if (!found) return report(ctx, found.error());
  const catalog::VmSize* size = *found;
  // 3. The store's history, filtered.
  auto all = catalog::price_history(store_path(ctx), size->name, f.region);
  if (!all) return report(ctx, all.error());
  std::vector<catalog::PriceHistoryEntry> rows;
  for (auto& e : *all)
    if ((!os || e.os == *os) && (!pricing || e.pricing == *pricing)) rows.push_back(e);
  // Resource Graph spot price points (gpuplan catalog import spot).
  const bool with_spot = !pricing || *pricing == catalog::Pricing::kSpot;
  std::vector<catalog::SpotPriceHistoryEntry> spot;
  if (with_spot) {
    auto points = catalog::spot_price_history(store_path(ctx), size->name, f.region);
    if (!points) return report(ctx, points.error());
    for (auto& e : *points)
      if (!os || e.os == *os) spot.push_back(e);
  }
  // 4. Format.
  if (f.json) {
    print_history_json(ctx, *size, f.region, rows, spot, with_spot);
  } else {
    print_history_text(ctx, *size, f.region, rows, spot);
  }
  return 0;
}

void add_history(CLI::App& catalog_cmd, Context& ctx) {
  auto f = std::make_shared<HistoryFlags>();
  CLI::App* cmd = catalog_cmd.add_subcommand(
      "history",
      "Every imported price of a size in a region, oldest import first, and which one\n"
      "is in use now (the newest import per os and pricing).\n"
      "Example: gpuplan catalog history Standard_NC24ads_A100_v4 --region eastus --pricing payg");
  cmd->add_option("SIZE", f->size, "VM size, e.g. Standard_NC24ads_A100_v4 or NC24ads_A100_v4")
      ->required();
  cmd->add_option("--region", f->region, "Region, e.g. eastus")->required();
  cmd->add_option("--os", f->os, "Only linux or windows")->check(one_of("OS", os_names()));
  cmd->add_option("--pricing", f->pricing,
                  "Only payg, spot, reserved-1y, reserved-3y, savings-1y or savings-3y")
      ->check(one_of("pricing", pricing_names()));
  cmd->add_flag("--json", f->json, "Print JSON");
  cmd->callback([f, &ctx] { ctx.action = [f, &ctx] { return run_history(ctx, *f); }; });
}

}  // namespace

void add_catalog_import_commands(CLI::App& catalog_cmd, Context& ctx) {
  CLI::App* import = catalog_cmd.add_subcommand(
      "import",
      "Import Azure's own outputs into the store (--db, default "
      "$XDG_DATA_HOME/gpuplan/catalog.db).\n"
      "Each import is one transaction recorded as a snapshot; the newest price wins.\n"
      "Example: gpuplan catalog import retail-prices --live --region eastus");
  import->require_subcommand(1);
  add_retail_prices(*import, ctx);
  add_skus(*import, ctx);
  add_usage(*import, ctx);
  add_spot(*import, ctx);
  add_history(catalog_cmd, ctx);
}

}  // namespace gpuplan::cli
