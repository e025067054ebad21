// The price of a VM per hour, split into Azure's two meters: the compute
// meter (the Linux price, which reservations and savings plans discount)
// and the Windows licence meter (Windows − Linux, or rates.csv's per-vCPU
// figure when the catalog lacks one of them; 0 with Hybrid Benefit). cost.cc's
// essay has the whole model; this file only turns listed offers into a quote.
#include <algorithm>

#include "cost/internal/cost_text.h"

namespace gpuplan::cost {

using internal::is_commitment;
using internal::rate_text;

// ------------------------------------------------------------------ quote

bool linux_only(const OfferSet& offers) {
  return offers.windows_payg && offers.windows_payg->not_offered;
}

namespace {

// "; Windows estimated: RULE" when the Windows price of a licence split is
// the catalog's estimate rather than a listed meter.
std::string estimate_note(const catalog::Offer& windows, const catalog::Offer& linux) {
  if (!windows.estimated || linux.estimated) return windows.estimated ? "; both estimated" : "";
  const std::string rule = windows.rule.text();
  return "; the Windows price is estimated" + (rule.empty() ? "" : ": " + rule);
}
}  // namespace

std::optional<PriceQuote> quote_offers(const OfferSet& offers, const catalog::VmSize& size,
                                       catalog::Pricing pricing, catalog::Os os,
                                       bool hybrid_benefit, double licence_usd_per_vcpu_hour,
                                       bool with_text) {
  using catalog::Os;
  // No Windows on Arm64 sizes, Hybrid Benefit or not: the Windows Server
  // images are x64 only (catalog::is_arm64).
  if (os == Os::kWindows && catalog::is_arm64(size)) return std::nullopt;
  // Nor on sizes whose documentation lists Linux images only: the catalog
  // marks their Windows pay-as-you-go offer not offered (no_windows rule).
  if (os == Os::kWindows && linux_only(offers)) return std::nullopt;
  auto priced = [](const catalog::Offer* o) { return o && o->usd_per_hour ? o : nullptr; };
  const catalog::Offer* linux = priced(offers.linux);
  PriceQuote q;
  q.pricing = pricing;
  auto fill = [&](const catalog::Offer& o) {
    q.compute_usd_per_hour = *o.usd_per_hour;
    q.estimated = o.estimated;
    if (with_text) {
      q.source = o.source;
      q.as_of = o.as_of;
      q.rule = o.rule.text();
    }
  };
  if (os == Os::kLinux || hybrid_benefit) {
    if (!linux) return std::nullopt;
    fill(*linux);
    if (os == Os::kWindows && with_text) {
      q.licence_basis = "Hybrid Benefit: the Windows VM pays the Linux compute meter only";
    }
    return q;
  }
  auto vcpu_licence = [&]() {
    q.licence_usd_per_hour = licence_usd_per_vcpu_hour * size.vcpus;
    if (with_text) {
      q.licence_basis = std::to_string(size.vcpus) + " vCPUs x $" +
                        strings::fixed(licence_usd_per_vcpu_hour, 3) +
                        "/vCPU-h (rates.csv windows_licence_usd_per_vcpu_hour)";
    }
  };
  if (is_commitment(pricing)) {
    // Commitments discount the compute meter only; the licence is the
    // pay-as-you-go Windows surcharge on top.
    if (!linux) return std::nullopt;
    fill(*linux);
    // A listed Windows commitment price (a Windows item's savingsPlan) is
    // the total Azure charges: the discounted compute plus the licence.
    // catalog listed it while cost and plan rebuilt it from payg prices.
    const catalog::Offer* wc = priced(offers.windows);
    if (wc && !wc->estimated && *wc->usd_per_hour >= *linux->usd_per_hour) {
      q.licence_usd_per_hour = *wc->usd_per_hour - *linux->usd_per_hour;
      // The total is the listed price, however the Linux part was found.
      q.estimated = false;
      if (with_text) {
        q.source = wc->source;
        q.as_of = wc->as_of;
        q.rule.clear();
      }
      if (with_text)
        q.licence_basis = "listed Windows " + std::string(catalog::to_string(pricing)) + " " +
                          rate_text(*wc->usd_per_hour) + " - Linux " +
                          rate_text(*linux->usd_per_hour) + " (" + wc->source + ")";
      return q;
    }
    const catalog::Offer* w = priced(offers.windows_payg);
    const catalog::Offer* l = priced(offers.linux_payg);
    if (w && l && *w->usd_per_hour >= *l->usd_per_hour) {
      q.licence_usd_per_hour = *w->usd_per_hour - *l->usd_per_hour;
      // A licence from an estimated price is an estimate too.
      q.estimated = q.estimated || w->estimated || l->estimated;
      if (with_text && q.rule.empty() && (w->estimated || l->estimated))
        q.rule =
            "the Windows licence is a difference of payg prices of which one is "
            "estimated: " +
            (w->estimated ? w->rule.text() : l->rule.text());
      if (with_text) {
        q.licence_basis = "payg Windows " + rate_text(*w->usd_per_hour) + " - payg Linux " +
                          rate_text(*l->usd_per_hour) + " (not covered by the commitment" +
                          estimate_note(*w, *l) + ")";
      }
    } else {
      vcpu_licence();
    }
    return q;
  }
  const catalog::Offer* windows = priced(offers.windows);
  if (linux && windows && *windows->usd_per_hour >= *linux->usd_per_hour) {
    fill(*linux);
    q.licence_usd_per_hour = *windows->usd_per_hour - *linux->usd_per_hour;
    // A Windows price the catalog estimated (a rule on the Linux one, when
    // no Windows meter was listed) makes the quote an estimate: it was once
    // shown as "listed" with the import's source and date.
    q.estimated = q.estimated || windows->estimated;
    if (with_text && windows->estimated && !linux->estimated)
      q.rule =
          "the Windows licence is the listed Linux price's difference from an estimated "
          "Windows price: " +
          windows->rule.text();
    if (with_text) {
      q.licence_basis = "Windows " + rate_text(*windows->usd_per_hour) + " - Linux " +
                        rate_text(*linux->usd_per_hour) + " (" + windows->source +
                        estimate_note(*windows, *linux) + ")";
    }
  } else if (linux) {
    fill(*linux);
    vcpu_licence();
  } else if (windows) {
    fill(*windows);
    if (with_text) q.licence_basis = "included in the Windows price (no Linux price to split it)";
  } else {
    return std::nullopt;
  }
  return q;
}

Result<PriceQuote> quote(const catalog::Catalog& catalog, const Rates& rates,
                         const catalog::VmSize& size, std::string_view region,
                         catalog::Pricing pricing, catalog::Os os, bool hybrid_benefit) {
  using catalog::Os;
  using catalog::Pricing;
  GPUPLAN_TRY(const Rate* per_vcpu, rates.require("windows_licence_usd_per_vcpu_hour"));
  OfferSet set;
  set.linux = catalog.offer(size.name, region, Os::kLinux, pricing);
  if (os == Os::kWindows) {
    set.windows = catalog.offer(size.name, region, Os::kWindows, pricing);
    set.linux_payg = catalog.offer(size.name, region, Os::kLinux, Pricing::kPayg);
    set.windows_payg = catalog.offer(size.name, region, Os::kWindows, Pricing::kPayg);
  }
  auto q = quote_offers(set, size, pricing, os, hybrid_benefit, per_vcpu->value, true);
  if (!q) {
    if (os == Os::kWindows && linux_only(set))
      return not_found("no Windows on " + size.name + ": " + set.windows_payg->source);
    // Not offered at all (retired, preview, reservation sales ended): say why.
    if (is_commitment(pricing) && !size.reservable) {
      return not_found(catalog::reservation_note(size) + " for " + size.name);
    }
    // A commitment the catalog's data says Azure does not sell for it.
    if (set.linux && set.linux->not_offered)
      return not_found(std::string(catalog::to_string(pricing)) + " " + set.linux->source);
    Os missing =
        (os == Os::kWindows && !hybrid_benefit && !is_commitment(pricing)) ? os : Os::kLinux;
    return not_found("no listed " + std::string(catalog::to_string(pricing)) + " " +
                     std::string(catalog::to_string(missing)) + " price for " + size.name + " in " +
                     std::string(region));
  }
  return *q;
}

}  // namespace gpuplan::cost
