// How old the prices behind an answer are, when that is too old, and the
// exact command that refreshes them. Commands print these lines under their
// text output (catalog, plan, cost); --json carries `retrieved` per price.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"

namespace gpuplan::catalog {

// Ages past which a price is called stale, in days since it was retrieved
// (Offer::retrieved). Spot prices move with spare capacity: Azure keeps 90
// days of spot price history in Resource Graph (facts.md, "Spot") and the
// embedded snapshot differed from current spot prices by up to ~56 % after
// six months (issue 12), so a month is the useful life; pay-as-you-go,
// reservation and savings-plan prices change a few times a year, so a
// quarter. Both are overridable (flags of the commands that print them).
struct FreshnessPolicy {
  int spot_days = 30;
  int payg_days = 90;  // also reserved-* and savings-* (they follow list prices)
};

// The prices one answer used, by kind ("spot", or "payg" for every other
// pricing): the oldest retrieval date and its age in days.
struct PriceAge {
  std::string kind;              // "spot" | "payg"
  std::string oldest_retrieved;  // YYYY-MM-DD
  std::string newest_retrieved;
  int days = 0;  // today - oldest_retrieved
  int threshold_days = 0;
  bool stale = false;  // days > threshold_days
};

// The ages of `offers` (nulls and offers without a price or a retrieval date
// are skipped) as of `today`. Empty when nothing is priced.
[[nodiscard]] std::vector<PriceAge> price_ages(const std::vector<const Offer*>& offers,
                                               std::string_view today,
                                               const FreshnessPolicy& policy);

// The command that fetches current prices into the store, narrowed to
// `region` when it is not empty:
//   gpuplan catalog import retail-prices --live [--region R]
[[nodiscard]] std::string refresh_command(std::string_view region);
// For a machine without network access: a shell loop (curl + jq, both in
// Debian) that saves every page of the same query, in order, as
// prices-0001.json ... on a connected machine (lines joined by '\n'); the
// pages are then imported with `gpuplan catalog import retail-prices
// prices-*.json`.
[[nodiscard]] std::string offline_refresh_command(std::string_view region);

// Text lines for the end of a command's output, none wider than 100
// columns: one line stating each kind's age ("Prices are 12 days old
// (retrieved 2026-11-20)."; "warning: spot prices are 196 days old (retrieved
// 2026-05-20; limit 30 days)." when stale), then, if any is stale, the
// refresh command and where to find the offline one. `region` narrows the
// command.
[[nodiscard]] std::vector<std::string> freshness_lines(const std::vector<PriceAge>& ages,
                                                       std::string_view region);

}  // namespace gpuplan::catalog
