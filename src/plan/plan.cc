// The planner.
//
// Problem: among every GPU VM size × node count (1..64) × region × pricing
// model, find the options that do the work within the deadline, the budget,
// the allowed regions, the subscription's restrictions and quota, rank them
// by cost, time or a balance of the two, show the cost–time trade-off, give a
// plan B, and say why everything else was dropped — over the whole catalog
// (~55 sizes × 51 regions × 6 pricing models × 64 counts ≈ 1 M combinations,
// ~300 k of them real offers) in a few milliseconds.
//
// Approach: the work of an option depends on (size, count) only, and its
// price on (size, region, pricing) only, so the loops are nested that way:
//   1. Index once: sizes (retired ones skipped), regions (sorted), and a
//      dense table of the compute and licence price per (size, region,
//      pricing) read in one pass over the catalog's offers; quota headroom
//      and restrictions per (size, region); disks and transfer per region.
//   2. For each size and count, call the estimator once. A count that does
//      not fit drops all its regions × pricings at once; counts beyond
//      max_gpus are dropped in bulk without estimating; for serving, the
//      counts below the SLO's VM count and above it are bulk-dropped too
//      (fewer miss the SLO, more only add cost). Hours come from the cost
//      model's hours_model() — once for on-demand-like pricing, once for spot.
//   3. For each region and pricing: the filters in a fixed order (region
//      allowed → restricted → spot allowed → listed price → spot finishes →
//      deadline → budget → quota); the first that fails is the drop reason
//      counted. Cost is cost::cost_total(), the very arithmetic the printed
//      lines come from.
//   4. A feasible candidate updates, in O(1) or O(top):
//        - the top-N list by the objective (a small sorted array);
//        - the best per (size, count, spot?) group: within a group the hours
//          are identical, so only its cheapest member can be on the Pareto
//          frontier — the frontier is computed afterwards over ≤ 7 k groups
//          by sorting on hours and sweeping for strictly falling cost;
//        - the best per (size, region), for fallbacks;
//      and a quota-blocked candidate updates the best blocked per (size,
//      region), for quota requests.
//   5. Only the options that are printed are materialised: the estimator is
//      re-run for their (size, count) and the cost model builds their lines.
//
// Ranking (docs/plan.md): cost → (cost, hours); time → (hours, cost);
// balanced → (cost·√hours, cost, hours). Ties: an option in the workload's
// data_region first, then size name, count, region name and pricing order, so
// the output is deterministic. `balanced` weighs time half as much as money
// in log terms: a 2× speed-up is worth up to 41 % more money.
//
// Trade-offs: a candidate is attributed to the first failing filter only;
// spot options are judged on expected hours (their deadline risk is reported,
// not filtered); reserved/savings options with no utilization given pay the
// whole term, so they only win when the user says the commitment stays busy
// (--utilization).
#include "plan/plan.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>

#include "core/strings.h"

namespace gpuplan::plan {

namespace {

using catalog::Os;
using catalog::Pricing;
using strings::fixed;

constexpr int kNumPricing = 6;
int pricing_index(Pricing p) { return static_cast<int>(p); }

enum Reason : int {
  kAmd,
  kSeries,
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
const char* const kReasonText[kNumReasons] = {
    "AMD GPU",            "series not allowed",            "does not fit",       "misses SLO",        "more VMs than the SLO needs",
    "over max_gpus",      "region not allowed", "restricted for the subscription",
    "spot not allowed",   "no listed price",   "spot never finishes",
    "misses deadline",    "over budget",       "family quota",
    "spot quota"};

// A feasible (or quota-blocked) candidate in the hot loop: indexes and numbers.
struct Cand {
  double score = 0;
  double cost = 0;
  double hours = 0;
  int s = -1;  // size index
  int count = 0;
  int r = -1;  // region index
  int p = 0;   // pricing index
  bool in_data_region = false;
  // The tie-break order packed: not-in-data-region, size rank (by name),
  // count, region index (sorted by name), pricing.
  uint64_t tie = 0;
  [[nodiscard]] bool valid() const { return s >= 0; }
};

uint64_t tie_key(bool in_data_region, int size_rank, int count, int region, int pricing) {
  return (static_cast<uint64_t>(!in_data_region) << 48) |
         (static_cast<uint64_t>(size_rank) << 32) | (static_cast<uint64_t>(count) << 20) |
         (static_cast<uint64_t>(region) << 4) | static_cast<uint64_t>(pricing);
}

struct Order {
  Objective objective;
  // a < b: a ranks before b.
  bool operator()(const Cand& a, const Cand& b) const {
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
};

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

std::string hours_text(double h) {
  if (h >= 100) return fixed(h, 0);
  if (h >= 10) return fixed(h, 1);
  return fixed(h, 2);
}

std::string percent(double x) { return fixed(x * 100, x < 0.1 ? 1 : 0) + "%"; }

std::string layout_text(const estimate::Estimate& e) {
  if (e.throughput_unit.empty()) return "";
  std::string s = "tp=" + std::to_string(e.layout.tp) + " pp=" + std::to_string(e.layout.pp) +
                  " dp=" + std::to_string(e.layout.dp);
  if (e.serving) {
    s = std::to_string(e.serving->replicas) + " replicas of " +
        std::to_string(e.serving->gpus_per_replica) + " GPU" +
        (e.serving->gpus_per_replica == 1 ? "" : "s");
  }
  return s;
}

}  // namespace

std::string_view to_string(Objective o) {
  switch (o) {
    case Objective::kCost: return "cost";
    case Objective::kTime: return "time";
    case Objective::kBalanced: return "balanced";
  }
  return "?";
}

Result<Objective> parse_objective(std::string_view s) {
  std::string v = strings::to_lower(strings::trim(s));
  if (v == "cost") return Objective::kCost;
  if (v == "time") return Objective::kTime;
  if (v == "balanced") return Objective::kBalanced;
  return invalid_argument("unknown objective '" + std::string(s) +
                          "' (expected cost, time or balanced)");
}

double objective_score(Objective o, double cost_usd, double hours) {
  switch (o) {
    case Objective::kCost: return cost_usd;
    case Objective::kTime: return hours;
    case Objective::kBalanced: return cost_usd * std::sqrt(std::max(0.0, hours));
  }
  return cost_usd;
}

namespace {

// The enumeration needs only fit and hours; when the estimator offers a call
// that skips building its assumption texts (a fifth `explain` argument), use
// it: it is ~10x cheaper, and the printed options are re-estimated in full.
template <typename W>
estimate::Estimate quick_estimate(const W& w, const catalog::VmSize& size, const catalog::Gpu& gpu,
                                  int count) {
  if constexpr (requires { estimate::estimate(w, size, gpu, count, false); }) {
    return estimate::estimate(w, size, gpu, count, false);
  } else {
    return estimate::estimate(w, size, gpu, count);
  }
}

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
  Status settle();                 // options + workload + rates -> settings, assumptions
  Status index();                  // sizes, regions, prices, quota, region costs
  void enumerate();                // the hot loop
  void size_counts(int si);        // one size, every count
  void candidates(int si, int count, const estimate::Estimate& e);
  // `example` is only called for a reason's first drop (it builds strings).
  template <typename F>
  void drop(Reason why, long long n, int si, int ri, F&& example);
  bool series_allowed(const catalog::VmSize& size) const;
  template <typename F>
  void drop_bulk(Reason why, long long per_region, int si, int counts, F&& example);
  void consider(const Cand& c);
  // detailed: cost lines and the estimator's full output; else numbers only.
  Option materialise(const Cand& c, bool detailed = true);
  void finish(Plan& plan);

  const workload::Workload& w_;
  const catalog::Catalog& catalog_;
  const cost::Rates& rates_;
  const PlanOptions& opt_;
  const EstimateFn& quick_;
  const EstimateFn& estimator_;

  // Settings.
  Os os_ = Os::kLinux;
  bool hybrid_ = false;
  bool spot_allowed_ = true;
  std::vector<Pricing> pricings_;
  std::optional<double> deadline_;
  std::optional<double> budget_;
  std::string data_region_;
  int max_count_ = 64;
  int max_gpus_ = 0;
  cost::Usage usage_;
  double licence_per_vcpu_ = 0;
  std::vector<Assumption> assumptions_;
  std::vector<std::string> warnings_;

  // Index.
  std::vector<const catalog::VmSize*> sizes_;
  std::vector<const catalog::Gpu*> gpus_;
  std::vector<int> size_rank_;               // by name
  std::vector<std::string> regions_;         // sorted
  std::vector<char> allowed_;                // per region
  std::vector<std::vector<int>> size_regions_;  // per size: region indexes with an offer
  std::vector<PriceCell> prices_;            // [(s * R + r) * 6 + p]
  std::vector<char> restricted_;             // [s * R + r]
  std::vector<std::optional<double>> headroom_;  // [(s * R + r) * 2 + spot]
  std::vector<cost::RegionCosts> region_costs_;
  int data_region_index_ = -1;

  // Results of the pass.
  Order order_{Objective::kCost};
  std::vector<Cand> top_;
  std::vector<Cand> group_best_;             // [(s * (max_count+1) + count) * 2 + spot]
  std::vector<Cand> pair_best_;              // [s * R + r]
  std::vector<Cand> blocked_best_;           // [s * R + r]
  std::vector<DropStats> drops_;
  // Full estimates of printed (size, count)s: options share them.
  std::vector<std::pair<std::pair<int, int>, estimate::Estimate>> full_estimates_;
  long long considered_ = 0;
  long long feasible_ = 0;
};

Status Planner::settle() {
  if (opt_.top < 1) return invalid_argument("--top must be at least 1");
  if (opt_.max_count < 1) return invalid_argument("the most VMs per option must be at least 1");
  if (opt_.utilization && (*opt_.utilization <= 0 || *opt_.utilization > 1)) {
    return invalid_argument("--utilization must be in (0, 1]");
  }
  for (const auto& [name, v] :
       {std::pair{"--eviction-rate", opt_.eviction_rate}, {"--restart-hours", opt_.restart_hours},
        {"--checkpoint-hours", opt_.checkpoint_hours}, {"--setup-hours", opt_.setup_hours},
        {"--data-disk-gib", opt_.data_disk_gib}, {"--egress-gb", opt_.egress_gb},
        {"--dataset-gb", opt_.dataset_gb}, {"--billing-minimum-seconds", opt_.billing_minimum_seconds},
        {"--eviction-rate-high", opt_.eviction_rate_high}}) {
    if (v && (*v < 0 || !std::isfinite(*v))) {
      return invalid_argument(std::string(name) + " cannot be negative");
    }
  }
  const workload::Constraints& k = w_.constraints;
  auto add = [&](std::string name, std::string value, std::string source) {
    assumptions_.push_back({std::move(name), std::move(value), std::move(source)});
  };
  const std::string wfile = w_.file.empty() ? "workload" : w_.file;

  // OS and licence.
  GPUPLAN_TRY(os_, opt_.os ? Result<Os>(*opt_.os) : catalog::parse_os(k.os));
  hybrid_ = opt_.hybrid_benefit.value_or(k.hybrid_benefit);
  add("os", std::string(catalog::to_string(os_)), opt_.os ? "--os" : wfile);
  if (os_ == Os::kWindows) {
    add("hybrid_benefit", hybrid_ ? "yes: Windows VMs pay the Linux compute rate" : "no",
        opt_.hybrid_benefit ? "--hybrid-benefit" : wfile);
  }
  // Spot and pricing models.
  spot_allowed_ = opt_.allow_spot.value_or(k.spot != workload::Spot::kNever);
  add("spot", spot_allowed_ ? std::string(workload::to_string(k.spot)) : "never",
      opt_.allow_spot ? "--no-spot" : wfile);
  if (opt_.pricings.empty()) {
    pricings_.assign(std::begin(catalog::kAllPricing), std::end(catalog::kAllPricing));
  } else {
    pricings_ = opt_.pricings;
  }
  // Deadline, budget, limits.
  deadline_ = opt_.deadline_hours ? opt_.deadline_hours : k.deadline_hours;
  budget_ = opt_.budget_usd ? opt_.budget_usd : k.budget_usd;
  add("deadline", deadline_ ? hours_text(*deadline_) + " h" : "none",
      opt_.deadline_hours ? "--deadline-hours" : wfile);
  add("budget", budget_ ? cost::format_usd(*budget_) : "none",
      opt_.budget_usd ? "--budget" : wfile);
  max_count_ = opt_.max_count;
  if (k.max_nodes > 0) max_count_ = std::min(max_count_, k.max_nodes);
  max_gpus_ = k.max_gpus;
  add("node counts", "1.." + std::to_string(max_count_) + " VMs per option",
      k.max_nodes > 0 ? wfile + " (max_nodes)" : "gpuplan default (at most 64)");
  if (max_gpus_ > 0) add("max_gpus", std::to_string(max_gpus_), wfile);
  if (!k.series.empty()) {
    std::string list;
    for (const std::string& s : k.series) list += (list.empty() ? "" : ", ") + s;
    add("series", list, wfile);
  }
  data_region_ = strings::to_lower(k.data_region);

  // Cost usage.
  GPUPLAN_TRY(usage_, cost::default_usage(rates_));
  GPUPLAN_TRY(const cost::Rate* lic, rates_.require("windows_licence_usd_per_vcpu_hour"));
  licence_per_vcpu_ = lic->value;
  auto rate_src = [&](std::string_view name, std::string_view key = "") {
    const cost::Rate* r = rates_.find(name, key);
    return r ? "data/cost/rates.csv " + std::string(name) + " (" + r->source + ")" : std::string();
  };
  usage_.os = os_;
  usage_.hybrid_benefit = hybrid_;
  if (opt_.eviction_rate) usage_.eviction.rate_per_hour = *opt_.eviction_rate;
  if (opt_.eviction_rate_high) usage_.eviction.rate_high_per_hour = *opt_.eviction_rate_high;
  usage_.eviction.rate_high_per_hour =
      std::max(usage_.eviction.rate_high_per_hour, usage_.eviction.rate_per_hour);
  if (opt_.restart_hours) usage_.eviction.restart_hours = *opt_.restart_hours;
  if (opt_.checkpoint_hours) usage_.eviction.checkpoint_interval_hours = *opt_.checkpoint_hours;
  if (opt_.setup_hours) usage_.setup_hours = *opt_.setup_hours;
  if (opt_.data_disk_gib) usage_.data_disk_gib = *opt_.data_disk_gib;
  if (opt_.billing_minimum_seconds) usage_.billing_minimum_seconds = *opt_.billing_minimum_seconds;
  usage_.utilization = opt_.utilization;
  bool serving = w_.kind == workload::Kind::kInfer;
  bool independent = w_.kind == workload::Kind::kBatch;
  usage_.eviction.gang = !independent;
  usage_.eviction.stretches_hours = !serving;
  if (serving) usage_.eviction.checkpoint_interval_hours = 0;

  add("setup_hours", hours_text(usage_.setup_hours) + " h per VM launch (billed, no work)",
      opt_.setup_hours ? "--setup-hours" : rate_src("setup_hours"));
  if (spot_allowed_) {
    add("eviction_rate", fixed(usage_.eviction.rate_per_hour, 3) + " per VM-hour" +
                             (usage_.eviction.gang ? " (any VM's eviction stops a multi-VM job)"
                                                   : " (VMs evicted independently)"),
        opt_.eviction_rate ? "--eviction-rate" : rate_src("spot_eviction_rate_per_hour"));
    add("eviction_rate_high", fixed(usage_.eviction.rate_high_per_hour, 3) + " per VM-hour (cost_high)",
        opt_.eviction_rate_high ? "--eviction-rate-high" : rate_src("spot_eviction_rate_high_per_hour"));
    add("restart_hours", hours_text(usage_.eviction.restart_hours) + " h per eviction",
        opt_.restart_hours ? "--restart-hours" : rate_src("spot_restart_hours"));
    if (!serving) {
      add("checkpoint_interval", hours_text(usage_.eviction.checkpoint_interval_hours) +
                                     " h (half is lost per eviction on average)",
          opt_.checkpoint_hours ? "--checkpoint-hours" : rate_src("checkpoint_interval_hours"));
    }
  }
  add("utilization", opt_.utilization
                         ? percent(*opt_.utilization) + " of a reservation/savings plan term"
                         : "reservations and savings plans serve this work only (the whole term "
                           "is paid)",
      opt_.utilization ? "--utilization" : "gpuplan default");
  add("billing", "per second, minimum " + fixed(usage_.billing_minimum_seconds, 0) + " s per launch",
      opt_.billing_minimum_seconds ? "--billing-minimum-seconds"
                                   : rate_src("billing_minimum_seconds"));
  add("os_disk", "Premium SSD " + usage_.os_disk_tier + " per VM", rate_src("os_disk_tier", "P10"));
  add("data_disk", usage_.data_disk_gib > 0
                       ? "Premium SSD v2 " + fixed(usage_.data_disk_gib, 0) + " GiB per VM"
                       : "none",
      opt_.data_disk_gib ? "--data-disk-gib" : rate_src("data_disk_gib"));

  // Data moved.
  if (opt_.egress_gb) {
    usage_.egress_internet_gb = *opt_.egress_gb;
    add("egress_internet", fixed(*opt_.egress_gb, 0) + " GB", "--egress-gb");
  } else if (serving && w_.serving.request_rate > 0) {
    GPUPLAN_TRY(const cost::Rate* bpt, rates_.require("bytes_per_token"));
    double gb = w_.serving.request_rate * w_.serving.duration_hours * 3600.0 *
                w_.serving.output_tokens.mean * bpt->value / 1e9;
    usage_.egress_internet_gb = gb;
    add("egress_internet", fixed(gb, 1) + " GB of responses (" + fixed(w_.serving.request_rate, 1) +
                               " req/s x " + hours_text(w_.serving.duration_hours) + " h x " +
                               fixed(w_.serving.output_tokens.mean, 0) + " tokens x " +
                               fixed(bpt->value, 0) + " bytes)",
        rate_src("bytes_per_token"));
  }
  if (!data_region_.empty()) {
    usage_.data_region = data_region_;
    if (opt_.dataset_gb) {
      usage_.transfer_gb = *opt_.dataset_gb;
      add("dataset", fixed(*opt_.dataset_gb, 0) + " GB moved from " + data_region_, "--dataset-gb");
    } else if (w_.kind == workload::Kind::kTrain || w_.kind == workload::Kind::kFinetune) {
      GPUPLAN_TRY(const cost::Rate* bpt, rates_.require("bytes_per_token"));
      usage_.transfer_gb = w_.total_tokens() * bpt->value / 1e9;
      add("dataset", fixed(usage_.transfer_gb, 1) + " GB moved from " + data_region_ +
                         " to other regions (" + fixed(w_.total_tokens() / 1e9, 2) +
                         " B tokens x " + fixed(bpt->value, 0) + " bytes)",
          rate_src("bytes_per_token"));
    }
  }
  add("hours", "wall-clock = setup + the estimator's hours of work (+ spot eviction stretch)",
      "docs/cost.md");
  return {};
}

Status Planner::index() {
  // Sizes: every non-retired size whose GPU the catalog knows.
  for (const catalog::VmSize& s : catalog_.sizes()) {
    if (s.status == catalog::SizeStatus::kRetired || s.gpu_count <= 0) continue;
    sizes_.push_back(&s);
    gpus_.push_back(catalog_.find_gpu(s.gpu_model));
  }
  std::vector<int> by_name(sizes_.size());
  for (size_t i = 0; i < by_name.size(); ++i) by_name[i] = static_cast<int>(i);
  std::sort(by_name.begin(), by_name.end(),
            [&](int a, int b) { return sizes_[a]->name < sizes_[b]->name; });
  size_rank_.assign(sizes_.size(), 0);
  for (size_t i = 0; i < by_name.size(); ++i) size_rank_[by_name[i]] = static_cast<int>(i);
  order_ = Order{opt_.objective};

  // Regions, allowed set.
  regions_ = catalog_.regions();
  std::sort(regions_.begin(), regions_.end());
  const size_t R = regions_.size();
  std::unordered_map<std::string, int> region_index;
  for (size_t i = 0; i < R; ++i) region_index[strings::to_lower(regions_[i])] = static_cast<int>(i);
  std::vector<std::string> allowed_list = opt_.regions.empty() ? w_.constraints.regions : opt_.regions;
  allowed_.assign(R, allowed_list.empty() ? 1 : 0);
  for (const std::string& a : allowed_list) {
    auto it = region_index.find(strings::to_lower(a));
    if (it != region_index.end()) {
      allowed_[it->second] = 1;
    } else {
      warnings_.push_back("region '" + a + "' has no GPU offer in the catalog");
    }
  }
  // Access-restricted regions: only when asked for, or named (with a note).
  for (size_t r = 0; r < R; ++r) {
    if (catalog_.region_access(regions_[r]) != catalog::RegionAccess::kRestricted) continue;
    bool named = false;
    for (const std::string& a : allowed_list) {
      named = named || strings::to_lower(a) == strings::to_lower(regions_[r]);
    }
    if (named) {
      warnings_.push_back("region " + regions_[r] +
                          " is access-restricted: open only to customers with a business need "
                          "in that country (Azure's region access request process)");
    } else if (!opt_.include_restricted_regions) {
      allowed_[r] = 0;
    }
  }
  if (!allowed_list.empty()) {
    std::string list;
    for (const std::string& a : allowed_list) list += (list.empty() ? "" : ", ") + a;
    assumptions_.push_back({"regions", list, opt_.regions.empty() ? (w_.file.empty() ? "workload" : w_.file) : "--region"});
  }
  if (!data_region_.empty()) {
    auto it = region_index.find(data_region_);
    if (it != region_index.end()) data_region_index_ = it->second;
  }

  // Prices: one pass over the offers.
  std::unordered_map<std::string_view, int> size_index;
  for (size_t i = 0; i < sizes_.size(); ++i) size_index[sizes_[i]->name] = static_cast<int>(i);
  prices_.assign(sizes_.size() * R * kNumPricing, PriceCell{});
  std::vector<char> has_offer(sizes_.size() * R, 0);
  std::string_view last_size;
  int last_si = -1;
  for (const catalog::Offer& o : catalog_.offers()) {
    if (o.size != last_size) {
      last_size = o.size;
      auto it = size_index.find(o.size);
      last_si = it == size_index.end() ? -1 : it->second;
    }
    if (last_si < 0) continue;
    auto rit = region_index.find(o.region);
    if (rit == region_index.end()) continue;
    size_t pair = static_cast<size_t>(last_si) * R + rit->second;
    has_offer[pair] = 1;
    PriceCell& cell = prices_[pair * kNumPricing + pricing_index(o.pricing)];
    if (o.os == Os::kLinux) cell.offers.linux = &o;
    if (o.os == Os::kWindows) cell.offers.windows = &o;
  }
  size_regions_.assign(sizes_.size(), {});
  restricted_.assign(sizes_.size() * R, 0);
  headroom_.assign(sizes_.size() * R * 2, std::nullopt);
  bool quota_known_anywhere = !catalog_.quotas().empty();
  for (size_t s = 0; s < sizes_.size(); ++s) {
    for (size_t r = 0; r < R; ++r) {
      size_t pair = s * R + r;
      if (!has_offer[pair]) continue;
      size_regions_[s].push_back(static_cast<int>(r));
      const PriceCell& payg = prices_[pair * kNumPricing + pricing_index(Pricing::kPayg)];
      for (int p = 0; p < kNumPricing; ++p) {
        PriceCell& cell = prices_[pair * kNumPricing + p];
        cell.offers.linux_payg = payg.offers.linux;
        cell.offers.windows_payg = payg.offers.windows;
        auto q = cost::quote_offers(cell.offers, *sizes_[s], catalog::kAllPricing[p], os_, hybrid_,
                                    licence_per_vcpu_, false);
        if (q) {
          cell.has = true;
          cell.compute = q->compute_usd_per_hour;
          cell.licence = q->licence_usd_per_hour;
          cell.estimated = q->estimated;
        }
      }
      restricted_[pair] = catalog_.restricted(sizes_[s]->name, regions_[r]) ? 1 : 0;
      if (quota_known_anywhere) {
        headroom_[pair * 2] = catalog_.quota_headroom_vcpus(*sizes_[s], regions_[r], false);
        headroom_[pair * 2 + 1] = catalog_.quota_headroom_vcpus(*sizes_[s], regions_[r], true);
      }
    }
  }
  if (!quota_known_anywhere) {
    warnings_.push_back(
        "quota not imported: options are not checked against vCPU quota (new subscriptions often "
        "have 0 GPU quota); run `az vm list-usage -l REGION -o json > u.json && gpuplan catalog "
        "import usage u.json --region REGION`");
  }

  // Disks and transfer per region.
  region_costs_.reserve(R);
  for (size_t r = 0; r < R; ++r) {
    GPUPLAN_TRY(cost::RegionCosts rc, cost::region_costs(rates_, usage_, regions_[r]));
    region_costs_.push_back(std::move(rc));
  }

  // Pass state.
  drops_.assign(kNumReasons, DropStats{});
  for (DropStats& d : drops_) {
    d.regions.assign(R, 0);
    d.sizes.assign(sizes_.size(), 0);
  }
  group_best_.assign(sizes_.size() * (max_count_ + 1) * 2, Cand{});
  pair_best_.assign(sizes_.size() * R, Cand{});
  blocked_best_.assign(sizes_.size() * R, Cand{});
  return {};
}

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

void Planner::enumerate() {
  for (size_t s = 0; s < sizes_.size(); ++s) size_counts(static_cast<int>(s));
}

// constraints.series: a family letter ("NV") or a series name, ignoring case.
bool Planner::series_allowed(const catalog::VmSize& size) const {
  if (w_.constraints.series.empty()) return true;
  for (const std::string& s : w_.constraints.series) {
    std::string f = strings::fold(s);
    if (f == strings::fold(size.family_letter) || f == strings::fold(size.series)) return true;
  }
  return false;
}

void Planner::size_counts(int si) {
  const catalog::VmSize& size = *sizes_[si];
  const long long per_region = static_cast<long long>(pricings_.size());
  if (size_regions_[si].empty()) return;
  if (!gpus_[si]) {
    drop_bulk(kNotFit, per_region, si, max_count_, [&] {
      return size.name + ": GPU model '" + size.gpu_model + "' missing from the catalog";
    });
    return;
  }
  if (!series_allowed(size)) {
    drop_bulk(kSeries, per_region, si, max_count_, [&] {
      return size.name + ": series " + size.series + " (" + size.family_letter +
             ") is not in the workload's constraints.series";
    });
    return;
  }
  if (size.driver == catalog::DriverKind::kAmd && !opt_.allow_amd) {
    drop_bulk(kAmd, per_region, si, max_count_, [&] {
      return size.name + ": " + size.gpu_model +
             " needs ROCm/AMD drivers, which gpuplan stack/deploy do not set up (--allow-amd "
             "includes it)";
    });
    return;
  }
  const bool serving = w_.kind == workload::Kind::kInfer;
  for (int count = 1; count <= max_count_; ++count) {
    double gpus = size.gpu_count * count;
    if (max_gpus_ > 0 && gpus > max_gpus_ + 1e-9) {
      int rest = max_count_ - count + 1;
      drop_bulk(kMaxGpus, per_region, si, rest, [&] {
        return size.name + " x" + std::to_string(count) + ": " + fixed(gpus, 0) +
               " GPUs > max_gpus " + std::to_string(max_gpus_);
      });
      return;
    }
    estimate::Estimate e = quick_(size, *gpus_[si], count);
    if (!e.fits) {
      bool slo = serving && e.serving && e.memory_needed_gib <= e.memory_available_gib;
      int skip_to = count;
      if (slo && e.serving->vms_needed > count) {
        skip_to = std::min(max_count_, e.serving->vms_needed - 1);
      }
      drop_bulk(slo ? kMissesSlo : kNotFit, per_region, si, skip_to - count + 1, [&] {
        // The quick estimate's reason is terse; the example shown is explained in full.
        return size.name + " x" + std::to_string(count) + ": " +
               estimator_(size, *gpus_[si], count).reason;
      });
      count = skip_to;
      continue;
    }
    candidates(si, count, e);
    if (serving) {
      int rest = max_count_ - count;
      drop_bulk(kOverProvisioned, per_region, si, rest, [&] {
        return size.name + " x" + std::to_string(count + 1) + ": " + std::to_string(count) +
               " VM" + (count == 1 ? "" : "s") + " already meet the SLO";
      });
      return;
    }
  }
}

void Planner::candidates(int si, int count, const estimate::Estimate& e) {
  const catalog::VmSize& size = *sizes_[si];
  const size_t R = regions_.size();
  usage_.count = count;
  usage_.work_hours = e.hours;
  const cost::HoursModel hm[2] = {cost::hours_model(usage_, false), cost::hours_model(usage_, true)};
  const double need = static_cast<double>(count) * size.vcpus;
  const long long per_region = static_cast<long long>(pricings_.size());
  auto name = [&](int r, int p) {
    return size.name + " x" + std::to_string(count) + " in " + regions_[r] + " (" +
           std::string(catalog::to_string(catalog::kAllPricing[p])) + ")";
  };
  // The cost of every region's price for this (size, count): one linear form
  // per pricing model (cost::cost_factors, the arithmetic of cost_total).
  cost::CostFactors factors[kNumPricing];
  for (Pricing pricing : pricings_) {
    const cost::HoursModel& h = hm[pricing == Pricing::kSpot ? 1 : 0];
    factors[pricing_index(pricing)] = cost::cost_factors(pricing, usage_, h.wall_hours, h.billed_hours);
  }
  for (int r : size_regions_[si]) {
    const size_t pair = static_cast<size_t>(si) * R + r;
    if (!allowed_[r]) {
      drop(kRegionNotAllowed, per_region, si, r, [&] {
        return name(r, 0) + ": not in the allowed regions";
      });
      continue;
    }
    if (restricted_[pair]) {
      drop(kRestricted, per_region, si, r, [&] {
        return name(r, 0) + ": list-skus says NotAvailableForSubscription";
      });
      continue;
    }
    for (Pricing pricing : pricings_) {
      const int p = pricing_index(pricing);
      const bool spot = pricing == Pricing::kSpot;
      if (spot && !spot_allowed_) {
        drop(kSpotNotAllowed, 1, si, r, [&] { return name(r, p) + ": the workload says spot: never"; });
        continue;
      }
      const PriceCell& cell = prices_[pair * kNumPricing + p];
      if (!cell.has) {
        drop(kNoPrice, 1, si, r, [&] {
          return name(r, p) + ": no listed " + std::string(catalog::to_string(os_)) + " price";
        });
        continue;
      }
      const cost::HoursModel& h = hm[spot ? 1 : 0];
      if (spot && !h.finishes) {
        drop(kSpotNeverFinishes, 1, si, r, [&] {
          return name(r, p) + ": " + fixed(h.job_eviction_rate, 2) +
                 " evictions/h x " +
                 hours_text(usage_.eviction.restart_hours +
                            usage_.eviction.checkpoint_interval_hours / 2) +
                 " h lost each >= 100%";
        });
        continue;
      }
      if (deadline_ && h.wall_hours > *deadline_) {
        DropStats& d = drops_[kDeadline];
        bool closer = d.count == 0 || h.wall_hours < d.best;
        drop(kDeadline, 1, si, r, [] { return std::string(); });
        if (closer) {
          d.best = h.wall_hours;
          d.example = "fastest: " + name(r, p) + ": " + hours_text(h.wall_hours) + " h > " +
                      hours_text(*deadline_) + " h";
        }
        continue;
      }
      const double total =
          cost::apply_factors(factors[p], cell.compute, cell.licence, region_costs_[r]);
      if (budget_ && total > *budget_) {
        DropStats& d = drops_[kBudget];
        bool closer = d.count == 0 || total < d.best;
        drop(kBudget, 1, si, r, [] { return std::string(); });
        if (closer) {
          d.best = total;
          d.example = "cheapest: " + name(r, p) + ": " + cost::format_usd(total) + " > " +
                      cost::format_usd(*budget_);
        }
        continue;
      }
      Cand c;
      c.cost = total;
      c.hours = h.wall_hours;
      c.score = objective_score(opt_.objective, total, h.wall_hours);
      c.s = si;
      c.count = count;
      c.r = r;
      c.p = p;
      c.in_data_region = r == data_region_index_;
      c.tie = tie_key(c.in_data_region, size_rank_[si], count, r, p);
      const std::optional<double>& room = headroom_[pair * 2 + (spot ? 1 : 0)];
      if (room && *room < need) {
        drop(spot ? kSpotQuota : kQuota, 1, si, r, [&] {
          return name(r, p) + ": needs " + fixed(need, 0) + " vCPUs of " +
                 (spot ? std::string("lowPriorityCores") : size.quota_family) + ", " +
                 fixed(std::max(0.0, *room), 0) + " free";
        });
        Cand& b = blocked_best_[pair];
        if (!b.valid() || order_(c, b)) b = c;
        continue;
      }
      ++considered_;
      consider(c);
    }
  }
}

void Planner::consider(const Cand& c) {
  ++feasible_;
  // Top N (sorted, best first).
  const size_t n = static_cast<size_t>(opt_.top);
  if (top_.size() < n || order_(c, top_.back())) {
    auto it = std::upper_bound(top_.begin(), top_.end(), c, order_);
    top_.insert(it, c);
    if (top_.size() > n) top_.pop_back();
  }
  // Frontier group: same size, count and hours class; keep the cheapest.
  const bool spot = catalog::kAllPricing[c.p] == Pricing::kSpot;
  Cand& g = group_best_[(static_cast<size_t>(c.s) * (max_count_ + 1) + c.count) * 2 + (spot ? 1 : 0)];
  Order by_cost{Objective::kCost};
  if (!g.valid() || by_cost(c, g)) g = c;
  // Fallbacks: best per (size, region).
  Cand& b = pair_best_[static_cast<size_t>(c.s) * regions_.size() + c.r];
  if (!b.valid() || order_(c, b)) b = c;
}

Option Planner::materialise(const Cand& c, bool detailed) {
  const catalog::VmSize& size = *sizes_[c.s];
  const Pricing pricing = catalog::kAllPricing[c.p];
  const bool spot = pricing == Pricing::kSpot;
  estimate::Estimate quick;
  const estimate::Estimate* found = nullptr;
  for (const auto& [key, est] : full_estimates_) {
    if (key == std::pair(c.s, c.count)) found = &est;
  }
  if (!found && detailed) {
    full_estimates_.emplace_back(std::pair(c.s, c.count), estimator_(size, *gpus_[c.s], c.count));
    found = &full_estimates_.back().second;
  }
  if (!found) {
    quick = quick_(size, *gpus_[c.s], c.count);
    found = &quick;
  }
  const estimate::Estimate& e = *found;
  usage_.count = c.count;
  usage_.work_hours = e.hours;
  cost::HoursModel h = cost::hours_model(usage_, spot);
  const size_t pair = static_cast<size_t>(c.s) * regions_.size() + c.r;
  const PriceCell& cell = prices_[pair * kNumPricing + c.p];
  cost::PriceQuote q = *cost::quote_offers(cell.offers, size, pricing, os_, hybrid_,
                                           licence_per_vcpu_, true);
  cost::CostBreakdown b;
  if (detailed) {
    b = cost::breakdown(q, usage_, h, region_costs_[c.r]);
  } else {
    b.numbers = cost::cost_numbers(q, usage_, h, region_costs_[c.r]);
  }

  Option o;
  o.size = size.name;
  o.count = c.count;
  o.gpus = size.gpu_count * c.count;
  o.gpu_model = size.gpu_model;
  o.region = regions_[c.r];
  o.pricing = pricing;
  o.os = os_;
  o.hybrid_benefit = os_ == Os::kWindows && hybrid_;
  o.hours = h.wall_hours;
  o.hours_low = h.wall_hours_low;
  o.hours_high = h.wall_hours_high;
  o.work_hours = e.hours;
  o.cost_usd = b.numbers.total_usd;
  o.cost_low_usd = b.numbers.low_usd;
  o.cost_high_usd = b.numbers.high_usd;
  o.usd_per_hour = b.numbers.usd_per_hour;
  o.usd_per_gpu_hour = o.gpus > 0 ? o.usd_per_hour / o.gpus : 0;
  o.vcpus = size.vcpus * c.count;
  o.quota_family = spot ? "lowPriorityCores" : size.quota_family;
  o.quota_headroom_vcpus = headroom_[pair * 2 + (spot ? 1 : 0)];
  o.quota_known = o.quota_headroom_vcpus.has_value();
  o.quota_ok = !o.quota_known || *o.quota_headroom_vcpus >= o.vcpus;
  o.kind = std::string(workload::to_string(w_.kind));
  o.layout = layout_text(e);
  o.throughput = e.throughput;
  o.throughput_unit = e.throughput_unit;
  o.mfu = e.mfu;
  o.price = q;
  if (spot) {
    SpotRisk risk;
    risk.eviction_rate_per_hour = usage_.eviction.rate_per_hour;
    risk.job_eviction_rate_per_hour = h.job_eviction_rate;
    risk.expected_evictions = h.expected_evictions;
    risk.deadline_miss_probability =
        deadline_ ? cost::deadline_miss_probability(usage_, h, *deadline_) : 0.0;
    double p = risk.deadline_miss_probability;
    risk.level = p < 0.05 ? "low" : p < 0.25 ? "medium" : "high";
    if (!usage_.eviction.stretches_hours) {
      risk.level = h.expected_evictions < 1 ? "low" : h.expected_evictions < 10 ? "medium" : "high";
    }
    o.spot_risk = risk;
  }
  o.lines = std::move(b.lines);
  return o;
}

void Planner::finish(Plan& plan) {
  // Ranked options.
  for (const Cand& c : top_) plan.options.push_back(materialise(c));
  const Option* best = plan.options.empty() ? nullptr : &plan.options.front();
  const std::string deadline_text = deadline_ ? " within the " + hours_text(*deadline_) + " h deadline" : "";
  for (size_t i = 0; i < plan.options.size(); ++i) {
    Option& o = plan.options[i];
    o.rank = static_cast<int>(i) + 1;
    if (i == 0) {
      switch (opt_.objective) {
        case Objective::kCost: o.why = "cheapest" + deadline_text; break;
        case Objective::kTime: o.why = "fastest" + (budget_ ? " within the budget" : std::string()); break;
        case Objective::kBalanced: o.why = "best cost x sqrt(hours)" + deadline_text; break;
      }
      continue;
    }
    double dc = o.cost_usd - best->cost_usd;
    double dh = o.hours - best->hours;
    std::string money_part = std::fabs(dc) < 0.005
                                 ? "same cost"
                                 : (dc > 0 ? "+" : "-") + cost::format_usd(std::fabs(dc)) +
                                       (best->cost_usd > 0
                                            ? " (" + std::string(dc > 0 ? "+" : "-") +
                                                  percent(std::fabs(dc) / best->cost_usd) + ")"
                                            : "");
    std::string time_part = std::fabs(dh) < 0.005 ? "same hours"
                                                  : hours_text(std::fabs(dh)) + " h " +
                                                        (dh < 0 ? "faster" : "slower");
    o.why = money_part + ", " + time_part;
    if (o.size == best->size && o.count == best->count && o.pricing == best->pricing &&
        o.region != best->region) {
      o.why += " (same option in " + o.region + ")";
    }
  }

  // Pareto frontier over the group bests.
  std::vector<Cand> groups;
  for (const Cand& g : group_best_) {
    if (g.valid()) groups.push_back(g);
  }
  Order by_cost{Objective::kCost};
  std::sort(groups.begin(), groups.end(), [&](const Cand& a, const Cand& b) {
    if (a.hours != b.hours) return a.hours < b.hours;
    return by_cost(a, b);
  });
  std::vector<Cand> frontier;
  for (const Cand& g : groups) {
    if (frontier.empty() || g.cost < frontier.back().cost) frontier.push_back(g);
  }
  for (size_t i = 0; i < frontier.size(); ++i) {
    Option o = materialise(frontier[i], false);
    o.rank = static_cast<int>(i) + 1;
    if (frontier.size() == 1) {
      o.why = "fastest and cheapest";
    } else if (i == 0) {
      o.why = "fastest";
    } else if (i + 1 == frontier.size()) {
      o.why = "cheapest";
    } else {
      const Cand& prev = frontier[i - 1];
      o.why = percent((prev.cost - frontier[i].cost) / prev.cost) + " cheaper, " +
              hours_text(frontier[i].hours - prev.hours) + " h slower than the one above";
    }
    plan.frontier.push_back(std::move(o));
  }

  // Fallbacks for the winner.
  if (!top_.empty()) {
    const Cand& win = top_.front();
    const size_t R = regions_.size();
    std::vector<Cand> other_regions, other_sizes;
    for (size_t r = 0; r < R; ++r) {
      const Cand& b = pair_best_[static_cast<size_t>(win.s) * R + r];
      if (b.valid() && static_cast<int>(r) != win.r) other_regions.push_back(b);
    }
    for (size_t s = 0; s < sizes_.size(); ++s) {
      if (static_cast<int>(s) == win.s) continue;
      Cand best_s;
      for (size_t r = 0; r < R; ++r) {
        const Cand& b = pair_best_[s * R + r];
        if (b.valid() && (!best_s.valid() || order_(b, best_s))) best_s = b;
      }
      if (best_s.valid()) other_sizes.push_back(best_s);
    }
    std::sort(other_regions.begin(), other_regions.end(), order_);
    std::sort(other_sizes.begin(), other_sizes.end(), order_);
    int rank = 0;
    auto add = [&](const std::vector<Cand>& list, const char* kind) {
      for (int i = 0; i < std::min<int>(opt_.fallbacks_per_kind, list.size()); ++i) {
        Option o = materialise(list[i]);
        o.rank = ++rank;
        o.fallback_for = kind;
        double dc = o.cost_usd - best->cost_usd;
        o.why = std::string(kind[0] == 'r' ? "same size in " + o.region : "other size " + o.size) +
                ": " + (dc >= 0 ? "+" : "-") + cost::format_usd(std::fabs(dc)) + ", " +
                hours_text(o.hours) + " h";
        plan.fallbacks.push_back(std::move(o));
      }
    };
    add(other_regions, "region");
    add(other_sizes, "size");
  }

  // Quota requests: the best blocked options that beat the winner.
  {
    std::vector<Cand> blocked;
    for (const Cand& b : blocked_best_) {
      if (b.valid() && (top_.empty() || order_(b, top_.front()))) blocked.push_back(b);
    }
    std::sort(blocked.begin(), blocked.end(), order_);
    std::vector<std::string> seen;
    for (const Cand& b : blocked) {
      if (plan.quota_requests.size() >= 3) break;
      const catalog::VmSize& size = *sizes_[b.s];
      const bool spot = catalog::kAllPricing[b.p] == Pricing::kSpot;
      std::string family = spot ? "lowPriorityCores" : size.quota_family;
      std::string key = family + "|" + regions_[b.r];
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
      seen.push_back(key);
      QuotaRequest qr;
      qr.family = family;
      qr.region = regions_[b.r];
      qr.spot = spot;
      for (const catalog::Quota& q : catalog_.quotas()) {
        if (strings::fold(q.region) == strings::fold(qr.region) &&
            strings::fold(q.family) == strings::fold(family)) {
          qr.limit = q.limit;
          qr.used = q.used;
        }
      }
      qr.vcpus_needed = static_cast<double>(size.vcpus) * b.count;
      qr.new_limit = std::max(qr.limit, qr.used + qr.vcpus_needed);
      qr.unlocks = materialise(b);
      qr.unlocks.quota_ok = false;
      qr.saves_usd = top_.empty() ? 0 : std::max(0.0, top_.front().cost - b.cost);
      qr.unlocks.why = top_.empty() ? "the best option once quota allows it"
                                    : "beats the winner once quota allows it";
      std::string verb = qr.limit > 0 ? "update" : "create";
      qr.command = "az quota " + verb + " --resource-name " + family +
                   " --scope /subscriptions/<subscription-id>/providers/Microsoft.Compute/"
                   "locations/" + qr.region + " --limit-object value=" + fixed(qr.new_limit, 0) +
                   " limit-object-type=LimitValue --resource-type " +
                   (spot ? "lowPriority" : "dedicated");
      plan.quota_requests.push_back(std::move(qr));
    }
    if (!plan.quota_requests.empty()) {
      warnings_.push_back("a better option is blocked by quota: see the quota request" +
                          std::string(plan.quota_requests.size() > 1 ? "s" : ""));
    }
  }

  // Drops, most frequent first.
  for (int i = 0; i < kNumReasons; ++i) {
    const DropStats& d = drops_[i];
    if (d.count == 0) continue;
    Drop drop;
    drop.reason = kReasonText[i];
    drop.count = d.count;
    drop.regions = static_cast<int>(std::count(d.regions.begin(), d.regions.end(), 1));
    drop.sizes = static_cast<int>(std::count(d.sizes.begin(), d.sizes.end(), 1));
    drop.example = d.example;
    plan.dropped.push_back(std::move(drop));
  }
  std::stable_sort(plan.dropped.begin(), plan.dropped.end(),
                   [](const Drop& a, const Drop& b) { return a.count > b.count; });

  // Warnings about the winner.
  if (best) {
    if (best->price.estimated) {
      warnings_.push_back("the top option's price is estimated, not listed: " + best->price.rule);
    }
    if (best->spot_risk && best->spot_risk->level != "low") {
      warnings_.push_back("the top option is spot with " + best->spot_risk->level +
                          " risk: " + percent(best->spot_risk->deadline_miss_probability) +
                          " chance to miss the deadline at " +
                          fixed(best->spot_risk->eviction_rate_per_hour, 3) +
                          " evictions per VM-hour (--eviction-rate)");
    }
    materialise(top_.front());  // caches the winner's full estimate
    const estimate::Estimate* e = nullptr;
    for (const auto& [key, est] : full_estimates_) {
      if (key == std::pair(top_.front().s, top_.front().count)) e = &est;
    }
    for (const estimate::Assumption& a : e->assumptions) {
      plan.assumptions.push_back({a.name, a.value, a.source});
    }
  } else {
    warnings_.push_back("no option meets every constraint; see the drops");
  }
  if (w_.kind == workload::Kind::kInfer && w_.data.growth_per_week > 0) {
    warnings_.push_back("traffic grows " + percent(w_.data.growth_per_week) +
                        " a week; the fleet is sized for today's rate (see gpuplan simulate)");
  }
  for (Assumption& a : assumptions_) plan.assumptions.push_back(std::move(a));
  plan.warnings = std::move(warnings_);
}

Result<Plan> Planner::run() {
  GPUPLAN_RETURN_IF_ERROR(settle());
  GPUPLAN_RETURN_IF_ERROR(index());
  enumerate();
  Plan plan;
  plan.workload_name = w_.name;
  plan.workload_file = w_.file;
  plan.kind = std::string(workload::to_string(w_.kind));
  plan.objective = opt_.objective;
  finish(plan);
  plan.considered = considered_;
  plan.feasible = feasible_;
  return plan;
}

}  // namespace

Result<Plan> make_plan(const workload::Workload& workload, const catalog::Catalog& catalog,
                       const cost::Rates& rates, const PlanOptions& options,
                       const EstimateFn& estimator) {
  Planner planner(workload, catalog, rates, options, estimator, estimator);
  return planner.run();
}

Result<Plan> make_plan(const workload::Workload& workload, const catalog::Catalog& catalog,
                       const cost::Rates& rates, const PlanOptions& options) {
  EstimateFn quick = [&workload](const catalog::VmSize& size, const catalog::Gpu& gpu, int count) {
    return quick_estimate(workload, size, gpu, count);
  };
  EstimateFn full = [&workload](const catalog::VmSize& size, const catalog::Gpu& gpu, int count) {
    return estimate::estimate(workload, size, gpu, count);
  };
  Planner planner(workload, catalog, rates, options, quick, full);
  return planner.run();
}

}  // namespace gpuplan::plan
