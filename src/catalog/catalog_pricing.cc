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
//   * Sizes that cannot be reserved (retired, preview, retiring with
//     reservation purchases closed) get no reserved or savings offer.
// A listed price always wins: estimates only fill keys no listing holds, and
// they are recomputed from whatever payg price won (embedded or imported).
//
// Trade-offs. Discounts vary by region by a few points; one discount per size
// is simple and labelled with its source so the user can judge it, and an
// imported Reservation price replaces it. Each estimate carries its rule text
// (base price, rate, source) so it can be checked by hand.
#include <array>
#include <charconv>
#include <string>
#include <unordered_map>
#include <vector>

#include "catalog/catalog_internal.h"
#include "core/strings.h"

namespace gpuplan::catalog::internal {
namespace {

// "$6.98": 4 decimals, trailing zeros dropped. std::to_chars, not printf:
// this runs ~10k times per load.
std::string money(double v) {
  char buf[48];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 4);
  std::string s(buf, res.ptr);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.push_back('0');
  return "$" + s;
}

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

std::vector<Offer> with_estimates(const std::vector<VmSize>& sizes, std::vector<Offer> listed,
                                  const std::vector<PricingRule>& rules) {
  std::unordered_map<std::string, const VmSize*> size_by_name;
  for (const VmSize& s : sizes) size_by_name[s.name] = &s;

  // Offers by (size, region) then (os, pricing) slot. Names are canonical
  // here (embedded data, or imports canonicalised by Catalog::load), so
  // exact strings key the map; folding 10k keys would dominate the load.
  constexpr int kSlots = 2 * 6;
  auto slot = [](Os os, Pricing p) { return static_cast<int>(os) * 6 + static_cast<int>(p); };
  std::vector<Offer> out = std::move(listed);
  out.reserve(out.size() * 6);
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

  const PricingRule* win_payg = find_surcharge(rules, Pricing::kPayg);
  const PricingRule* win_spot = find_surcharge(rules, Pricing::kSpot);
  const size_t n_listed = out.size();
  for (size_t i = 0; i < n_listed; ++i) {
    // Copy: `out` grows below.
    const Offer base = out[i];
    if (base.os != Os::kLinux || base.pricing != Pricing::kPayg || !base.usd_per_hour) continue;
    auto sit = size_by_name.find(base.size);
    if (sit == size_by_name.end()) continue;
    const VmSize& size = *sit->second;
    cur = &slots_of(base);
    const double payg = *base.usd_per_hour;
    const double vcpus = size.vcpus;

    auto estimate = [&](Os os, Pricing p, double usd, std::string rule) {
      Offer o;
      o.size = base.size;
      o.region = base.region;
      o.os = os;
      o.pricing = p;
      o.usd_per_hour = usd;
      o.source = "estimated from " + base.source;
      o.as_of = base.as_of;
      o.estimated = true;
      o.rule = std::move(rule);
      add(std::move(o));
    };
    auto no_price = [&](Os os, Pricing p, std::string why) {
      Offer o;
      o.size = base.size;
      o.region = base.region;
      o.os = os;
      o.pricing = p;
      o.source = std::move(why);
      o.as_of = base.as_of;
      add(std::move(o));
    };

    // Windows payg.
    if (win_payg) {
      estimate(Os::kWindows, Pricing::kPayg, payg + win_payg->value * vcpus,
               "linux payg " + money(payg) + " + " + money(win_payg->value) + "/vCPU-h x " +
                   std::to_string(size.vcpus) + " vCPU Windows licence (" + win_payg->source + ")");
    }
    // Windows spot, only from a known Linux spot price.
    const Offer* spot = find(Os::kLinux, Pricing::kSpot);
    if (win_spot && spot && spot->usd_per_hour) {
      estimate(Os::kWindows, Pricing::kSpot, *spot->usd_per_hour + win_spot->value * vcpus,
               "linux spot " + money(*spot->usd_per_hour) + " + " + money(win_spot->value) +
                   "/vCPU-h x " + std::to_string(size.vcpus) + " vCPU Windows spot licence (" +
                   win_spot->source + ")");
    } else if (spot) {
      no_price(Os::kWindows, Pricing::kSpot, "no Linux spot price to derive a Windows one from");
    }
    // Commitments: none for sizes that cannot be reserved.
    if (!size.reservable) continue;
    for (Pricing p :
         {Pricing::kReserved1y, Pricing::kReserved3y, Pricing::kSavings1y, Pricing::kSavings3y}) {
      const Offer* linux_listed = find(Os::kLinux, p);
      double linux_price = 0;
      std::string linux_desc;
      if (linux_listed && linux_listed->usd_per_hour) {
        linux_price = *linux_listed->usd_per_hour;
        linux_desc = "listed";
      } else if (const PricingRule* d = find_discount_rule(rules, size, p)) {
        linux_price = payg * (1 - d->value);
        estimate(Os::kLinux, p, linux_price,
                 "linux payg " + money(payg) + " x (1 - " + percent(d->value) + ") " +
                     std::string(to_string(p)) + " discount, " + rule_scope(*d) + " (" + d->source +
                     ")");
        linux_desc = "estimated";
      } else {
        continue;
      }
      if (win_payg) {
        estimate(Os::kWindows, p, linux_price + win_payg->value * vcpus,
                 std::string(to_string(p)) + " linux " + money(linux_price) + " (" + linux_desc +
                     ") + " + money(win_payg->value) + "/vCPU-h x " + std::to_string(size.vcpus) +
                     " vCPU Windows licence at payg, which commitments do not cover (" +
                     win_payg->source + ")");
      }
    }
  }
  return out;
}

}  // namespace gpuplan::catalog::internal
