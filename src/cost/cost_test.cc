// Every cost line against arithmetic done by hand from data/cost/rates.csv
// (the embedded copy) and a small catalog built here.
#include "cost/cost.h"

#include <cmath>
#include <numeric>

#include <gtest/gtest.h>

#include "cost/growth.h"

namespace gpuplan::cost {
namespace {

using catalog::Offer;
using catalog::Os;
using catalog::Pricing;

Offer offer(std::string size, std::string region, Os os, Pricing p, std::optional<double> usd) {
  Offer o;
  o.size = std::move(size);
  o.region = std::move(region);
  o.os = os;
  o.pricing = p;
  o.usd_per_hour = usd;
  o.source = "test";
  o.as_of = "2026-05-20";
  return o;
}

// NC40ads_H100_v5 (40 vCPUs): eastus payg 6.98 Linux / 9.00 Windows, spot 2.00,
// reserved-1y 4.50, savings-1y 5.50; centralindia payg Linux 7.50 only;
// NC8as_T4_v3 in eastus with no price at all.
std::unique_ptr<catalog::Catalog> test_catalog() {
  catalog::Gpu h100;
  h100.model = "H100-NVL";
  catalog::VmSize s;
  s.name = "Standard_NC40ads_H100_v5";
  s.family_letter = "NC";
  s.vcpus = 40;
  s.gpu_model = "H100-NVL";
  s.gpu_count = 1;
  catalog::VmSize t4 = s;
  t4.name = "Standard_NC8as_T4_v3";
  t4.vcpus = 8;
  std::vector<Offer> offers = {
      offer(s.name, "eastus", Os::kLinux, Pricing::kPayg, 6.98),
      offer(s.name, "eastus", Os::kWindows, Pricing::kPayg, 9.00),
      offer(s.name, "eastus", Os::kLinux, Pricing::kSpot, 2.00),
      offer(s.name, "eastus", Os::kLinux, Pricing::kReserved1y, 4.50),
      offer(s.name, "eastus", Os::kLinux, Pricing::kSavings1y, 5.50),
      offer(s.name, "centralindia", Os::kLinux, Pricing::kPayg, 7.50),
      offer(t4.name, "eastus", Os::kLinux, Pricing::kPayg, std::nullopt),
  };
  return catalog::Catalog::from_parts({h100}, {s, t4}, offers);
}

class CostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto r = Rates::load_embedded();
    ASSERT_TRUE(r) << r.error().to_string();
    rates_ = std::move(*r);
    auto u = default_usage(rates_);
    ASSERT_TRUE(u) << u.error().to_string();
    usage_ = *u;
    catalog_ = test_catalog();
    size_ = catalog_->find_size("Standard_NC40ads_H100_v5");
    ASSERT_NE(size_, nullptr);
  }
  CostBreakdown run(std::string_view region, Pricing p, const Usage& u) {
    auto b = cost(*catalog_, rates_, *size_, region, p, u);
    EXPECT_TRUE(b) << b.error().to_string();
    return b ? *b : CostBreakdown{};
  }
  static double line(const CostBreakdown& b, std::string_view name) {
    for (const CostLine& l : b.lines) {
      if (l.name == name) return l.usd;
    }
    ADD_FAILURE() << "no line " << name;
    return -1;
  }
  static std::string text(const CostBreakdown& b, std::string_view name) {
    for (const CostLine& l : b.lines) {
      if (l.name == name) return l.assumption;
    }
    ADD_FAILURE() << "no line " << name;
    return "";
  }
  static bool has_line(const CostBreakdown& b, std::string_view name) {
    for (const CostLine& l : b.lines) {
      if (l.name == name) return true;
    }
    return false;
  }
  static double sum(const CostBreakdown& b) {
    double s = 0;
    for (const CostLine& l : b.lines) s += l.usd;
    return s;
  }
  // No disks, no setup, no rounding: isolates the compute meters.
  Usage bare() const {
    Usage u = usage_;
    u.os_disk_tier = "";
    u.data_disk_gib = 0;
    u.setup_hours = 0;
    u.billing_minimum_seconds = 0;
    return u;
  }

  Rates rates_;
  Usage usage_;
  std::unique_ptr<catalog::Catalog> catalog_;
  const catalog::VmSize* size_ = nullptr;
};

TEST_F(CostTest, EmbeddedDefaultsAreTheDocumentedRates) {
  EXPECT_DOUBLE_EQ(usage_.eviction.rate_per_hour, 0.05);
  EXPECT_DOUBLE_EQ(usage_.eviction.rate_high_per_hour, 0.20);
  EXPECT_DOUBLE_EQ(usage_.eviction.restart_hours, 0.25);
  EXPECT_DOUBLE_EQ(usage_.eviction.checkpoint_interval_hours, 1.0);
  EXPECT_DOUBLE_EQ(usage_.setup_hours, 0.25);
  EXPECT_DOUBLE_EQ(usage_.billing_minimum_seconds, 300);
  EXPECT_DOUBLE_EQ(usage_.billing_granularity_seconds, 1);
  EXPECT_EQ(usage_.os_disk_tier, "P10");
  EXPECT_DOUBLE_EQ(usage_.data_disk_gib, 512);
  for (const Rate& r : rates_.rows()) EXPECT_FALSE(r.source.empty()) << r.name;
  EXPECT_EQ(rates_.geography("eastus"), "north-america");
  EXPECT_EQ(rates_.geography("WestEurope"), "europe");
  EXPECT_EQ(rates_.geography("nowhere"), "");
}

TEST_F(CostTest, PaygLinuxEveryLine) {
  Usage u = usage_;
  u.count = 2;
  u.work_hours = 10;
  CostBreakdown b = run("eastus", Pricing::kPayg, u);
  // wall = 0.25 setup + 10 work = 10.25 h = 36,900 s: no rounding, above the 300 s minimum.
  EXPECT_DOUBLE_EQ(b.hours.wall_hours, 10.25);
  EXPECT_DOUBLE_EQ(b.hours.billed_hours, 10.25);
  // compute: 2 VMs x $6.98 x 10 h = $139.60
  EXPECT_NEAR(line(b, "compute"), 139.60, 1e-9);
  // setup: 2 x $6.98 x 0.25 h = $3.49
  EXPECT_NEAR(line(b, "setup (idle)"), 3.49, 1e-9);
  // OS disk: P10 eastus $19.71/month; 2 x 19.71 x 10.25 / 730 = $0.5535
  EXPECT_NEAR(line(b, "os disk"), 0.5535, 1e-9);
  // data disk: 512 GiB Premium SSD, billed as P20 eastus $73.22/month;
  // 2 x 73.22 x 10.25 / 730 = $2.0561781
  EXPECT_NEAR(line(b, "data disk"), 73.22 * 2 * 10.25 / 730, 1e-9);
  EXPECT_FALSE(has_line(b, "windows licence"));
  EXPECT_FALSE(has_line(b, "spot eviction overhead"));
  EXPECT_FALSE(has_line(b, "billing minimum"));
  // total 139.60 + 3.49 + 0.5535 + 2.0561781
  EXPECT_NEAR(b.total_usd(), 139.60 + 3.49 + 0.5535 + 73.22 * 2 * 10.25 / 730, 1e-9);
  EXPECT_NEAR(sum(b), b.total_usd(), 1e-9);
  EXPECT_DOUBLE_EQ(b.numbers.low_usd, b.numbers.total_usd);
  EXPECT_DOUBLE_EQ(b.numbers.high_usd, b.numbers.total_usd);
  // all VMs: 2 x 6.98
  EXPECT_NEAR(b.numbers.usd_per_hour, 13.96, 1e-9);
  EXPECT_EQ(b.quote.as_of, "2026-05-20");
}

TEST_F(CostTest, WindowsLicenceIsWindowsMinusLinux) {
  Usage u = bare();
  u.work_hours = 10;
  u.setup_hours = 0.25;
  u.os = Os::kWindows;
  CostBreakdown b = run("eastus", Pricing::kPayg, u);
  // compute meter: $6.98 x 10 = $69.80; licence: ($9.00 - $6.98) x 10 = $20.20
  EXPECT_NEAR(line(b, "compute"), 69.80, 1e-9);
  EXPECT_NEAR(line(b, "windows licence"), 20.20, 1e-9);
  // setup pays both meters: $9.00 x 0.25 = $2.25
  EXPECT_NEAR(line(b, "setup (idle)"), 2.25, 1e-9);
  EXPECT_NEAR(b.total_usd(), 92.25, 1e-9);
  EXPECT_NEAR(b.numbers.usd_per_hour, 9.00, 1e-9);
}

TEST_F(CostTest, HybridBenefitPaysTheLinuxRate) {
  Usage u = bare();
  u.work_hours = 10;
  u.setup_hours = 0.25;
  u.os = Os::kWindows;
  u.hybrid_benefit = true;
  CostBreakdown b = run("eastus", Pricing::kPayg, u);
  // $6.98 x 10 = $69.80, licence 0, setup $6.98 x 0.25 = $1.745
  EXPECT_NEAR(line(b, "compute"), 69.80, 1e-9);
  EXPECT_NEAR(line(b, "windows licence (hybrid benefit)"), 0.0, 1e-12);
  EXPECT_NEAR(b.total_usd(), 71.545, 1e-9);
  EXPECT_NEAR(b.numbers.usd_per_hour, 6.98, 1e-9);
}

TEST_F(CostTest, WindowsWithoutAWindowsPriceUsesThePerVcpuLicence) {
  Usage u = bare();
  u.work_hours = 10;
  u.os = Os::kWindows;
  CostBreakdown b = run("centralindia", Pricing::kPayg, u);
  // 40 vCPUs x $0.046 = $1.84/h; x 10 h = $18.40; compute $7.50 x 10 = $75.00
  EXPECT_NEAR(b.quote.licence_usd_per_hour, 1.84, 1e-9);
  EXPECT_NEAR(line(b, "windows licence"), 18.40, 1e-9);
  EXPECT_NEAR(line(b, "compute"), 75.00, 1e-9);
  EXPECT_NE(b.quote.licence_basis.find("40 vCPUs"), std::string::npos);
}

TEST_F(CostTest, ReservationAtGivenUtilizationAndWindowsLicenceOnTop) {
  Usage u = bare();
  u.work_hours = 100;
  u.utilization = 0.5;
  u.os = Os::kWindows;
  CostBreakdown b = run("eastus", Pricing::kReserved1y, u);
  // compute at the reserved rate: $4.50 x 100 h = $450
  EXPECT_NEAR(line(b, "compute"), 450.0, 1e-9);
  // half the term unused: $4.50 x 100 x (1/0.5 - 1) = $450
  EXPECT_NEAR(line(b, "unused commitment"), 450.0, 1e-9);
  // licence not covered by the reservation: payg ($9.00 - $6.98) x 100 = $202
  EXPECT_NEAR(line(b, "windows licence"), 202.0, 1e-9);
  EXPECT_NEAR(b.total_usd(), 1102.0, 1e-9);
  // per hour: 4.50 / 0.5 + 2.02 = 11.02
  EXPECT_NEAR(b.numbers.usd_per_hour, 11.02, 1e-9);
}

TEST_F(CostTest, ReservationForThisWorkAlonePaysTheWholeTerm) {
  Usage u = bare();
  u.work_hours = 100;
  CostBreakdown b = run("eastus", Pricing::kReserved1y, u);
  // 8,760 h x $4.50 = $39,420 whatever the 100 h use
  EXPECT_NEAR(b.total_usd(), 39420.0, 1e-6);
  EXPECT_NEAR(line(b, "compute") + line(b, "unused commitment"), 39420.0, 1e-6);
  // Savings plan likewise: 8,760 x $5.50 = $48,180
  CostBreakdown s = run("eastus", Pricing::kSavings1y, u);
  EXPECT_NEAR(s.total_usd(), 48180.0, 1e-6);
}

// Work longer than the term renews the commitment: one VM uses at most a
// term's hours of its reservation, and each term bought is paid in full.
// (Priced at the hourly rate for every hour, 20,000 h of a 1-year
// reservation cost less than the one term plus the 11,240 h after it.)
TEST_F(CostTest, WorkLongerThanTheTermPaysWholeRenewedTerms) {
  Usage u = bare();
  u.work_hours = 20000;
  CostBreakdown b = run("eastus", Pricing::kReserved1y, u);
  // three terms: 3 x 8,760 h x $4.50 = $118,260
  EXPECT_NEAR(b.total_usd(), 118260.0, 1e-6);
  EXPECT_NEAR(line(b, "compute") + line(b, "unused commitment"), 118260.0, 1e-6);
  EXPECT_NE(text(b, "unused commitment").find("3 consecutive terms"), std::string::npos)
      << text(b, "unused commitment");
  u.work_hours = 8760;  // exactly one term
  EXPECT_NEAR(run("eastus", Pricing::kReserved1y, u).total_usd(), 39420.0, 1e-6);
  // Given a utilization, the commitment is shared and amortised instead.
  u.work_hours = 20000;
  u.utilization = 0.5;
  EXPECT_NEAR(run("eastus", Pricing::kReserved1y, u).total_usd(), 20000 * 4.5 / 0.5, 1e-6);
}

TEST_F(CostTest, SpotEvictionOverheadStretchesHoursAndGivesTheRange) {
  Usage u = bare();
  u.count = 4;
  u.work_hours = 10;
  u.setup_hours = 0.25;
  u.billing_granularity_seconds = 0;  // no rounding: keeps the arithmetic exact
  CostBreakdown b = run("eastus", Pricing::kSpot, u);
  // job eviction rate = 4 VMs x 0.05 = 0.2/h; loss per eviction = 0.25 + 1/2 = 0.75 h;
  // run = 10 / (1 - 0.2 x 0.75) = 11.764706 h; wall = 12.014706 h
  EXPECT_NEAR(b.hours.job_eviction_rate, 0.2, 1e-12);
  EXPECT_NEAR(b.hours.wall_hours, 0.25 + 10 / 0.85, 1e-9);
  // expected evictions 0.2 x 11.764706 = 2.352941
  EXPECT_NEAR(b.hours.expected_evictions, 2.0 / 0.85, 1e-9);
  // compute 4 x $2 x 10 = $80; setup 4 x $2 x 0.25 = $2;
  // evictions 4 x $2 x 1.764706 = $14.117647
  EXPECT_NEAR(line(b, "compute"), 80.0, 1e-9);
  EXPECT_NEAR(line(b, "setup (idle)"), 2.0, 1e-9);
  EXPECT_NEAR(line(b, "spot eviction overhead"), 8.0 * (10 / 0.85 - 10), 1e-9);
  EXPECT_NEAR(b.total_usd(), 82.0 + 8.0 * (10 / 0.85 - 10), 1e-9);
  // low: no eviction, 4 x $2 x 10.25 = $82; high at 0.20/VM-h: 0.8 x 0.75 = 0.6,
  // stretch 2.5, wall 0.25 + 25 = 25.25 h, 4 x $2 x 25.25 = $202
  EXPECT_NEAR(b.numbers.low_usd, 82.0, 1e-9);
  EXPECT_NEAR(b.numbers.high_usd, 202.0, 1e-9);
  EXPECT_NEAR(b.hours.wall_hours_high, 25.25, 1e-9);
  EXPECT_TRUE(b.hours.finishes);
}

TEST_F(CostTest, SpotThatNeverFinishes) {
  Usage u = bare();
  u.count = 16;
  u.work_hours = 10;
  u.eviction.rate_per_hour = 0.1;  // 1.6/h x 0.75 h = 1.2 >= 1
  HoursModel h = hours_model(u, true);
  EXPECT_FALSE(h.finishes);
  EXPECT_TRUE(hours_model(u, false).finishes);
}

TEST_F(CostTest, IndependentVmsAreNotGangEvicted) {
  Usage u = bare();
  u.count = 4;
  u.work_hours = 10;
  u.eviction.gang = false;
  HoursModel h = hours_model(u, true);
  // each VM: 0.05 x 0.75 = 0.0375; run = 10 / 0.9625
  EXPECT_NEAR(h.wall_hours, 10 / 0.9625, 1e-9);
  // 4 VMs x 0.05 x run
  EXPECT_NEAR(h.expected_evictions, 4 * 0.05 * 10 / 0.9625, 1e-9);
}

TEST_F(CostTest, BillingMinimumPerLaunch) {
  Usage u = bare();
  u.work_hours = 0.01;  // 36 s
  u.billing_minimum_seconds = 300;
  CostBreakdown b = run("eastus", Pricing::kPayg, u);
  // billed 300 s = 0.083333 h: extra (0.083333 - 0.01) x $6.98 = $0.511867
  EXPECT_NEAR(b.hours.billed_hours, 300.0 / 3600, 1e-12);
  EXPECT_NEAR(line(b, "billing minimum"), (300.0 / 3600 - 0.01) * 6.98, 1e-9);
  EXPECT_NEAR(sum(b), b.total_usd(), 1e-9);
}

TEST_F(CostTest, BillingRoundsUpToTheGranularity) {
  Usage u = bare();
  u.work_hours = 3605.0 / 3600;  // 3,605 s
  u.billing_granularity_seconds = 60;
  HoursModel h = hours_model(u, false);
  // rounded up to 61 minutes = 3,660 s
  EXPECT_NEAR(h.billed_hours, 3660.0 / 3600, 1e-12);
}

TEST_F(CostTest, EgressTiersAndInterRegionTransfer) {
  Usage u = bare();
  u.work_hours = 1;
  u.egress_internet_gb = 20000;
  auto rc = region_costs(rates_, u, "eastus");
  ASSERT_TRUE(rc);
  // 100 GB free; 10,140 GB x $0.087 = $882.18; 9,760 GB x $0.083 = $810.08
  EXPECT_NEAR(rc->egress_usd, 1692.26, 1e-9);

  u.egress_internet_gb = 0;
  u.transfer_gb = 1000;
  u.data_region = "westeurope";
  // westeurope -> eastus crosses continents: 1,000 x $0.087 = $87
  EXPECT_NEAR(region_costs(rates_, u, "eastus")->egress_usd, 87.0, 1e-9);
  // westeurope -> swedencentral, within Europe: 1,000 x $0.02 = $20
  EXPECT_NEAR(region_costs(rates_, u, "swedencentral")->egress_usd, 20.0, 1e-9);
  // same region: free
  EXPECT_NEAR(region_costs(rates_, u, "westeurope")->egress_usd, 0.0, 1e-12);
  // and it appears as a line
  CostBreakdown b = run("eastus", Pricing::kPayg, u);
  EXPECT_NEAR(line(b, "data transfer"), 87.0, 1e-9);
}

// The data disk deploy builds is the one priced: Premium SSD (Premium_LRS),
// billed at the smallest tier that holds it (512 GiB -> P20, 513 -> P30).
TEST_F(CostTest, DataDiskIsThePremiumSsdTierDeployBuilds) {
  auto def = data_disk(rates_, std::nullopt);
  ASSERT_TRUE(def);
  EXPECT_EQ(def->sku, "Premium_LRS");
  EXPECT_EQ(def->gib, 512);
  EXPECT_EQ(def->tier, "P20");
  EXPECT_EQ(data_disk(rates_, 513.0)->tier, "P30");
  EXPECT_EQ(data_disk(rates_, 4.0)->tier, "P4");
  EXPECT_EQ(data_disk(rates_, 0.0)->tier, "");
  EXPECT_FALSE(data_disk(rates_, -1.0));
  auto huge = data_disk(rates_, 40000.0);
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error().where.field, "--data-disk-gib");
  Usage u = bare();
  u.data_disk_gib = 1000;  // P30 (1024 GiB), eastus $135.17/month
  auto ea = region_costs(rates_, u, "eastus");
  ASSERT_TRUE(ea);
  EXPECT_NEAR(ea->data_disk_usd_per_vm_month, 135.17, 1e-9);
  EXPECT_NE(ea->data_disk_basis.find("billed as P30"), std::string::npos) << ea->data_disk_basis;
  // centralindia has no disk rate: eastus's, with a note
  auto ci = region_costs(rates_, u, "centralindia");
  ASSERT_TRUE(ci);
  EXPECT_NEAR(ci->data_disk_usd_per_vm_month, 135.17, 1e-9);
  EXPECT_NE(ci->data_disk_basis.find("eastus rate used"), std::string::npos);
  u.os_disk_tier = "P99";
  EXPECT_FALSE(region_costs(rates_, u, "eastus"));
}

TEST_F(CostTest, BreakEvenUtilization) {
  // reserved-1y $4.50 vs payg $6.98: pays off above 64.47 % of the term
  EXPECT_NEAR(break_even_utilization(4.50, 6.98), 0.6446991, 1e-6);
  EXPECT_GT(break_even_utilization(8.0, 6.98), 1.0);
}

TEST_F(CostTest, DeadlineMissProbability) {
  Usage u = bare();
  u.work_hours = 10;
  u.setup_hours = 0.25;
  HoursModel h = hours_model(u, true);
  // slack 12 - 10.25 = 1.75 h allows floor(1.75 / 0.75) = 2 evictions;
  // mean = 0.05 x (10 + 2 x 0.75) = 0.575; P(N > 2) = 1 - e^-0.575 (1 + 0.575 + 0.575^2/2)
  EXPECT_NEAR(deadline_miss_probability(u, h, 12.0), 0.0207177, 1e-6);
  EXPECT_DOUBLE_EQ(deadline_miss_probability(u, h, 10.0), 1.0);
  EXPECT_DOUBLE_EQ(deadline_miss_probability(u, hours_model(u, false), 12.0), 0.0);
  // Four VMs evicted independently, pulling items from one queue: each
  // loss is shared by the four, so the slack holds floor(1.75 x 4 / 0.75) =
  // 9 evictions arriving at 4 x 0.05; mean 0.2 x (10 + 9 x 0.75 / 4) =
  // 2.3375, P(N > 9). One VM's figure (2.1 %) was printed for any count.
  u.count = 4;
  u.eviction.gang = false;
  h = hours_model(u, true);
  EXPECT_NEAR(deadline_miss_probability(u, h, 12.0), 0.000164, 1e-5);
  u.eviction.gang = true;  // a gang stops whole: 4 x the rate, no sharing
  EXPECT_GT(deadline_miss_probability(u, hours_model(u, true), 12.0), 0.2);
}

TEST_F(CostTest, NoListedPriceIsNotFreeButNotFound) {
  const catalog::VmSize* t4 = catalog_->find_size("Standard_NC8as_T4_v3");
  ASSERT_NE(t4, nullptr);
  auto b = cost(*catalog_, rates_, *t4, "eastus", Pricing::kPayg, usage_);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().code, ErrorCode::kNotFound);
  auto r = cost(*catalog_, rates_, *size_, "westus", Pricing::kPayg, usage_);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("no listed payg linux price"), std::string::npos);
}

TEST_F(CostTest, BadUsageIsInvalidArgument) {
  Usage u = usage_;
  u.count = 0;
  EXPECT_EQ(cost(*catalog_, rates_, *size_, "eastus", Pricing::kPayg, u).error().code,
            ErrorCode::kInvalidArgument);
  u = usage_;
  u.utilization = 1.5;
  EXPECT_EQ(cost(*catalog_, rates_, *size_, "eastus", Pricing::kReserved1y, u).error().code,
            ErrorCode::kInvalidArgument);
}

TEST_F(CostTest, FastPathAgreesWithTheLines) {
  // The planner ranks by cost_total() and quote_offers(with_text=false); the
  // printed breakdown must be the same number for every pricing and OS.
  for (Pricing p : catalog::kAllPricing) {
    for (Os os : {Os::kLinux, Os::kWindows}) {
      Usage u = usage_;
      u.count = 3;
      u.work_hours = 7.3;
      u.os = os;
      auto full = cost(*catalog_, rates_, *size_, "eastus", p, u);
      if (!full) continue;
      OfferSet set{catalog_->offer(size_->name, "eastus", Os::kLinux, p),
                   catalog_->offer(size_->name, "eastus", Os::kWindows, p),
                   catalog_->offer(size_->name, "eastus", Os::kLinux, Pricing::kPayg),
                   catalog_->offer(size_->name, "eastus", Os::kWindows, Pricing::kPayg)};
      auto q = quote_offers(set, *size_, p, os, false, 0.046, false);
      ASSERT_TRUE(q);
      EXPECT_TRUE(q->source.empty());
      HoursModel h = hours_model(u, p == Pricing::kSpot);
      auto rc = region_costs(rates_, u, "eastus");
      ASSERT_TRUE(rc);
      EXPECT_EQ(cost_total(*q, u, h, *rc), full->total_usd());
    }
  }
}

// A listed Windows commitment price (a Windows item's savingsPlan) is what
// Azure charges: the quote's total is it, listed, even when the Linux
// commitment beside it is an estimate (catalog listed 4.00, cost and plan
// rebuilt 4.32 from payg prices and called it an estimate).
TEST_F(CostTest, AListedWindowsCommitmentIsTheQuotesTotal) {
  Offer linux_sp = offer(size_->name, "eastus", Os::kLinux, Pricing::kSavings1y, 5.00);
  linux_sp.estimated = true;
  Offer windows_sp = offer(size_->name, "eastus", Os::kWindows, Pricing::kSavings1y, 6.20);
  windows_sp.as_of = "2026-09-01";
  Offer linux_payg = offer(size_->name, "eastus", Os::kLinux, Pricing::kPayg, 6.98);
  Offer windows_payg = offer(size_->name, "eastus", Os::kWindows, Pricing::kPayg, 9.00);
  OfferSet set{&linux_sp, &windows_sp, &linux_payg, &windows_payg};
  auto q = quote_offers(set, *size_, Pricing::kSavings1y, Os::kWindows, false, 0.046, true);
  ASSERT_TRUE(q);
  EXPECT_NEAR(q->compute_usd_per_hour + q->licence_usd_per_hour, 6.20, 1e-12);
  EXPECT_FALSE(q->estimated);
  EXPECT_EQ(q->as_of, "2026-09-01");
  // An estimated Windows commitment is not used: the licence is the payg
  // difference on the Linux commitment (5.00 + 2.02).
  windows_sp.estimated = true;
  auto e = quote_offers(set, *size_, Pricing::kSavings1y, Os::kWindows, false, 0.046, true);
  ASSERT_TRUE(e);
  EXPECT_NEAR(e->compute_usd_per_hour + e->licence_usd_per_hour, 5.00 + (9.00 - 6.98), 1e-12);
  EXPECT_TRUE(e->estimated);
}

// A Windows quote split from a listed Linux price and an estimated Windows
// one is an estimate (it was shown as "listed" with the import's date): the
// Windows spot price the catalog derives when no Windows spot meter is
// listed, and the commitments' licence from an estimated payg Windows.
TEST_F(CostTest, AnEstimatedWindowsPriceMakesTheWindowsQuoteAnEstimate) {
  Offer linux_spot = offer(size_->name, "eastus", Os::kLinux, Pricing::kSpot, 2.00);
  Offer windows_spot = offer(size_->name, "eastus", Os::kWindows, Pricing::kSpot, 2.34);
  windows_spot.estimated = true;
  OfferSet spot{&linux_spot, &windows_spot, nullptr, nullptr};
  auto q = quote_offers(spot, *size_, Pricing::kSpot, Os::kWindows, false, 0.046, true);
  ASSERT_TRUE(q);
  EXPECT_TRUE(q->estimated);
  EXPECT_NE(q->rule.find("estimated Windows price"), std::string::npos) << q->rule;
  EXPECT_NE(q->licence_basis.find("the Windows price is estimated"), std::string::npos)
      << q->licence_basis;
  // Both listed: a listed quote.
  windows_spot.estimated = false;
  q = quote_offers(spot, *size_, Pricing::kSpot, Os::kWindows, false, 0.046, true);
  ASSERT_TRUE(q);
  EXPECT_FALSE(q->estimated);
  EXPECT_TRUE(q->rule.empty());
  // A reservation: listed Linux compute, licence from an estimated payg Windows.
  Offer linux_1y = offer(size_->name, "eastus", Os::kLinux, Pricing::kReserved1y, 4.50);
  Offer linux_payg = offer(size_->name, "eastus", Os::kLinux, Pricing::kPayg, 6.98);
  Offer windows_payg = offer(size_->name, "eastus", Os::kWindows, Pricing::kPayg, 8.82);
  windows_payg.estimated = true;
  OfferSet reserved{&linux_1y, nullptr, &linux_payg, &windows_payg};
  q = quote_offers(reserved, *size_, Pricing::kReserved1y, Os::kWindows, false, 0.046, true);
  ASSERT_TRUE(q);
  EXPECT_TRUE(q->estimated);
  EXPECT_NEAR(q->licence_usd_per_hour, 8.82 - 6.98, 1e-9);
}

TEST_F(CostTest, CostSizeAtUtilization) {
  auto sc = cost_size(*catalog_, rates_, *size_, "eastus", Os::kLinux, false, std::nullopt, 0.5);
  ASSERT_TRUE(sc) << sc.error().to_string();
  ASSERT_EQ(sc->rows.size(), 6u);
  // 50 % of 730 h = 365 h; payg 365 x $6.98 = $2,547.70
  EXPECT_DOUBLE_EQ(sc->hours, 365);
  ASSERT_TRUE(sc->rows[0].breakdown);
  EXPECT_NEAR(sc->rows[0].breakdown->total_usd(), 2547.70, 1e-9);
  // spot: 365 x $2.00 = $730 (no eviction overhead in this view)
  EXPECT_NEAR(sc->rows[1].breakdown->total_usd(), 730.0, 1e-9);
  // reserved-1y at 50 %: 365 x $4.50 / 0.5 = $3,285 (= the whole month); break-even 4.50/6.98
  EXPECT_NEAR(sc->rows[2].breakdown->total_usd(), 3285.0, 1e-9);
  ASSERT_TRUE(sc->rows[2].break_even_utilization);
  EXPECT_NEAR(*sc->rows[2].break_even_utilization, 4.50 / 6.98, 1e-12);
  // reserved-3y has no price here: reported, not free
  EXPECT_FALSE(sc->rows[3].breakdown);
  EXPECT_NE(sc->rows[3].missing.find("no listed reserved-3y"), std::string::npos);
  // savings-1y: 365 x 5.50 / 0.5 = $4,015
  EXPECT_NEAR(sc->rows[4].breakdown->total_usd(), 4015.0, 1e-9);
  EXPECT_FALSE(sc->rows[0].break_even_utilization);
}

TEST_F(CostTest, CostSizeForGivenHoursPaysTheWholeTerm) {
  auto sc = cost_size(*catalog_, rates_, *size_, "eastus", Os::kLinux, false, 100.0, std::nullopt);
  ASSERT_TRUE(sc);
  // payg 100 x $6.98 = $698; reserved-1y bought for 100 h: 8,760 x $4.50 = $39,420
  EXPECT_NEAR(sc->rows[0].breakdown->total_usd(), 698.0, 1e-9);
  EXPECT_NEAR(sc->rows[2].breakdown->total_usd(), 39420.0, 1e-6);
  EXPECT_FALSE(cost_size(*catalog_, rates_, *size_, "eastus", Os::kLinux, false, 1.0, 0.5));
  EXPECT_FALSE(
      cost_size(*catalog_, rates_, *size_, "eastus", Os::kLinux, false, -1.0, std::nullopt));
  auto nowhere =
      cost_size(*catalog_, rates_, *size_, "westus", Os::kLinux, false, std::nullopt, std::nullopt);
  ASSERT_FALSE(nowhere);
  EXPECT_EQ(nowhere.error().code, ErrorCode::kNotFound);
}

TEST(RatesTest, ParseErrorsNameLineAndColumn) {
  std::string header = "name,key,region,value,unit,as_of,confidence,source,notes\n";
  auto r = Rates::parse(header + "a,,all,-1,x,2026,listed,src,\n", "region,geography\n", "r.csv",
                        "g.csv");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.error().where.file, "r.csv");
  EXPECT_EQ(r.error().where.line, 2);
  EXPECT_EQ(r.error().where.field, "value");
  auto nosrc = Rates::parse(header + "a,,all,1,x,2026,listed,,\n", "region,geography\n");
  ASSERT_FALSE(nosrc);
  EXPECT_EQ(nosrc.error().where.field, "source");
  auto text = Rates::parse(header + "a,,all,abc,x,2026,listed,s,\n", "region,geography\n");
  ASSERT_FALSE(text);
}

// +50 % a week for 4 weeks: F = 1.5^4 = 5.0625, mean = (F - 1) / ln F =
// 4.0625 / 1.62186 = 2.5049 (the closed form of the mean of (1+g)^(t/168));
// checked against a 1-hour Riemann sum, which needs no calculus.
TEST(Growth, MeanFactorIsTheIntegralOfCompoundGrowth) {
  EXPECT_NEAR(mean_growth_factor(0.5, 4 * 168), 4.0625 / std::log(5.0625), 1e-12);
  EXPECT_NEAR(mean_growth_factor(0.5, 4 * 168), 2.5049, 1e-4);
  double sum = 0;
  for (int h = 0; h < 4 * 168; ++h) sum += growth_factor(0.5, h + 0.5);
  EXPECT_NEAR(mean_growth_factor(0.5, 4 * 168), sum / (4 * 168), 1e-4);
  EXPECT_EQ(mean_growth_factor(0, 730), 1.0);
  EXPECT_EQ(mean_growth_factor(0.5, 0), 1.0);
  EXPECT_NEAR(growth_factor(0.5, 168), 1.5, 1e-12);
}

// A 1-year reservation whose rate is 60 % of pay-as-you-go pays when busy at
// least 60 % of its term: bought now for capacity the demand reaches at week
// t, it is busy (52.14 - t) / 52.14 of the year, so t <= 52.14 x 0.4 = 20.9.
TEST(Growth, ReservationPaysForCapacityReachedEarlyEnough) {
  EXPECT_NEAR(reservation_pays_until_weeks(8760, 0.6), 8760.0 / 168 * 0.4, 1e-9);
  EXPECT_EQ(reservation_pays_until_weeks(8760, 1.0), 0);
  EXPECT_EQ(reservation_pays_until_weeks(8760, 1.3), 0);
  EXPECT_NEAR(reservation_pays_until_weeks(8760, 0), 8760.0 / 168, 1e-9);
}

}  // namespace
}  // namespace gpuplan::cost

namespace gpuplan::cost {
namespace {

// Blob storage is priced only from a given price; without one it says so and
// adds nothing (never a made-up number). Capacity is billed per GB-month, so
// 1,000 GB at $0.02 for half a month (365 h) is $10.
TEST(BlobStorage, PricedOnlyWhenAPriceIsGiven) {
  Usage u;
  u.blob_gb = 1000;
  u.blob_what = "dataset";
  auto none = blob_storage(u);
  ASSERT_TRUE(none) << none.error().to_string();
  EXPECT_FALSE(none->priced);
  EXPECT_EQ(none->usd_per_month, 0);
  EXPECT_NE(none->basis.find("no listed price"), std::string::npos);
  u.blob_usd_per_gb_month = 0.02;
  u.blob_price_source = "--blob-usd-per-gb-month";
  auto priced = blob_storage(u);
  ASSERT_TRUE(priced);
  EXPECT_TRUE(priced->priced);
  EXPECT_DOUBLE_EQ(priced->usd_per_month, 20);
  const CostFactors f = cost_factors(catalog::Pricing::kPayg, u, 365, 365);
  RegionCosts rc;
  rc.blob = *priced;
  EXPECT_NEAR(apply_factors(f, 0, 0, rc), 10, 1e-9);
  u.blob_tier = "archive";
  EXPECT_FALSE(blob_storage(u));
  u.blob_tier = "cool";
  u.blob_gb = -1;
  EXPECT_FALSE(blob_storage(u));
}

// An imported Retail Prices Storage page prices the option's region: its LRS
// bands for the tier, graduated; a given price still wins; a region the page
// does not list says so instead of borrowing another region's price.
TEST(BlobStorage, ImportedPricesPriceTheRegionTheyList) {
  Usage u;
  u.blob_gb = 60000;
  u.blob_what = "dataset";
  catalog::BlobPrice hot;
  hot.region = "eastus2";
  hot.tier = "hot";
  hot.redundancy = "LRS";
  hot.bands = {{0, 0.0184}, {51200, 0.0177}};
  hot.as_of = "2017-02-03";
  hot.source = "Azure Retail Prices API, imported 2026-12-03 (storage.json)";
  catalog::BlobPrice grs = hot;
  grs.redundancy = "GRS";
  grs.bands = {{0, 0.0368}};
  u.blob_prices = {grs, hot};
  auto b = blob_storage(u, "eastus2");
  ASSERT_TRUE(b) << b.error().to_string();
  EXPECT_TRUE(b->priced);
  EXPECT_NEAR(b->usd_per_month, 51200 * 0.0184 + 8800 * 0.0177, 1e-9);
  EXPECT_NE(b->basis.find("storage.json"), std::string::npos) << b->basis;
  EXPECT_NE(b->basis.find("effective 2017-02-03"), std::string::npos) << b->basis;
  auto elsewhere = blob_storage(u, "westeurope");
  ASSERT_TRUE(elsewhere);
  EXPECT_FALSE(elsewhere->priced);
  EXPECT_NE(elsewhere->basis.find("no listed price in westeurope"), std::string::npos)
      << elsewhere->basis;
  // Past the last band's start every GB is at its rate: 600,000 GB spans three.
  u.blob_prices[1].bands.push_back({512000, 0.017});
  u.blob_gb = 600000;
  EXPECT_NEAR(blob_storage(u, "eastus2")->usd_per_month,
              51200 * 0.0184 + (512000 - 51200) * 0.0177 + 88000 * 0.017, 1e-6);
  u.blob_tier = "cool";  // no cool band imported
  EXPECT_FALSE(blob_storage(u, "eastus2")->priced);
  u.blob_tier = "hot";
  u.blob_usd_per_gb_month = 0.01;
  u.blob_price_source = "--blob-usd-per-gb-month";
  EXPECT_DOUBLE_EQ(blob_storage(u, "eastus2")->usd_per_month, 6000);
}

}  // namespace
}  // namespace gpuplan::cost
