// Estimating the prices the embedded snapshot does not list.
//
// Problem. The embedded price snapshot (anycloud-sh/catalog, built from the
// Azure Retail Prices API on 2026-05-20) lists only Linux pay-as-you-go and
// Linux spot per size and region. Users also ask for Windows, 1- and 3-year
// reservations and 1- and 3-year savings plans. Azure publishes those too,
// but we do not hold them for every size and region.
//
// Approach. Derive each missing price from the Linux payg (or spot) price of
// the same size and region with a rule from data/catalog/pricing_rules.csv,
// a data file in which every rate carries its source (never a constant in
// code):
//   * Windows payg   = Linux payg + windows_surcharge[payg] x vCPUs. 100 of
//     119 Windows/Linux pairs in Infracost's eastus golden differ by exactly
//     $0.046 per vCPU-hour (rates.csv); GPU sizes all follow it.
//   * Windows spot   = Linux spot + windows_surcharge[spot] x vCPUs ($0.0085,
//     the mode of 67 westeurope GPU spot pairs). No Linux spot price, no
//     Windows spot price: spot stays unknown, it is never guessed.
//   * reserved-Ny / savings-Ny on Linux = Linux payg x (1 - discount), the
//     discount taken from the size's own rule, else its series' (median of
//     the listed sizes), else the default (the smallest discount listed for
//     any GPU size, so an estimate errs towards the higher price).
//   * reserved / savings on Windows = the Linux commitment price + the payg
//     Windows surcharge: reservations and savings plans cover compute only,
//     the Windows licence is billed at the payg meter (facts.md, "Reserved VM
//     Instances", prepay-reserved-vm-instances.md).
//   * Sizes that cannot be reserved (retired, preview, or past the end of
//     reservation sales, as computed for today) get no reserved or savings
//     offer, estimated or listed.
// A listed price always wins: estimates only fill keys no listing holds, and
// they are recomputed from whatever payg price won (embedded or imported).
//
// Trade-offs. Discounts vary by region by a few points; one discount per size
// is simple and labelled with its source so the user can judge it, and an
// imported Reservation price replaces it. Each estimate carries its rule
// (base price, rate, source) so it can be checked by hand; the text is
// rendered only when printed (EstimateRule::text): building ~8k texts per
// load was 40 % of the load time, and a command prints a handful.
#include <array>
#include <charconv>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "catalog/internal/catalog_data.h"
#include "core/format.h"
#include "core/strings.h"

namespace gpuplan::catalog::internal {
namespace {

std::string percent(double fraction) {
  char buf[48];
  auto res = std::to_chars(buf, buf + sizeof buf, fraction * 100, std::chars_format::fixed, 1);
  return std::string(buf, res.ptr) + "%";
}

const PricingRule* find_surcharge(const std::vector<PricingRule>& rules, Pricing pricing) {
  for (const PricingRule& r : rules) {
    if (r.rule == "windows_surcharge" && r.pricing == pricing && r.applies_to == "*") return &r;
  }
  return nullptr;
}

// A size that cannot be reserved (retired, preview, or past the end of
// reservation sales) gets no reserved or savings offer, listed or not: an
// imported Reservation price for it is history, not an offer.
std::vector<Offer> without_unreservable_commitments(
    const std::vector<VmSize>& sizes,
    const std::unordered_map<std::string_view, size_t>& size_by_name, std::vector<Offer> listed) {
  std::vector<Offer> out;
  out.reserve(listed.size());
  for (Offer& o : listed) {
    if (commitment_hours(o.pricing) > 0) {
      auto it = size_by_name.find(o.size);
      if (it != size_by_name.end() && !sizes[it->second].reservable) continue;
    }
    out.push_back(std::move(o));
  }
  return out;
}

// A listed Windows price older than the listed Linux price of the same
// size, region and pricing is history: the Linux meter has moved since
// (a newer import), and the Windows one with it. It is dropped, so that
// the Windows price is estimated from the current Linux one. Kept, it
// made catalog list NC24ads_A100_v4 Windows at 4.78 below its new Linux
// 5.00 while cost priced 5.00 + licence (6.10) and called it listed.
std::vector<Offer> without_stale_windows(std::vector<Offer> listed) {
  std::unordered_map<std::string, const Offer*> linux;
  linux.reserve(listed.size());
  auto key = [](const Offer& o) {
    return o.size + '|' + o.region + '|' + std::string(to_string(o.pricing));
  };
  for (const Offer& o : listed)
    if (o.os == Os::kLinux && o.usd_per_hour) linux.emplace(key(o), &o);
  std::vector<bool> stale(listed.size(), false);
  for (size_t i = 0; i < listed.size(); ++i) {
    const Offer& o = listed[i];
    if (o.os != Os::kWindows || !o.usd_per_hour) continue;
    auto it = linux.find(key(o));
    // Dates are YYYY-MM-DD: their order is the strings'.
    stale[i] = it != linux.end() && !o.as_of.empty() && o.as_of < it->second->as_of;
  }
  std::vector<Offer> out;
  out.reserve(listed.size());
  for (size_t i = 0; i < listed.size(); ++i)
    if (!stale[i]) out.push_back(std::move(listed[i]));
  return out;
}

std::string rule_scope(const PricingRule& r) {
  if (r.applies_to == "*") return "default";
  if (r.applies_to.rfind("series:", 0) == 0) return "series " + r.applies_to.substr(7);
  return "size " + r.applies_to;
}

}  // namespace

std::string offer_key(std::string_view size, std::string_view region, Os os, Pricing pricing) {
  std::string key = strings::fold(size);
  if (key.rfind("standard", 0) == 0) key.erase(0, 8);
  key += '|';
  key += strings::fold(region);
  key += '|';
  key += to_string(os);
  key += '|';
  key += to_string(pricing);
  return key;
}

const PricingRule* find_not_offered(const std::vector<PricingRule>& rules, const VmSize& size,
                                    Pricing pricing) {
  for (const PricingRule& r : rules)
    if (r.rule == "not_offered" && r.pricing == pricing && r.applies_to == size.name) return &r;
  return nullptr;
}

// A no_windows rule for the size or its series (the size's documentation
// lists Linux images only).
const PricingRule* find_no_windows(const std::vector<PricingRule>& rules, const VmSize& size,
                                   Pricing pricing) {
  const std::string series_key = "series:" + size.series;
  for (const PricingRule& r : rules)
    if (r.rule == "no_windows" && r.pricing == pricing &&
        (r.applies_to == size.name || r.applies_to == series_key))
      return &r;
  return nullptr;
}

const PricingRule* find_discount_rule(const std::vector<PricingRule>& rules, const VmSize& size,
                                      Pricing pricing) {
  const PricingRule* by_series = nullptr;
  const PricingRule* by_default = nullptr;
  const std::string series_key = "series:" + size.series;
  for (const PricingRule& r : rules) {
    if (r.rule != "discount" || r.pricing != pricing) continue;
    if (r.applies_to == size.name) return &r;
    if (r.applies_to == series_key) by_series = &r;
    if (r.applies_to == "*") by_default = &r;
  }
  return by_series ? by_series : by_default;
}

// catalog_data.h says what this does. Long because it is one pass over the
// listed offers sharing one slot index, the rules' shared ownership and a
// per-size discount cache, tuned for the catalog's load time (bench/).
std::vector<Offer> with_estimates(const std::vector<VmSize>& sizes, std::vector<Offer> listed,
                                  std::vector<PricingRule> rules) {
  std::unordered_map<std::string_view, size_t> size_by_name;
  for (size_t i = 0; i < sizes.size(); ++i) size_by_name.emplace(sizes[i].name, i);

  // The rules, owned together by every estimate that cites one (aliasing
  // shared_ptrs into one block: one allocation for the whole set).
  auto owned = std::make_shared<const std::vector<PricingRule>>(std::move(rules));
  auto share = [&owned](const PricingRule* r) {
    return std::shared_ptr<const PricingRule>(owned, r);
  };

  // Offers by (size, region) then (os, pricing) slot. Names are canonical
  // here (embedded data, or imports canonicalised by Catalog::load), so
  // exact strings key the map; folding 10k keys would dominate the load.
  constexpr int kSlots = 2 * 6;
  auto slot = [](Os os, Pricing p) { return static_cast<int>(os) * 6 + static_cast<int>(p); };
  std::vector<Offer> out = without_unreservable_commitments(
      sizes, size_by_name, without_stale_windows(std::move(listed)));
  // At most 10 estimates per priced Linux payg offer (Windows payg and spot,
  // 4 Linux and 4 Windows commitments): reserving that keeps references to
  // `out` valid while it grows below.
  size_t bases = 0;
  for (const Offer& o : out) bases += o.os == Os::kLinux && o.pricing == Pricing::kPayg;
  constexpr size_t kMaxEstimatesPerBase = 10;
  out.reserve(out.size() + kMaxEstimatesPerBase * bases);
  std::unordered_map<std::string, std::array<int, kSlots>> index;
  index.reserve(out.size());
  auto slots_of = [&](const Offer& o) -> std::array<int, kSlots>& {
    std::string key;
    key.reserve(o.size.size() + o.region.size() + 1);
    key.append(o.size).append(1, '|').append(o.region);
    auto [it, inserted] = index.try_emplace(std::move(key));
    if (inserted) it->second.fill(-1);
    return it->second;
  };
  for (size_t i = 0; i < out.size(); ++i) {
    slots_of(out[i])[slot(out[i].os, out[i].pricing)] = static_cast<int>(i);
  }
  std::array<int, kSlots>* cur = nullptr;  // the slots of the base offer below
  auto find = [&](Os os, Pricing p) -> const Offer* {
    int i = (*cur)[slot(os, p)];
    return i < 0 ? nullptr : &out[i];
  };
  auto add = [&](Offer o) {
    int& i = (*cur)[slot(o.os, o.pricing)];
    if (i >= 0) return;  // a listed price always wins
    i = static_cast<int>(out.size());
    out.push_back(std::move(o));
  };

  constexpr Pricing kCommitments[] = {Pricing::kReserved1y, Pricing::kReserved3y,
                                      Pricing::kSavings1y, Pricing::kSavings3y};
  // Each size's discount rule per commitment, looked up once per size rather
  // than once per (size, region): the same answer ~30 times over.
  std::vector<std::array<const PricingRule*, 4>> discounts(sizes.size());
  std::vector<bool> discounts_known(sizes.size(), false);

  const PricingRule* win_payg = find_surcharge(*owned, Pricing::kPayg);
  const PricingRule* win_spot = find_surcharge(*owned, Pricing::kSpot);
  std::shared_ptr<const PricingRule> win_payg_ref = win_payg ? share(win_payg) : nullptr;
  std::shared_ptr<const PricingRule> win_spot_ref = win_spot ? share(win_spot) : nullptr;
  const size_t n_listed = out.size();
  for (size_t i = 0; i < n_listed; ++i) {
    // Stays valid: `out` never grows past the capacity reserved above.
    const Offer& base = out[i];
    if (base.os != Os::kLinux || base.pricing != Pricing::kPayg || !base.usd_per_hour) continue;
    auto sit = size_by_name.find(base.size);
    if (sit == size_by_name.end()) continue;
    const VmSize& size = sizes[sit->second];
    cur = &slots_of(base);
    const double payg = *base.usd_per_hour;
    const double vcpus = size.vcpus;
    const std::string estimated_source = "estimated from " + base.source;

    // An offer for (os, p) derived from `base`: same size, region and dates.
    auto derived = [&](Os os, Pricing p) {
      Offer o;
      o.size = base.size;
      o.region = base.region;
      o.os = os;
      o.pricing = p;
      o.as_of = base.as_of;
      o.retrieved = base.retrieved;
      return o;
    };
    auto estimate = [&](Os os, Pricing p, double usd, EstimateRule rule) {
      if ((*cur)[slot(os, p)] >= 0) return;  // listed: skip building the offer
      Offer o = derived(os, p);
      o.usd_per_hour = usd;
      o.source = estimated_source;
      o.estimated = true;
      o.rule = std::move(rule);
      add(std::move(o));
    };
    auto no_price = [&](Os os, Pricing p, std::string why, bool not_offered = false) {
      if ((*cur)[slot(os, p)] >= 0) return;
      Offer o = derived(os, p);
      o.source = std::move(why);
      o.not_offered = not_offered;
      add(std::move(o));
    };
    using Kind = EstimateRule::Kind;

    // Windows: none on Arm64 sizes (no x64 Windows Server image runs there).
    if (is_arm64(size)) {
      no_price(Os::kWindows, Pricing::kPayg,
               "Arm64 (Grace CPU): the Windows Server images are x64 only");
      no_price(Os::kWindows, Pricing::kSpot,
               "Arm64 (Grace CPU): the Windows Server images are x64 only");
    }
    // Windows: none where the size's documentation lists Linux images only.
    bool linux_only = false;
    for (Pricing p : {Pricing::kPayg, Pricing::kSpot}) {
      if (const PricingRule* no = find_no_windows(*owned, size, p)) {
        no_price(Os::kWindows, p, "Linux only: " + no->notes + " (" + no->source + ")", true);
        linux_only = true;
      }
    }
    // Windows payg.
    if (win_payg && !is_arm64(size) && !linux_only) {
      estimate(
          Os::kWindows, Pricing::kPayg, payg + win_payg->value * vcpus,
          EstimateRule(Kind::kWindowsPayg, win_payg_ref, payg, size.vcpus, Pricing::kPayg, true));
    }
    // Windows spot, only from a known Linux spot price.
    const Offer* spot = find(Os::kLinux, Pricing::kSpot);
    if (is_arm64(size) || linux_only) {
      // no Windows spot either (said above)
    } else if (win_spot && spot && spot->usd_per_hour) {
      estimate(Os::kWindows, Pricing::kSpot, *spot->usd_per_hour + win_spot->value * vcpus,
               EstimateRule(Kind::kWindowsSpot, win_spot_ref, *spot->usd_per_hour, size.vcpus,
                            Pricing::kSpot, true));
    } else if (spot) {
      no_price(Os::kWindows, Pricing::kSpot, "no Linux spot price to derive a Windows one from");
    }
    // Commitments: none for sizes that cannot be reserved.
    if (!size.reservable) continue;
    if (!discounts_known[sit->second]) {
      for (size_t k = 0; k < 4; ++k) {
        discounts[sit->second][k] = find_discount_rule(*owned, size, kCommitments[k]);
      }
      discounts_known[sit->second] = true;
    }
    for (size_t k = 0; k < 4; ++k) {
      const Pricing p = kCommitments[k];
      const Offer* linux_listed = find(Os::kLinux, p);
      double linux_price = 0;
      bool listed_price = false;
      // A commitment the data says Azure does not sell for this size (no
      // savingsPlan on its meters in any capture) is no offer, not an
      // estimate at the default discount.
      if (!(linux_listed && linux_listed->usd_per_hour)) {
        if (const PricingRule* n = find_not_offered(*owned, size, p)) {
          const std::string why = "not offered: " + n->notes + " (" + n->source + ")";
          no_price(Os::kLinux, p, why, true);
          no_price(Os::kWindows, p, why, true);
          continue;
        }
      }
      if (linux_listed && linux_listed->usd_per_hour) {
        linux_price = *linux_listed->usd_per_hour;
        listed_price = true;
      } else if (const PricingRule* d = discounts[sit->second][k]) {
        linux_price = payg * (1 - d->value);
        estimate(Os::kLinux, p, linux_price,
                 EstimateRule(Kind::kCommitment, share(d), payg, size.vcpus, p, true));
      } else {
        continue;
      }
      if (linux_only) {
        no_price(Os::kWindows, p, "Linux only: no Windows image for the size", true);
      } else if (win_payg && !is_arm64(size)) {
        estimate(Os::kWindows, p, linux_price + win_payg->value * vcpus,
                 EstimateRule(Kind::kWindowsCommitment, win_payg_ref, linux_price, size.vcpus, p,
                              listed_price));
      }
    }
  }
  return out;
}

}  // namespace gpuplan::catalog::internal

namespace gpuplan::catalog {

EstimateRule::EstimateRule(Kind kind, std::shared_ptr<const internal::PricingRule> rule,
                           double base_usd_per_hour, int vcpus, Pricing pricing, bool base_listed)
    : rule_(std::move(rule)),
      base_usd_per_hour_(base_usd_per_hour),
      vcpus_(vcpus),
      kind_(kind),
      pricing_(pricing),
      base_listed_(base_listed) {}

std::string EstimateRule::text() const {
  using internal::percent;
  if (kind_ == Kind::kNone || !rule_) return "";
  const internal::PricingRule& r = *rule_;
  switch (kind_) {
    case Kind::kNone:
      break;
    case Kind::kWindowsPayg:
      return "linux payg " + format::usd(base_usd_per_hour_) + " + " + format::usd(r.value) +
             "/vCPU-h x " + std::to_string(vcpus_) + " vCPU Windows licence (" + r.source + ")";
    case Kind::kWindowsSpot:
      return "linux spot " + format::usd(base_usd_per_hour_) + " + " + format::usd(r.value) +
             "/vCPU-h x " + std::to_string(vcpus_) + " vCPU Windows spot licence (" + r.source +
             ")";
    case Kind::kCommitment:
      return "linux payg " + format::usd(base_usd_per_hour_) + " x (1 - " + percent(r.value) +
             ") " + std::string(to_string(pricing_)) + " discount, " + internal::rule_scope(r) +
             " (" + r.source + ")";
    case Kind::kWindowsCommitment:
      return std::string(to_string(pricing_)) + " linux " + format::usd(base_usd_per_hour_) + " (" +
             (base_listed_ ? "listed" : "estimated") + ") + " + format::usd(r.value) +
             "/vCPU-h x " + std::to_string(vcpus_) +
             " vCPU Windows licence at payg, which commitments do not cover (" + r.source + ")";
  }
  return "";
}

}  // namespace gpuplan::catalog
