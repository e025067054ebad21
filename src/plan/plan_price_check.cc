// Prices that look wrong, and the confidential-computing sizes.
//
// Problem: the cheapest option is only as good as its price. A catalog row
// can be stale, mis-keyed or a thin market — in the 2026-05 snapshot the
// confidential NCC40ads_H100_v5 sold spot at $1.29/h in eastus2 while the
// ordinary NC40ads_H100_v5 sold spot at $6.28 there — and a planner that
// ranks by cost alone puts such a row first, silently. Special-purpose sizes
// have the same effect: a confidential VM is a different product (its own
// image, drivers and attestation) that nobody should get unasked.
//
// Approach: two checks on every (size, region, pricing) price, with
// thresholds derived at run time from the catalog's own distribution (so an
// imported price list moves them, and no constant is tuned to an example):
//   1. Spot discount. ratio = spot / pay-as-you-go compute price of the same
//      size, region and OS. Over all such ratios of a series (>= 4 regions)
//      and over the whole catalog, Tukey's lower fence Q1 - 1.5 x IQR
//      (J. W. Tukey, "Exploratory Data Analysis", 1977, ch. 2) marks the
//      usual range; a ratio below both its series' fence and the catalog's is
//      flagged. (Embedded catalog: catalog fence 0.127, i.e. 87 % off; Azure
//      caps most spot prices at 81.5 % off.)
//   2. Same-GPU siblings. per_gpu = compute price / GPUs; ratio = per_gpu /
//      median per_gpu of the other sizes with the same GPU model, region and
//      pricing. Listed pay-as-you-go prices show how far a size can
//      legitimately sit below its siblings (fewer vCPUs and less memory per
//      GPU: NC4as_T4_v3 is 0.48 of its siblings): the lowest such ratio among
//      pay-as-you-go prices is the fence, and a spot or commitment price below
//      it is flagged. (Embedded catalog: 0.371.)
// A flagged candidate ranks after every candidate whose price looks right
// (Order::demote_suspect); it keeps its warning text, and the plan says when
// the check changed the winner.
//
// Confidential sizes (NCC*) are dropped unless the workload sets
// constraints.confidential; with it, every other size is dropped, and the
// option carries `confidential: true` and the caveats below.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "core/format.h"
#include "core/strings.h"
#include "plan/internal/planner.h"

namespace gpuplan::plan::internal {

using catalog::Pricing;
using strings::fixed;

namespace {

// Quartile by linear interpolation between order statistics (Hyndman and
// Fan 1996, definition 7). `v` is sorted and not empty.
double quantile(const std::vector<double>& v, double q) {
  const double at = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(at));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (at - static_cast<double>(lo));
}

// Tukey's lower fence; nullopt with fewer than 4 values.
std::optional<double> lower_fence(std::vector<double> v) {
  if (v.size() < 4) return std::nullopt;
  std::sort(v.begin(), v.end());
  const double q1 = quantile(v, 0.25);
  const double q3 = quantile(v, 0.75);
  return q1 - 1.5 * (q3 - q1);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return quantile(v, 0.5);
}

}  // namespace

void Planner::flag_prices() {
  flag_spot_discounts();
  flag_below_siblings();
}

void Planner::flag_spot_discounts() {
  const size_t R = regions_.size();
  const int spot = pricing_index(Pricing::kSpot);
  const int payg = pricing_index(Pricing::kPayg);
  std::vector<double> all;
  std::unordered_map<std::string, std::vector<double>> by_series;
  for (size_t s = 0; s < sizes_.size(); ++s) {
    for (int r : size_regions_[s]) {
      PriceCell& sc = prices_[(s * R + r) * kNumPricing + spot];
      const PriceCell& pc = prices_[(s * R + r) * kNumPricing + payg];
      if (!sc.has || !pc.has || pc.compute <= 0) continue;
      sc.spot_ratio = sc.compute / pc.compute;
      all.push_back(sc.spot_ratio);
      by_series[sizes_[s]->series].push_back(sc.spot_ratio);
    }
  }
  const std::optional<double> catalog_fence = lower_fence(all);
  if (!catalog_fence) return;
  spot_fence_catalog_ = *catalog_fence;
  spot_fence_series_.assign(sizes_.size(), std::nullopt);
  std::unordered_map<std::string, std::optional<double>> series_fence;
  for (auto& [series, ratios] : by_series) series_fence[series] = lower_fence(ratios);
  for (size_t s = 0; s < sizes_.size(); ++s) {
    const std::optional<double>& f = series_fence[sizes_[s]->series];
    spot_fence_series_[s] = f;
    const double fence = f ? std::min(*f, *catalog_fence) : *catalog_fence;
    for (int r : size_regions_[s]) {
      PriceCell& sc = prices_[(s * R + r) * kNumPricing + spot];
      if (sc.has && sc.spot_ratio > 0 && sc.spot_ratio < fence) sc.flags |= kDeepSpotDiscount;
    }
  }
}

void Planner::flag_below_siblings() {
  const size_t R = regions_.size();
  double fence = 0;
  bool have_fence = false;
  std::vector<std::pair<PriceCell*, int>> cells;  // (cell, pricing index)
  for (size_t r = 0; r < R; ++r) {
    for (int p = 0; p < kNumPricing; ++p) {
      // GPU model -> (size index, per-GPU price) of the sizes priced here.
      std::unordered_map<std::string, std::vector<std::pair<int, double>>> groups;
      for (size_t s = 0; s < sizes_.size(); ++s) {
        const PriceCell& c = prices_[(s * R + r) * kNumPricing + p];
        if (!c.has || sizes_[s]->gpu_count <= 0) continue;
        groups[sizes_[s]->gpu_model].push_back(
            {static_cast<int>(s), c.compute / sizes_[s]->gpu_count});
      }
      for (auto& [model, members] : groups) {
        if (members.size() < 2) continue;
        for (const auto& [s, per_gpu] : members) {
          std::vector<double> others;
          for (const auto& [t, v] : members) {
            if (t != s) others.push_back(v);
          }
          const double m = median(others);
          if (m <= 0) continue;
          PriceCell& c = prices_[(static_cast<size_t>(s) * R + r) * kNumPricing + p];
          c.sibling_ratio = per_gpu / m;
          c.sibling_median_per_gpu = m;
          if (catalog::kAllPricing[p] == Pricing::kPayg) {
            fence = have_fence ? std::min(fence, per_gpu / m) : per_gpu / m;
            have_fence = true;
          } else {
            cells.push_back({&c, p});
          }
        }
      }
    }
  }
  if (!have_fence) return;
  sibling_fence_ = fence;
  for (auto& [c, p] : cells) {
    if (c->sibling_ratio > 0 && c->sibling_ratio < fence) c->flags |= kBelowSiblings;
  }
}

std::vector<std::string> Planner::price_warnings(const Cand& c) const {
  std::vector<std::string> out;
  const size_t pair = static_cast<size_t>(c.s) * regions_.size() + c.r;
  const PriceCell& cell = prices_[pair * kNumPricing + c.p];
  if (cell.flags & kDeepSpotDiscount) {
    const std::optional<double>& series = spot_fence_series_[c.s];
    const double fence = series ? std::min(*series, spot_fence_catalog_) : spot_fence_catalog_;
    out.push_back("spot at " + percent(1 - cell.spot_ratio) +
                  " off pay-as-you-go, beyond the usual " + "range of " + sizes_[c.s]->series +
                  " and of the catalog (at most " + percent(1 - fence) +
                  " off: Tukey's lower fence of the spot/payg ratios)");
  }
  if (cell.flags & kBelowSiblings) {
    out.push_back(format::usd(cell.compute / sizes_[c.s]->gpu_count) + " per GPU-hour is " +
                  percent(cell.sibling_ratio) + " of the median same-GPU (" +
                  sizes_[c.s]->gpu_model + ") size here at this pricing ($" +
                  fixed(cell.sibling_median_per_gpu, 2) +
                  "); listed pay-as-you-go prices are never below " + percent(sibling_fence_) +
                  " of their siblings");
  }
  return out;
}

// What confidential computing requires and costs, for the option's caveats.
std::vector<std::string> Planner::confidential_caveats() const {
  return {
      "confidential VM (AMD SEV-SNP with the H100 in confidential-computing mode): deploy with "
      "securityType ConfidentialVM from a Generation 2 confidential-VM image and set up the "
      "confidential GPU driver and attestation (aka.ms/cgpu-onboarding-steps); Accelerated "
      "Networking, live migration and nested virtualization are not supported [Microsoft Learn, "
      "NCCads_H100_v5 sizes series, 2024-08-06]",
      "confidential VM cost: the size's own listed price (shown; no separate meter in the "
      "catalog); CPU-GPU transfers are encrypted through bounce buffers, which the estimate does "
      "not model (under ~5 % for typical LLM inference on H100, more when transfer-bound "
      "[Zhu et al. 2024, arXiv:2409.03992])"};
}

}  // namespace gpuplan::plan::internal
