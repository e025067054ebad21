#include "catalog/freshness.h"

#include <algorithm>
#include <map>

#include "catalog/import_retail_prices.h"

namespace gpuplan::catalog {

std::vector<PriceAge> price_ages(const std::vector<const Offer*>& offers, std::string_view today,
                                 const FreshnessPolicy& policy) {
  std::map<std::string, PriceAge> by_kind;
  for (const Offer* o : offers) {
    if (o == nullptr || !o->usd_per_hour || o->retrieved.empty()) continue;
    const std::string kind = o->pricing == Pricing::kSpot ? "spot" : "payg";
    auto [it, inserted] = by_kind.try_emplace(kind);
    PriceAge& a = it->second;
    if (inserted) {
      a.kind = kind;
      a.oldest_retrieved = a.newest_retrieved = o->retrieved;
    } else {
      a.oldest_retrieved = std::min(a.oldest_retrieved, o->retrieved);
      a.newest_retrieved = std::max(a.newest_retrieved, o->retrieved);
    }
  }
  std::vector<PriceAge> out;
  for (const char* kind : {"payg", "spot"}) {
    auto it = by_kind.find(kind);
    if (it == by_kind.end()) continue;
    PriceAge a = it->second;
    a.days = std::max(0, days_between(a.oldest_retrieved, today).value_or(0));
    a.threshold_days = a.kind == "spot" ? policy.spot_days : policy.payg_days;
    a.stale = a.days > a.threshold_days;
    out.push_back(std::move(a));
  }
  return out;
}

std::string refresh_command(std::string_view region) {
  std::string cmd = "gpuplan catalog import retail-prices --live";
  if (!region.empty()) cmd += " --region " + std::string(region);
  return cmd;
}

std::string offline_refresh_command(std::string_view region) {
  // Single quotes keep the URL's $filter and quotes literal in the shell; the
  // loop follows NextPageLink as --live does, numbering pages so the shell's
  // glob gives them back in order.
  return "url='" + default_retail_prices_endpoint(std::string(region)) +
         "'\n"
         "n=1; while [ -n \"$url\" ]; do f=$(printf 'prices-%04d.json' $n)\n"
         "  curl -sfS \"$url\" -o \"$f\" || break\n"
         "  url=$(jq -r '.NextPageLink // empty' \"$f\"); n=$((n+1)); done";
}

std::vector<std::string> freshness_lines(const std::vector<PriceAge>& ages,
                                         std::string_view region) {
  std::vector<std::string> lines;
  bool any_stale = false;
  for (const PriceAge& a : ages) {
    std::string dates = a.oldest_retrieved == a.newest_retrieved
                            ? a.oldest_retrieved
                            : a.oldest_retrieved + " to " + a.newest_retrieved;
    std::string line = std::string(a.kind == "spot" ? "spot prices" : "prices") + " are " +
                       std::to_string(a.days) + " day" + (a.days == 1 ? "" : "s") +
                       " old (retrieved " + dates;
    if (a.stale) {
      line = "warning: " + line + "; limit " + std::to_string(a.threshold_days) + " days)";
      any_stale = true;
    } else {
      line[0] = static_cast<char>(line[0] - 'a' + 'A');
      line += ")";
    }
    lines.push_back(line + ".");
  }
  if (any_stale) {
    // The offline loop's URL is wider than a terminal: --help prints it.
    lines.push_back("Refresh them: " + refresh_command(region));
    lines.push_back(
        "Offline? `gpuplan catalog import retail-prices --help` shows how to save the pages "
        "elsewhere.");
  }
  return lines;
}

}  // namespace gpuplan::catalog
