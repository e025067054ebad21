// The planner's internals, shared by its passes. Not API: cli, server and
// deploy use plan/plan.h only.
//
// plan.cc holds the essay on the algorithm and the entry points; the passes
// live in one file each:
//   plan_settings.cc     options + workload + rates -> settings and assumptions
//   plan_enumerate.cc    the index (sizes, regions, prices, quota) and the
//                        size x count loop that calls the estimator
//   plan_feasibility.cc  the filter chain per (region, pricing) and the drops
//   plan_rank.cc         top-N, the Pareto frontier, fallbacks, materialised
//                        options, drop summary and warnings
//   plan_quota.cc        the quota requests that would unlock a better option
//   plan_price_check.cc  prices that look wrong, and confidential sizes
//   plan_growth.cc       growth over a horizon: weekly fleet, cost, deadline
//   plan_data_pipeline.cc  the input bandwidth the GPUs need vs the storage's
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "cost/cost.h"
#include "estimate/estimate.h"
#include "plan/plan.h"
#include "workload/workload.h"

namespace gpuplan::plan::internal {

inline constexpr int kNumPricing = 6;
// Spot hours depend on the eviction rate of the size in the region: class 0
// is the default rate (no Azure band imported, or --eviction-rate given),
// 1..5 Azure's five bands. Hours classes: 0 for non-spot, 1 + spot class.
inline constexpr int kSpotClasses = 6;
inline constexpr int kHoursClasses = 1 + kSpotClasses;
inline int pricing_index(catalog::Pricing p) { return static_cast<int>(p); }

// Why a candidate was dropped; the order is the filter order of the pass.
enum Reason : int {
  kAmd,
  kSeries,
  kConfidentialNotAsked,
  kNotConfidential,
  kNotFit,
  kMissesSlo,
  kOverProvisioned,
  kMaxGpus,
  kRegionNotAllowed,
  kRestricted,
  kSpotNotAllowed,
  kNoPrice,
  kSpotNeverFinishes,
  kDeadline,
  kBudget,
  kQuota,
  kSpotQuota,
  kNumReasons
};
extern const char* const kReasonText[kNumReasons];

// A feasible (or quota-blocked) candidate in the hot loop: indexes and numbers.
struct Cand {
  double score = 0;
  double cost = 0;
  double hours = 0;
  int s = -1;  // size index
  int count = 0;
  int r = -1;      // region index
  int p = 0;       // pricing index
  int hc = 0;      // hours class: 0 not spot, 1 + spot eviction class (see kSpotClasses)
  int spares = 0;  // serving on spot: VMs of `count` that are spares (serving_spares)
  bool in_data_region = false;
  // The price looks wrong (plan_price_check.cc): ranked after every
  // candidate whose price looks right.
  bool suspect = false;
  // The tie-break order packed: not-in-data-region, size rank (by name),
  // count, region index (sorted by name), pricing.
  uint64_t tie = 0;
  [[nodiscard]] bool valid() const { return s >= 0; }
};

inline uint64_t tie_key(bool in_data_region, int size_rank, int count, int region, int pricing) {
  return (static_cast<uint64_t>(!in_data_region) << 48) | (static_cast<uint64_t>(size_rank) << 32) |
         (static_cast<uint64_t>(count) << 20) | (static_cast<uint64_t>(region) << 4) |
         static_cast<uint64_t>(pricing);
}

// The ranking of docs/plan.md as a strict weak order.
struct Order {
  Objective objective;
  // false: a price that looks wrong does not demote (what the order would
  // be without the check; used to say what the check changed).
  bool demote_suspect = true;
  // a < b: a ranks before b.
  bool operator()(const Cand& a, const Cand& b) const {
    if (demote_suspect && a.suspect != b.suspect) return !a.suspect;
    switch (objective) {
      case Objective::kCost:
        if (a.cost != b.cost) return a.cost < b.cost;
        if (a.hours != b.hours) return a.hours < b.hours;
        break;
      case Objective::kTime:
        if (a.hours != b.hours) return a.hours < b.hours;
        if (a.cost != b.cost) return a.cost < b.cost;
        break;
      case Objective::kBalanced:
        if (a.score != b.score) return a.score < b.score;
        if (a.cost != b.cost) return a.cost < b.cost;
        if (a.hours != b.hours) return a.hours < b.hours;
        break;
    }
    return a.tie < b.tie;
  }
};

// Price of one (size, region, pricing): the offers and the numbers.
struct PriceCell {
  cost::OfferSet offers;
  bool has = false;
  double compute = 0;
  double licence = 0;
  bool estimated = false;
  // plan_price_check.cc: kDeepSpotDiscount | kBelowSiblings, and the ratios
  // behind them (spot / payg compute; per-GPU price / same-GPU median).
  uint8_t flags = 0;
  double spot_ratio = 0;
  double sibling_ratio = 0;
  double sibling_median_per_gpu = 0;
};
inline constexpr uint8_t kDeepSpotDiscount = 1;
inline constexpr uint8_t kBelowSiblings = 2;

// Confidential-computing sizes: catalog::is_confidential (the NCC series).

struct DropStats {
  long long count = 0;
  // For budget and deadline drops the example is the closest miss (the
  // cheapest over budget, the fastest past the deadline), which says how far
  // the constraint is from reach.
  double best = 0;
  std::vector<char> regions;  // seen flags
  std::vector<char> sizes;
  std::string example;
};

// Text helpers shared by the passes (plan.cc).
std::string hours_text(double h);
std::string percent(double x);
std::string layout_text(const estimate::Estimate& e);

// Everything the passes share.
class Planner {
 public:
  // `quick` serves the enumeration (fit and hours), `full` the printed
  // options (with the estimator's assumptions); they must agree on numbers.
  Planner(const workload::Workload& w, const catalog::Catalog& c, const cost::Rates& rates,
          const PlanOptions& o, const EstimateFn& quick, const EstimateFn& full)
      : w_(w), catalog_(c), rates_(rates), opt_(o), quick_(quick), estimator_(full) {}

  Result<Plan> run();

 private:
  // plan_settings.cc: options + workload + rates -> settings, assumptions.
  Status settle();
  Status check_options() const;
  // The listed options against kMaxPlanFigure (plan.cc).
  [[nodiscard]] Status within_bounds(const Plan& plan) const;
  Status settle_os_spot_limits();
  Status settle_usage();
  void settle_usage_assumptions();
  Status settle_data_moved();
  Status settle_blob();
  void add_assumption(std::string name, std::string value, std::string source);
  std::string rate_source(std::string_view name, std::string_view key = "") const;
  std::string workload_source() const;

  // plan_enumerate.cc: the index and the size x count loop.
  Status index();
  void index_sizes_and_regions();
  void index_prices();
  void enumerate();
  void size_counts(int si);  // one size, every count
  bool series_allowed(const catalog::VmSize& size) const;
  // Drops every count of size `si` from `count` on whose (size, count) is
  // already decided (returns true), or leaves it to the count loop.
  bool drop_whole_size(int si);

  // plan_price_check.cc: prices that look wrong, confidential caveats.
  void flag_prices();
  void flag_spot_discounts();
  void flag_below_siblings();
  std::vector<std::string> price_warnings(const Cand& c) const;
  std::vector<std::string> confidential_caveats() const;

  // plan_feasibility.cc: the filters per (region, pricing) of one (size, count).
  void candidates(int si, int count, const estimate::Estimate& e);
  // The filters of one (size, count, region, pricing) after the region ones:
  // `h` and `f` are the hours and cost factors of its hours class `hc` (0:
  // not spot; 1 + spot eviction class).
  // `spares`: of `count`, the spare VMs a spot serving fleet carries.
  void candidate(int si, int count, int r, catalog::Pricing pricing, int hc,
                 const cost::HoursModel& h, const cost::CostFactors& f, int spares = 0);
  std::string candidate_name(int si, int count, int r, int p) const;
  // `example` is only called for a reason's first drop (it builds strings).
  template <typename F>
  void drop(Reason why, long long n, int si, int ri, F&& example);
  template <typename F>
  void drop_bulk(Reason why, long long per_region, int si, int counts, F&& example);

  // plan_rank.cc: ranking, frontier, fallbacks, the printed options.
  void consider(const Cand& c);
  // detailed: cost lines and the estimator's full output; else numbers only.
  Option materialise(const Cand& c, bool detailed = true);
  const estimate::Estimate& estimate_for(const Cand& c, bool detailed, estimate::Estimate& quick);
  // The eviction model of spot class `cls` (numbers only; no basis text).
  void set_spot_rates(int cls);
  // The eviction model of a spot option of size `si` in region `r`, with the
  // basis the cost line prints and the band it comes from (nullptr: none).
  const catalog::SpotEviction* set_spot_model(int si, int r);
  void finish(Plan& plan);
  void finish_options(Plan& plan);
  void finish_frontier(Plan& plan);
  void finish_fallbacks(Plan& plan);
  void finish_drops(Plan& plan);
  void finish_warnings(Plan& plan);
  void price_check_warnings(const Option& best);

  // plan_data_pipeline.cc: can the storage feed the winner's GPUs?
  void check_data_pipeline(const Plan& plan);

  // plan_growth.cc: growth over the horizon.
  void finish_growth(Plan& plan);
  void growth_serving(Plan& plan, Growth& gr);
  void growth_reservation(const Option& best, Growth& gr);
  void growth_repeat(Plan& plan, Growth& gr);
  std::optional<double> week_budget(int week, double per_week) const;

  // plan_quota.cc: the quota requests.
  void finish_quota_requests(Plan& plan);
  std::vector<QuotaLimit> binding_limits(const Cand& b) const;
  QuotaRequest quota_request(const Cand& b, std::vector<QuotaLimit> limits);

  const workload::Workload& w_;
  const catalog::Catalog& catalog_;
  const cost::Rates& rates_;
  const PlanOptions& opt_;
  const EstimateFn& quick_;
  const EstimateFn& estimator_;

  // Settings.
  catalog::Os os_ = catalog::Os::kLinux;
  bool hybrid_ = false;
  bool spot_allowed_ = true;
  std::vector<catalog::Pricing> pricings_;
  std::optional<double> deadline_;
  std::optional<double> budget_;
  std::string data_region_;
  int max_count_ = 64;
  int max_gpus_ = 0;
  cost::Usage usage_;
  cost::EvictionModel base_eviction_;  // the default (or --eviction-rate) model
  bool rates_overridden_ = false;      // --eviction-rate or --eviction-rate-high given
  bool batch_items_ = false;           // batch: an eviction loses one item, not a checkpoint
  // usage_'s work hours from an estimate, and for batch items the interval
  // an eviction loses half of: one item's time on the estimate's worker.
  void set_work(const estimate::Estimate& e);
  double licence_per_vcpu_ = 0;
  std::vector<Assumption> assumptions_;
  std::vector<std::string> warnings_;

  // Index.
  std::vector<const catalog::VmSize*> sizes_;
  std::vector<const catalog::Gpu*> gpus_;
  std::vector<int> size_rank_;                   // by name
  std::vector<std::string> regions_;             // sorted
  std::vector<char> allowed_;                    // per region
  std::vector<std::vector<int>> size_regions_;   // per size: region indexes with an offer
  std::vector<PriceCell> prices_;                // [(s * R + r) * 6 + p]
  std::vector<char> restricted_;                 // [s * R + r]
  std::vector<std::optional<double>> headroom_;  // [(s * R + r) * 2 + spot]
  std::vector<signed char> spot_class_;          // [s * R + r]: 0 default, 1 + band index
  int bands_used_ = 0;                           // (size, region) pairs with an Azure band
  std::vector<cost::RegionCosts> region_costs_;
  int data_region_index_ = -1;
  // Price checks (plan_price_check.cc): the lower fences derived from the
  // catalog's own distribution.
  double spot_fence_catalog_ = 0;                         // spot / payg ratio
  std::vector<std::optional<double>> spot_fence_series_;  // per size: its series'
  double sibling_fence_ = 0;                              // lowest payg sibling ratio
  bool confidential_ = false;                             // constraints.confidential
  int horizon_weeks_ = 4;                                 // growth horizon

  // Results of the pass.
  Order order_{Objective::kCost};
  std::vector<Cand> top_;
  std::vector<Cand> group_best_;    // [(s * (max_count+1) + count) * kHoursClasses + hc]
  std::vector<Cand> pair_best_;     // [s * R + r]
  std::vector<Cand> blocked_best_;  // [s * R + r]
  Cand best_suspect_;               // the best candidate whose price looks wrong
  std::vector<DropStats> drops_;
  // Full estimates of printed (size, count)s: options share them.
  std::vector<std::pair<std::pair<int, int>, estimate::Estimate>> full_estimates_;
  long long considered_ = 0;
  long long feasible_ = 0;
};

template <typename F>
void Planner::drop(Reason why, long long n, int si, int ri, F&& example) {
  if (n <= 0) return;
  DropStats& d = drops_[why];
  if (d.count == 0) d.example = example();
  d.count += n;
  considered_ += n;
  if (ri >= 0) d.regions[ri] = 1;
  if (si >= 0) d.sizes[si] = 1;
}

template <typename F>
void Planner::drop_bulk(Reason why, long long per_region, int si, int counts, F&& example) {
  const std::vector<int>& regs = size_regions_[si];
  if (regs.empty() || counts <= 0) return;
  long long n = per_region * static_cast<long long>(regs.size()) * counts;
  DropStats& d = drops_[why];
  if (d.count == 0) d.example = example();
  d.count += n;
  considered_ += n;
  for (int r : regs) d.regions[r] = 1;
  d.sizes[si] = 1;
}

}  // namespace gpuplan::plan::internal
