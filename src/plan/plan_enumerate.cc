// The planner's enumeration: the index built once (steps 1 and 2 of the essay
// in plan.cc) and the size x count loop that calls the estimator.
//
// The index turns the catalog into dense tables the hot loop reads by
// position: sizes (retired ones skipped) ranked by name for the tie-break,
// regions sorted, the compute and licence price per (size, region, pricing)
// from one pass over the offers, restrictions and quota headroom per (size,
// region), disks and transfer per region. The loop estimates each (size,
// count) once; what cannot fit, exceeds max_gpus or (serving) misses or
// over-meets the SLO is dropped in bulk for all its regions and pricings,
// and the rest goes to the filters of plan_feasibility.cc.
#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "core/strings.h"
#include "plan/internal/planner.h"

namespace gpuplan::plan::internal {

using catalog::Os;
using catalog::Pricing;
using strings::fixed;

Status Planner::index() {
  index_sizes_and_regions();
  index_prices();
  flag_prices();
  const size_t R = regions_.size();
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
  group_best_.assign(sizes_.size() * (max_count_ + 1) * kHoursClasses, Cand{});
  pair_best_.assign(sizes_.size() * R, Cand{});
  blocked_best_.assign(sizes_.size() * R, Cand{});
  return {};
}

using catalog::names_series;

void Planner::index_sizes_and_regions() {
  // Sizes: every non-retired size whose GPU the catalog knows.
  for (const catalog::VmSize& s : catalog_.sizes()) {
    if (s.status == catalog::SizeStatus::kRetired || s.gpu_count <= 0) continue;
    sizes_.push_back(&s);
    gpus_.push_back(catalog_.find_gpu(s.gpu_model));
  }
  // A constraints.series that names only retired sizes (NCv3, retired in
  // September 2025) leaves nothing to buy; say so, instead of dropping every
  // size as "not in the workload's constraints.series".
  for (const std::string& want : w_.constraints.series) {
    bool current = false;
    const catalog::VmSize* retired = nullptr;
    for (const catalog::VmSize& s : catalog_.sizes()) {
      if (!names_series(want, s)) continue;
      if (s.status == catalog::SizeStatus::kRetired) {
        if (!retired) retired = &s;
      } else {
        current = true;
      }
    }
    if (!current && retired)
      warnings_.push_back("constraints.series '" + want + "' names only retired sizes (" +
                          retired->series + " retired " + retired->retire_date +
                          "): none can be bought; see gpuplan catalog --series " + want +
                          " --include-retired");
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
  std::vector<std::string> allowed_list =
      opt_.regions.empty() ? w_.constraints.regions : opt_.regions;
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
    add_assumption("regions", list, opt_.regions.empty() ? workload_source() : "--region");
  }
  if (!data_region_.empty()) {
    auto it = region_index.find(data_region_);
    if (it != region_index.end()) data_region_index_ = it->second;
  }
}

// Prices: one pass over the offers, then a quote per (size, region,
// pricing); restrictions and quota headroom per (size, region).
void Planner::index_prices() {
  const size_t R = regions_.size();
  std::unordered_map<std::string, int> region_index;
  for (size_t i = 0; i < R; ++i) region_index[strings::to_lower(regions_[i])] = static_cast<int>(i);
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
        cell.offers.windows_payg = payg.offers.windows;  // also tells a Linux-only size
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
  // Azure's eviction band per (size, region), unless the user set the rates.
  spot_class_.assign(sizes_.size() * R, 0);
  if (!rates_overridden_ && !catalog_.spot_evictions().empty()) {
    for (size_t s = 0; s < sizes_.size(); ++s) {
      for (int r : size_regions_[s]) {
        if (const catalog::SpotEviction* e = catalog_.spot_eviction(sizes_[s]->name, regions_[r])) {
          spot_class_[s * R + r] = static_cast<signed char>(1 + static_cast<int>(e->band));
          ++bands_used_;
        }
      }
    }
  }
  if (!quota_known_anywhere) {
    warnings_.push_back(
        "quota not imported: options are not checked against vCPU quota (new subscriptions often "
        "have 0 GPU quota); run `az vm list-usage -l REGION -o json > u.json && gpuplan catalog "
        "import usage u.json --region REGION`");
  }
}

void Planner::enumerate() {
  for (size_t s = 0; s < sizes_.size(); ++s) size_counts(static_cast<int>(s));
}

// constraints.series: a family letter ("NV") or a series name, ignoring case.
bool Planner::series_allowed(const catalog::VmSize& size) const {
  return catalog::series_admits(w_.constraints.series, size);
}

bool Planner::drop_whole_size(int si) {
  const catalog::VmSize& size = *sizes_[si];
  const long long per_region = static_cast<long long>(pricings_.size());
  if (!gpus_[si]) {
    drop_bulk(kNotFit, per_region, si, max_count_, [&] {
      return size.name + ": GPU model '" + size.gpu_model + "' missing from the catalog";
    });
    return true;
  }
  if (!series_allowed(size)) {
    drop_bulk(kSeries, per_region, si, max_count_, [&] {
      return size.name + ": series " + size.series + " (" + size.family_letter +
             ") is not in the workload's constraints.series";
    });
    return true;
  }
  if (catalog::is_confidential(size) != confidential_) {
    drop_bulk(confidential_ ? kNotConfidential : kConfidentialNotAsked, per_region, si, max_count_,
              [&] {
                return confidential_ ? size.name +
                                           ": not a confidential-computing size (the workload sets "
                                           "constraints.confidential)"
                                     : size.name +
                                           ": confidential-computing size, offered only with "
                                           "constraints.confidential: true";
              });
    return true;
  }
  if (size.driver == catalog::DriverKind::kAmd && !opt_.allow_amd) {
    drop_bulk(kAmd, per_region, si, max_count_, [&] {
      return size.name + ": " + size.gpu_model +
             " needs ROCm/AMD drivers, which gpuplan stack/deploy do not set up (--allow-amd "
             "includes it)";
    });
    return true;
  }
  return false;
}

void Planner::size_counts(int si) {
  const catalog::VmSize& size = *sizes_[si];
  const long long per_region = static_cast<long long>(pricings_.size());
  if (size_regions_[si].empty()) return;
  if (drop_whole_size(si)) return;
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
        return size.name + " x" + std::to_string(count + 1) + ": " + std::to_string(count) + " VM" +
               (count == 1 ? "" : "s") + " already meet the SLO";
      });
      return;
    }
  }
}

}  // namespace gpuplan::plan::internal
