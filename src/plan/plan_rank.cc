// The planner's ranking (steps 4 and 5 of the essay in plan.cc): each
// feasible candidate updates the top-N by the objective, the cheapest per
// (size, count, spot?) group — the only member of a group that can be on the
// cost–time Pareto frontier, since hours are identical within it — and the
// best per (size, region) for fallbacks. After the pass, only what is printed
// is materialised: the estimator is re-run in full for those (size, count)s
// and the cost model builds their lines. The frontier is a sort on hours and
// a sweep for strictly falling cost; the drops are summarised most frequent
// first; warnings about the winner close the plan.
#include <algorithm>
#include <cmath>

#include "core/format.h"
#include "core/strings.h"
#include "plan/internal/planner.h"
#include "plan/internal/spot_risk.h"

namespace gpuplan::plan::internal {

using catalog::Os;
using catalog::Pricing;
using strings::fixed;

void Planner::consider(const Cand& c) {
  ++feasible_;
  if (c.suspect && (!best_suspect_.valid() || Order{opt_.objective, false}(c, best_suspect_))) {
    best_suspect_ = c;
  }
  // Top N (sorted, best first).
  const size_t n = static_cast<size_t>(opt_.top);
  if (top_.size() < n || order_(c, top_.back())) {
    auto it = std::upper_bound(top_.begin(), top_.end(), c, order_);
    top_.insert(it, c);
    if (top_.size() > n) top_.pop_back();
  }
  // Frontier group: same size, count and hours class; keep the cheapest. The
  // frontier is the plain cost-time trade-off: a price that looks wrong is
  // not demoted there (its warning travels with it).
  Cand& g =
      group_best_[(static_cast<size_t>(c.s) * (max_count_ + 1) + c.count) * kHoursClasses + c.hc];
  Order by_cost{Objective::kCost, false};
  if (!g.valid() || by_cost(c, g)) g = c;
  // Fallbacks: best per (size, region).
  Cand& b = pair_best_[static_cast<size_t>(c.s) * regions_.size() + c.r];
  if (!b.valid() || order_(c, b)) b = c;
}

// The estimate of a candidate's (size, count): the cached full one, a new
// full one when `detailed`, else a quick one written to `quick`.
const estimate::Estimate& Planner::estimate_for(const Cand& c, bool detailed,
                                                estimate::Estimate& quick) {
  const catalog::VmSize& size = *sizes_[c.s];
  for (const auto& [key, est] : full_estimates_) {
    if (key == std::pair(c.s, c.count)) return est;
  }
  if (detailed) {
    full_estimates_.emplace_back(std::pair(c.s, c.count), estimator_(size, *gpus_[c.s], c.count));
    return full_estimates_.back().second;
  }
  quick = quick_(size, *gpus_[c.s], c.count);
  return quick;
}

void Planner::set_spot_rates(int cls) {
  if (cls == 0) {
    usage_.eviction.rate_per_hour = base_eviction_.rate_per_hour;
    usage_.eviction.rate_high_per_hour = base_eviction_.rate_high_per_hour;
    return;
  }
  const cost::BandRates b = cost::band_rates(catalog::kAllEvictionBands[cls - 1]);
  usage_.eviction.rate_per_hour = b.expected_per_hour;
  usage_.eviction.rate_high_per_hour = b.high_per_hour;
}

const catalog::SpotEviction* Planner::set_spot_model(int si, int r) {
  usage_.eviction.rate_per_hour = base_eviction_.rate_per_hour;
  usage_.eviction.rate_high_per_hour = base_eviction_.rate_high_per_hour;
  usage_.eviction.basis = base_eviction_.basis;
  if (spot_class_[static_cast<size_t>(si) * regions_.size() + r] == 0) return nullptr;
  const catalog::SpotEviction* e = catalog_.spot_eviction(sizes_[si]->name, regions_[r]);
  if (e) cost::apply_band(usage_.eviction, *e);
  return e;
}

Option Planner::materialise(const Cand& c, bool detailed) {
  const catalog::VmSize& size = *sizes_[c.s];
  const Pricing pricing = catalog::kAllPricing[c.p];
  const bool spot = pricing == Pricing::kSpot;
  estimate::Estimate quick;
  const estimate::Estimate& e = estimate_for(c, detailed, quick);
  usage_.count = c.count;
  set_work(e);
  const catalog::SpotEviction* band = spot ? set_spot_model(c.s, c.r) : nullptr;
  cost::HoursModel h = cost::hours_model(usage_, spot);
  const size_t pair = static_cast<size_t>(c.s) * regions_.size() + c.r;
  const PriceCell& cell = prices_[pair * kNumPricing + c.p];
  cost::PriceQuote q =
      *cost::quote_offers(cell.offers, size, pricing, os_, hybrid_, licence_per_vcpu_, true);
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
  o.gpu_count = size.gpu_count;
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
    o.spot_risk = internal::spot_risk(usage_, h, deadline_, band, rates_overridden_);
    o.spot_risk->spare_vms = c.spares;
    if (c.spares > 0) {
      const double high =
          std::max(usage_.eviction.rate_per_hour, usage_.eviction.rate_high_per_hour);
      const internal::ServingSpares s = internal::serving_spares(c.count - c.spares, high);
      o.caveats.push_back(
          std::to_string(c.spares) + " of the " + std::to_string(c.count) +
          " VMs are spares for evictions: at up to " + fixed(high, 3) +
          " evictions per VM-hour (the range's high end) and ~" +
          fixed(internal::kSpotReplaceHours * 60, 0) + " min to replace one, more than " +
          std::to_string(c.spares) + " are down at once " +
          (s.short_probability <= internal::kSpareShortShare
               ? "under 1 % of the time"
               : fixed(s.short_probability * 100, 1) +
                     " % of the time (spares stop at doubling the fleet; serve this on "
                     "pay-as-you-go or lower --eviction-rate-high if you know better)"));
    }
  }
  // Items on Windows on a data-center-driver size: NVIDIA's data-center
  // driver runs Windows GPUs in TCC mode, with no display adapter, so a
  // DirectX or OpenGL renderer does not start there; CUDA and OptiX ones do
  // (NVIDIA, "Tesla Compute Cluster (TCC)" in the driver's nvidia-smi
  // -dm documentation; Azure gives NV sizes the GRID driver for graphics).
  // The render review saw a Windows render planned on 64 ND96isr_H200_v5.
  if (w_.kind == workload::Kind::kBatch && os_ == catalog::Os::kWindows &&
      size.driver == catalog::DriverKind::kCuda)
    o.caveats.push_back(size.name +
                        " runs NVIDIA's data-center driver (TCC mode on Windows, no display "
                        "adapter): CUDA/OptiX renderers run, DirectX/OpenGL ones need an NV size "
                        "with the GRID driver (constraints.series: [NV])");
  // A size whose shape the catalog could not verify says so where the
  // option is chosen (the render review: NC8ads_A10_v4, priced per vCPU like
  // a slice but read as a whole A10, won 15 of 94 generated render plans
  // with its UNVERIFIED note printed nowhere).
  if (size.notes.rfind("UNVERIFIED", 0) == 0)
    o.caveats.push_back(size.name + "'s catalog row is unverified (" +
                        size.notes.substr(0, size.notes.find(';')) +
                        "; its GPU figures come from one source): check its GPUs and memory with "
                        "`az vm list-skus --size " +
                        size.name + "` before buying");
  // A GPU whose rates the catalog derived or could not check (GB200's and
  // GB300's rack figures / 72, RTX PRO 6000's and V710's derived tensor
  // rates) says so where the option is chosen: its time and cost rest on
  // them. (H100 NVL is unverified for want of a second copy of NVIDIA's
  // datasheet, not for a derived figure: no caveat.)
  if (const catalog::Gpu* g = catalog_.find_gpu(size.gpu_model);
      g != nullptr && !g->verified &&
      (g->notes.find("DERIVED") != std::string::npos ||
       g->notes.find("UNVERIFIED") != std::string::npos))
    o.caveats.push_back(g->model +
                        "'s rates are not all from a primary source (data/catalog/"
                        "gpus.csv notes say which are derived): its time and cost rest on them");
  // A model whose measured serving runs were far slower than the estimate
  // says so where the option is chosen, not only in the estimate's list.
  if (const std::optional<std::string> gap = estimate::measured_serving_gap(w_))
    o.caveats.push_back(*gap);
  o.confidential = catalog::is_confidential(size);
  if (o.confidential) {
    const std::vector<std::string> more = confidential_caveats();
    o.caveats.insert(o.caveats.end(), more.begin(), more.end());
  }
  o.price_warnings = price_warnings(c);
  o.lines = std::move(b.lines);
  return o;
}

void Planner::finish(Plan& plan) {
  finish_options(plan);
  finish_frontier(plan);
  finish_fallbacks(plan);
  finish_quota_requests(plan);
  finish_growth(plan);
  finish_drops(plan);
  check_data_pipeline(plan);
  finish_warnings(plan);
}

// Ranked options, each with why it stands where it does.
void Planner::finish_options(Plan& plan) {
  for (const Cand& c : top_) plan.options.push_back(materialise(c));
  const Option* best = plan.options.empty() ? nullptr : &plan.options.front();
  const std::string deadline_text =
      deadline_ ? " within the " + hours_text(*deadline_) + " h deadline" : "";
  for (size_t i = 0; i < plan.options.size(); ++i) {
    Option& o = plan.options[i];
    o.rank = static_cast<int>(i) + 1;
    if (i == 0) {
      switch (opt_.objective) {
        case Objective::kCost:
          o.why = "cheapest" + deadline_text;
          break;
        case Objective::kTime:
          o.why = "fastest" + (budget_ ? " within the budget" : std::string());
          break;
        case Objective::kBalanced:
          o.why = "best cost x sqrt(hours)" + deadline_text;
          break;
      }
      continue;
    }
    double dc = o.cost_usd - best->cost_usd;
    double dh = o.hours - best->hours;
    std::string money_part =
        std::fabs(dc) < 0.005
            ? "same cost"
            : (dc > 0 ? "+" : "-") + format::usd(std::fabs(dc)) +
                  (best->cost_usd > 0 ? " (" + std::string(dc > 0 ? "+" : "-") +
                                            percent(std::fabs(dc) / best->cost_usd) + ")"
                                      : "");
    std::string time_part =
        std::fabs(dh) < 0.005 ? "same hours"
                              : hours_text(std::fabs(dh)) + " h " + (dh < 0 ? "faster" : "slower");
    o.why = money_part + ", " + time_part;
    if (o.size == best->size && o.count == best->count && o.pricing == best->pricing &&
        o.region != best->region) {
      o.why += " (same option in " + o.region + ")";
    }
  }
}

// Pareto frontier over the group bests.
void Planner::finish_frontier(Plan& plan) {
  std::vector<Cand> groups;
  for (const Cand& g : group_best_) {
    if (g.valid()) groups.push_back(g);
  }
  Order by_cost{Objective::kCost, false};
  // Hours compared to the millisecond: the same work reached two ways
  // differs in the last bits (0.5192307692307692 vs ...694 h), which put a
  // $3.00 option on the frontier as "fastest" above a $2.83 one at the same
  // hours.
  const auto ms = [](double h) { return std::llround(h * 3600e3); };
  std::sort(groups.begin(), groups.end(), [&](const Cand& a, const Cand& b) {
    if (ms(a.hours) != ms(b.hours)) return ms(a.hours) < ms(b.hours);
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
}

// Fallbacks for the winner: the same size in other regions, other sizes.
void Planner::finish_fallbacks(Plan& plan) {
  if (top_.empty()) return;
  const Option* best = &plan.options.front();
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
              ": " + (dc >= 0 ? "+" : "-") + format::usd(std::fabs(dc)) + ", " +
              hours_text(o.hours) + " h";
      plan.fallbacks.push_back(std::move(o));
    }
  };
  add(other_regions, "region");
  add(other_sizes, "size");
}

// Drops, most frequent first.
void Planner::finish_drops(Plan& plan) {
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
}

// What the price check did to the ranking: the winner's own price looks
// wrong (nothing better is feasible), or an option that would have ranked
// first was demoted.
void Planner::price_check_warnings(const Option& best) {
  if (!best.price_warnings.empty()) {
    warnings_.push_back("the top option's price looks wrong (" + best.price_warnings.front() +
                        "); no feasible option has a price that looks right: check it before "
                        "relying on it");
    return;
  }
  if (!best_suspect_.valid() || !Order{opt_.objective, false}(best_suspect_, top_.front())) return;
  const Option o = materialise(best_suspect_, false);
  warnings_.push_back(o.size + " x" + std::to_string(o.count) + " in " + o.region + " (" +
                      std::string(catalog::to_string(o.pricing)) + ", " + format::usd(o.cost_usd) +
                      ") would rank first, but its price looks " + "wrong (" +
                      o.price_warnings.front() +
                      "): it is ranked after every option whose price looks right");
}

// Warnings about the winner, the winner's estimator assumptions, then the
// planner's own assumptions.
void Planner::finish_warnings(Plan& plan) {
  const Option* best = plan.options.empty() ? nullptr : &plan.options.front();
  if (best) {
    if (best->price.estimated) {
      warnings_.push_back("the top option's price is estimated, not listed: " + best->price.rule);
    }
    if (best->spot_risk && best->spot_risk->level == "unknown") {
      warnings_.push_back("the top option is spot with unknown risk: no Azure eviction band for " +
                          best->size + " in " + best->region +
                          " was imported, so it is priced at " +
                          fixed(best->spot_risk->eviction_rate_per_hour, 2) + "-" +
                          fixed(best->spot_risk->eviction_rate_high_per_hour, 2) +
                          " evictions per VM-hour (--eviction-rate, --eviction-rate-high); "
                          "`gpuplan catalog import spot` reads Azure's bands");
    } else if (best->spot_risk && best->spot_risk->level != "low") {
      warnings_.push_back("the top option is spot with " + best->spot_risk->level +
                          " risk: " + percent(best->spot_risk->deadline_miss_probability) +
                          " chance to miss the deadline at " +
                          fixed(best->spot_risk->eviction_rate_per_hour, 3) +
                          " evictions per VM-hour (" +
                          (best->spot_risk->band ? "Azure band " + *best->spot_risk->band + " %"
                                                 : std::string("--eviction-rate")) +
                          ")");
    }
    price_check_warnings(*best);
    estimate::Estimate unused;
    const estimate::Estimate& e = estimate_for(top_.front(), true, unused);
    for (const estimate::Assumption& a : e.assumptions) {
      plan.assumptions.push_back({a.name, a.value, a.source});
    }
  } else {
    warnings_.push_back("no option meets every constraint; see the drops");
  }
  if (plan.growth && w_.kind == workload::Kind::kInfer && w_.serving.request_rate <= 0) {
    warnings_.push_back(
        "traffic grows but the request rate comes from a trace: the weekly "
        "fleet is not sized (see gpuplan simulate)");
  }
  for (Assumption& a : assumptions_) plan.assumptions.push_back(std::move(a));
  plan.warnings = std::move(warnings_);
}

}  // namespace gpuplan::plan::internal
