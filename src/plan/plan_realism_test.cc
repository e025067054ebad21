// Plans a senior engineer would sign (issue 10): special-purpose sizes only
// when asked, prices that look wrong never silently first, growth over a
// horizon, every binding quota limit. Small hand-built catalogs, so each
// expectation can be worked out by hand in its comment.
#include <cmath>

#include <gtest/gtest.h>

#include "core/strings.h"
#include "plan/internal/spot_risk.h"
#include "plan/plan.h"

namespace gpuplan::plan {
namespace {

using catalog::Offer;
using catalog::Os;
using catalog::Pricing;

Offer offer(const std::string& size, const std::string& region, Pricing p, double usd) {
  Offer o;
  o.size = size;
  o.region = region;
  o.os = Os::kLinux;
  o.pricing = p;
  o.usd_per_hour = usd;
  o.source = "test";
  o.as_of = "2026-05-20";
  return o;
}

// Every size fits; hours = gpu_hours / GPUs (perfect scaling), so the
// expectations below are easy to derive.
struct SimpleEstimator {
  double gpu_hours = 10;
  estimate::Estimate operator()(const catalog::VmSize& size, const catalog::Gpu&, int count) const {
    estimate::Estimate e;
    e.size = size.name;
    e.count = count;
    e.gpus = size.gpu_count * count;
    e.fits = true;
    e.memory_available_gib = size.gpu_memory_gib;
    e.memory_needed_gib = 1;
    e.hours = gpu_hours / e.gpus;
    e.throughput = 1000 * e.gpus;
    e.throughput_unit = "tokens/s";
    e.mfu = 0.4;
    return e;
  }
};

catalog::VmSize gpu_size(const std::string& name, const std::string& series, double gpus,
                         int vcpus) {
  catalog::VmSize s;
  s.name = name;
  s.series = series;
  s.family_letter = "NC";
  s.gpu_model = "H";
  s.gpu_count = gpus;
  s.gpu_memory_gib = 94 * gpus;
  s.vcpus = vcpus;
  s.quota_family = "standard" + series + "Family";
  return s;
}

catalog::Gpu gpu_h() {
  catalog::Gpu g;
  g.model = "H";
  g.memory_gib = 94;
  g.fp16_tflops = 800;
  return g;
}

class RealismTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto r = cost::Rates::load_embedded();
    ASSERT_TRUE(r) << r.error().to_string();
    rates_ = std::move(*r);
  }
  workload::Workload finetune() const {
    workload::Workload w;
    w.name = "t";
    w.kind = workload::Kind::kFinetune;
    return w;
  }
  cost::Rates rates_;
};

// The confidential NCC size is the cheapest, but only a workload that asks
// for confidential computing gets it — and then gets nothing else.
TEST_F(RealismTest, ConfidentialSizesAreOptIn) {
  catalog::VmSize nc = gpu_size("Standard_NC40ads_H100_v5", "NCads_H100_v5", 1, 40);
  catalog::VmSize ncc = gpu_size("Standard_NCC40ads_H100_v5", "NCCads_H100_v5", 1, 40);
  auto cat = catalog::Catalog::from_parts({gpu_h()}, {nc, ncc},
                                          {offer(nc.name, "eastus", Pricing::kPayg, 7.0),
                                           offer(ncc.name, "eastus", Pricing::kPayg, 6.0)});
  PlanOptions o;
  o.max_count = 1;
  o.pricings = {Pricing::kPayg};
  workload::Workload w = finetune();
  auto plain = make_plan(w, *cat, rates_, o, SimpleEstimator{});
  ASSERT_TRUE(plain) << plain.error().to_string();
  ASSERT_EQ(plain->options.size(), 1u);
  EXPECT_EQ(plain->options[0].size, nc.name);
  EXPECT_FALSE(plain->options[0].confidential);
  EXPECT_TRUE(plain->options[0].caveats.empty());
  bool dropped = false;
  for (const Drop& d : plain->dropped) dropped |= d.reason == "confidential size not asked";
  EXPECT_TRUE(dropped);

  w.constraints.confidential = true;
  auto conf = make_plan(w, *cat, rates_, o, SimpleEstimator{});
  ASSERT_TRUE(conf) << conf.error().to_string();
  ASSERT_EQ(conf->options.size(), 1u);
  const Option& best = conf->options[0];
  EXPECT_EQ(best.size, ncc.name);
  EXPECT_TRUE(best.confidential);
  ASSERT_EQ(best.caveats.size(), 2u);
  EXPECT_NE(best.caveats[0].find("ConfidentialVM"), std::string::npos);
  EXPECT_NE(best.caveats[1].find("cost"), std::string::npos);
  auto j = to_json(best);
  EXPECT_EQ(j["confidential"], true);
  EXPECT_EQ(j["caveats"].size(), 2u);
  bool not_conf = false;
  for (const Drop& d : conf->dropped) not_conf |= d.reason == "not confidential computing";
  EXPECT_TRUE(not_conf);
}

// Two same-GPU sizes in two regions. Pay-as-you-go per GPU: A (1 GPU) $4,
// B (2 GPUs) $10 / 2 = $5, so the payg sibling ratios are 0.8 and 1.25 and
// the fence is 0.8. Spot per GPU: B $1.20; A $1.00 in westus (ratio 0.83,
// fine) and $0.40 in eastus (ratio 0.33, flagged). A eastus's discount (90 %
// off, spot/payg 0.1) is also beyond Tukey's fence of the four spot ratios
// {0.1, 0.24, 0.24, 0.25}: Q1 0.205, Q3 0.2425, fence 0.149. The cheapest
// option (A spot eastus, 10 h x $0.40) therefore ranks after A spot westus
// (10 h x $1) and B spot (5 h x $2.40).
TEST_F(RealismTest, PriceThatLooksWrongIsNeverSilentlyFirst) {
  catalog::VmSize a = gpu_size("Standard_A1", "Aseries", 1, 8);
  catalog::VmSize b = gpu_size("Standard_B2", "Bseries", 2, 16);
  std::vector<Offer> offers;
  for (std::string r : {"eastus", "westus"}) {
    offers.push_back(offer(a.name, r, Pricing::kPayg, 4.0));
    offers.push_back(offer(b.name, r, Pricing::kPayg, 10.0));
    offers.push_back(offer(b.name, r, Pricing::kSpot, 2.4));
  }
  offers.push_back(offer(a.name, "eastus", Pricing::kSpot, 0.4));
  offers.push_back(offer(a.name, "westus", Pricing::kSpot, 1.0));
  auto cat = catalog::Catalog::from_parts({gpu_h()}, {a, b}, offers);
  PlanOptions o;
  o.max_count = 1;
  o.pricings = {Pricing::kPayg, Pricing::kSpot};
  o.top = 10;
  auto p = make_plan(finetune(), *cat, rates_, o, SimpleEstimator{});
  ASSERT_TRUE(p) << p.error().to_string();
  ASSERT_GE(p->options.size(), 2u);
  EXPECT_TRUE(p->options[0].price_warnings.empty());
  EXPECT_EQ(p->options[0].size, a.name);
  EXPECT_EQ(p->options[0].region, "westus");
  EXPECT_EQ(p->options[0].pricing, Pricing::kSpot);
  const Option& flagged = p->options.back();  // ranked after every unflagged option
  EXPECT_EQ(flagged.region, "eastus");
  EXPECT_EQ(flagged.pricing, Pricing::kSpot);
  EXPECT_EQ(flagged.size, a.name);
  ASSERT_EQ(flagged.price_warnings.size(), 2u);
  EXPECT_NE(flagged.price_warnings[0].find("90% off"), std::string::npos)
      << flagged.price_warnings[0];
  EXPECT_NE(flagged.price_warnings[1].find("33%"), std::string::npos) << flagged.price_warnings[1];
  EXPECT_LT(flagged.cost_usd, p->options[0].cost_usd);
  bool said = false;
  for (const std::string& w : p->warnings) said |= w.find("would rank first") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_EQ(to_json(flagged)["price_warnings"].size(), 2u);
  // Without the second size there is no sibling to compare with: nothing is
  // flagged (and 4 spot ratios are needed for a discount fence).
  auto alone = catalog::Catalog::from_parts(
      {gpu_h()}, {a},
      {offer(a.name, "eastus", Pricing::kPayg, 4.0), offer(a.name, "eastus", Pricing::kSpot, 0.4)});
  auto q = make_plan(finetune(), *alone, rates_, o, SimpleEstimator{});
  ASSERT_TRUE(q);
  for (const Option& opt : q->options) EXPECT_TRUE(opt.price_warnings.empty());
}

// Spot discounts: ten regions at 80 % off and one at 95 % off; Tukey's fence
// over the 11 ratios (Q1 = Q3 = 0.2) is 0.2, so only the 0.05 ratio is flagged.
TEST_F(RealismTest, SpotDiscountBeyondTheSeriesRangeIsFlagged) {
  catalog::VmSize a = gpu_size("Standard_A1", "Aseries", 1, 8);
  std::vector<Offer> offers;
  for (int r = 0; r < 11; ++r) {
    std::string region = "r" + std::to_string(r < 10 ? 10 + r : 99);
    offers.push_back(offer(a.name, region, Pricing::kPayg, 4.0));
    offers.push_back(offer(a.name, region, Pricing::kSpot, r < 10 ? 0.8 : 0.2));
  }
  auto cat = catalog::Catalog::from_parts({gpu_h()}, {a}, offers);
  PlanOptions o;
  o.max_count = 1;
  o.pricings = {Pricing::kSpot};
  o.top = 11;
  auto p = make_plan(finetune(), *cat, rates_, o, SimpleEstimator{});
  ASSERT_TRUE(p) << p.error().to_string();
  ASSERT_EQ(p->options.size(), 11u);
  for (size_t i = 0; i + 1 < p->options.size(); ++i) {
    EXPECT_TRUE(p->options[i].price_warnings.empty()) << p->options[i].region;
  }
  EXPECT_EQ(p->options.back().region, "r99");
  ASSERT_EQ(p->options.back().price_warnings.size(), 1u);
  EXPECT_NE(p->options.back().price_warnings[0].find("95% off"), std::string::npos)
      << p->options.back().price_warnings[0];
}

// A new subscription: the regional total (`cores`) 100 with 29 used binds
// before the family (200 free) does. Big (96 vCPUs, 8 GPUs, $16/h) x2 needs
// 192 vCPUs: 10 h / 16 GPUs = 0.625 h x 2 x $16 ~ $28, far below Small (8
// vCPUs, 1 GPU, $6/h: 10 h x $6 = $60), so the request names `cores` (ask
// for 29 + 192 = 221) and not the family, which has room.
TEST_F(RealismTest, QuotaRequestNamesTheRegionalTotalWhenItBinds) {
  catalog::VmSize big = gpu_size("Standard_Big", "Big", 8, 96);
  catalog::VmSize small = gpu_size("Standard_Small", "Small", 1, 8);
  auto cat =
      catalog::Catalog::from_parts({gpu_h()}, {big, small},
                                   {offer(big.name, "eastus", Pricing::kPayg, 16.0),
                                    offer(small.name, "eastus", Pricing::kPayg, 6.0)},
                                   {{"eastus", "", 100, 29, "test", "2026-05-20"},
                                    {"eastus", big.quota_family, 200, 0, "test", "2026-05-20"},
                                    {"eastus", small.quota_family, 100, 0, "test", "2026-05-20"}});
  PlanOptions o;
  o.max_count = 2;
  o.pricings = {Pricing::kPayg};
  auto p = make_plan(finetune(), *cat, rates_, o, SimpleEstimator{});
  ASSERT_TRUE(p) << p.error().to_string();
  ASSERT_FALSE(p->options.empty());
  EXPECT_EQ(p->options[0].size, small.name);
  ASSERT_FALSE(p->quota_requests.empty());
  const QuotaRequest& q = p->quota_requests[0];
  EXPECT_EQ(q.unlocks.size, big.name);
  ASSERT_EQ(q.unlocks.count, 1);  // Big x1 (96 vCPUs) already does not fit 71 free
  ASSERT_EQ(q.limits.size(), 1u);
  EXPECT_EQ(q.limits[0].scope, "regional");
  EXPECT_EQ(q.limits[0].resource, "cores");
  EXPECT_EQ(q.limits[0].limit, 100);
  EXPECT_EQ(q.limits[0].used, 29);
  EXPECT_EQ(q.limits[0].needed, 96);
  EXPECT_EQ(q.limits[0].new_limit, 125);
  EXPECT_NE(q.limits[0].command.find("--resource-name cores"), std::string::npos);
  EXPECT_EQ(q.family, "cores");  // the top-level fields follow the first binding limit
  // With the family short too, both are named, the family first.
  auto tight =
      catalog::Catalog::from_parts({gpu_h()}, {big, small},
                                   {offer(big.name, "eastus", Pricing::kPayg, 16.0),
                                    offer(small.name, "eastus", Pricing::kPayg, 6.0)},
                                   {{"eastus", "", 100, 29, "test", "2026-05-20"},
                                    {"eastus", big.quota_family, 0, 0, "test", "2026-05-20"},
                                    {"eastus", small.quota_family, 100, 0, "test", "2026-05-20"}});
  auto t = make_plan(finetune(), *tight, rates_, o, SimpleEstimator{});
  ASSERT_TRUE(t);
  ASSERT_FALSE(t->quota_requests.empty());
  ASSERT_EQ(t->quota_requests[0].limits.size(), 2u);
  EXPECT_EQ(t->quota_requests[0].limits[0].scope, "family");
  EXPECT_EQ(t->quota_requests[0].limits[0].new_limit, 96);
  EXPECT_EQ(t->quota_requests[0].limits[1].scope, "regional");
  EXPECT_EQ(to_json(*t)["quota_requests"][0]["limits"].size(), 2u);
}

// max_nodes above the default cap of 64 is honoured, and one above what a
// scale set holds is an error naming the field, never a silent cap.
TEST_F(RealismTest, MaxNodesIsHonouredNotCapped) {
  catalog::VmSize a = gpu_size("Standard_A1", "Aseries", 1, 8);
  auto cat =
      catalog::Catalog::from_parts({gpu_h()}, {a}, {offer(a.name, "eastus", Pricing::kPayg, 4.0)});
  workload::Workload w = finetune();
  w.constraints.max_nodes = 100;
  PlanOptions o;
  o.pricings = {Pricing::kPayg};
  o.objective = Objective::kTime;
  auto p = make_plan(w, *cat, rates_, o, SimpleEstimator{});
  ASSERT_TRUE(p) << p.error().to_string();
  EXPECT_EQ(p->options[0].count, 100);  // perfect scaling: the most VMs is the fastest
  w.constraints.max_nodes = kMaxVmsPerOption + 1;
  auto bad = make_plan(w, *cat, rates_, o, SimpleEstimator{});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(bad.error().where.field, "constraints.max_nodes");
  // --max-nodes replaces the workload's value.
  w.constraints.max_nodes = 100;
  o.max_count = 3;
  o.max_count_given = true;
  auto flag = make_plan(w, *cat, rates_, o, SimpleEstimator{});
  ASSERT_TRUE(flag);
  EXPECT_EQ(flag->options[0].count, 3);
}

// A serving fleet whose traffic grows 50 % a week. The fake estimator gives
// each VM 2 replicas of 1 req/s; 100 req/s today needs 50 VMs. Over 4 weeks
// the load's mean is (F - 1) / ln F with F = 1.5^4 = 5.0625: 4.0625 / 1.6219
// = 2.505 x today's; a fleet that follows it in whole VMs adds at most one
// VM-hour per hour (+1/50 = 0.02), so the month costs 2.50-2.53 x the flat
// month — within the 2.3-2.7 x that a month of 50 %/week growth implies.
struct ServingEstimator {
  estimate::Estimate operator()(const catalog::VmSize& size, const catalog::Gpu&, int count) const {
    estimate::Estimate e;
    e.size = size.name;
    e.count = count;
    e.gpus = size.gpu_count * count;
    e.memory_available_gib = 94;
    e.memory_needed_gib = 1;
    e.hours = 672;
    e.throughput = count * 2.0;
    e.throughput_unit = "requests/s";
    estimate::ServingEstimate s;
    s.gpus_per_replica = 1;
    s.replicas = 2 * count;
    s.replicas_needed = 100;
    s.vms_needed = 50;
    s.capacity_rps_per_replica = 1.0;
    s.meets_slo = count >= 50;
    e.serving = s;
    e.fits = s.meets_slo;
    if (!e.fits) e.reason = "misses SLO";
    return e;
  }
};

TEST_F(RealismTest, GrowingTrafficCostsTheMeanLoadNotTodays) {
  catalog::VmSize a = gpu_size("Standard_A2", "Aseries", 2, 16);
  auto cat = catalog::Catalog::from_parts({gpu_h()}, {a},
                                          {offer(a.name, "eastus", Pricing::kPayg, 4.0),
                                           offer(a.name, "eastus", Pricing::kReserved1y, 2.4)});
  workload::Workload w;
  w.name = "s";
  w.kind = workload::Kind::kInfer;
  w.serving.request_rate = 100;
  w.serving.duration_hours = 672;
  w.data.growth_per_week = 0.5;
  PlanOptions o;
  o.pricings = {Pricing::kPayg};
  auto p = make_plan(w, *cat, rates_, o, ServingEstimator{});
  ASSERT_TRUE(p) << p.error().to_string();
  ASSERT_TRUE(p->growth.has_value());
  const Growth& g = *p->growth;
  EXPECT_EQ(p->options[0].count, 50);
  EXPECT_EQ(g.horizon_weeks, 4);
  const double f = std::pow(1.5, 4);
  EXPECT_NEAR(g.mean_load_factor, (f - 1) / std::log(f), 1e-9);
  EXPECT_NEAR(g.flat_cost_usd, 50 * 4.0 * 672, 1e-6);
  const double ratio = g.grown_cost_usd / g.flat_cost_usd;
  EXPECT_GE(ratio, 2.3);
  EXPECT_LE(ratio, 2.7);
  EXPECT_GE(ratio, g.mean_load_factor);  // whole VMs never cost less than the load
  EXPECT_LE(ratio, g.mean_load_factor + 1.0 / 50 + 1e-9);
  ASSERT_EQ(g.weeks.size(), 4u);
  EXPECT_EQ(g.weeks[3].replicas, static_cast<int>(std::ceil(100 * f)));  // 507 replicas
  EXPECT_EQ(g.weeks[3].vms, static_cast<int>(std::ceil(std::ceil(100 * f) / 2.0)));
  // Reserved at 60 % of payg: pays for what the demand reaches within
  // 52.14 x 0.4 = 20.9 weeks — the whole horizon here.
  ASSERT_TRUE(g.reserve_pays_until_week.has_value());
  EXPECT_NEAR(*g.reserve_pays_until_week, 8760.0 / 168 * 0.4, 1e-6);
  EXPECT_EQ(g.reserve_vms, g.weeks[3].vms);
  EXPECT_NE(g.summary.find("ranking holds"), std::string::npos) << g.summary;
  EXPECT_FALSE(g.beyond_scale_set_week.has_value());  // 254 VMs by week 4
  // +1,000 % a week for 12 weeks: 3.1e12 times the load. The counts stay
  // whole and positive (an int once wrapped to -2147483648 VMs), the weeks
  // past one scale set's 1,000 VMs are flagged, and the sentence says so
  // instead of naming a scale set's cap.
  w.data.growth_per_week = 10;
  o.horizon_weeks = 12;
  auto steep = make_plan(w, *cat, rates_, o, ServingEstimator{});
  ASSERT_TRUE(steep) << steep.error().to_string();
  const Growth& sg = *steep->growth;
  ASSERT_EQ(sg.weeks.size(), 12u);
  for (const GrowthWeek& wk : sg.weeks) {
    EXPECT_GT(wk.vms, 0) << wk.week;
    EXPECT_GE(wk.replicas, wk.vms) << wk.week;
    EXPECT_EQ(wk.beyond_scale_set, wk.vms > kMaxVmsPerOption) << wk.week;
  }
  ASSERT_TRUE(sg.beyond_scale_set_week.has_value());
  EXPECT_EQ(*sg.beyond_scale_set_week, 2);  // 100 x 121 / 2 per VM = 6,050 VMs
  EXPECT_NE(sg.summary.find("more VMs than one scale set holds"), std::string::npos) << sg.summary;
  w.data.growth_per_week = 0.5;
  // --horizon-weeks replaces the workload's.
  o.horizon_weeks = 2;
  auto two = make_plan(w, *cat, rates_, o, ServingEstimator{});
  ASSERT_TRUE(two);
  EXPECT_EQ(two->growth->weeks.size(), 2u);
  // No growth: no growth section.
  w.data.growth_per_week = 0;
  auto flat = make_plan(w, *cat, rates_, PlanOptions{}, ServingEstimator{});
  ASSERT_TRUE(flat);
  EXPECT_FALSE(flat->growth.has_value());
}

// A service on spot carries spares against evictions, sized where the
// eviction range is at its worst: the ServingEstimator's 50 VMs at gpuplan's
// default range (0.05-0.20 evictions per VM-hour), each replaced in 15 min.
// With k spares the VMs down at once are Poisson((50 + k) x 0.20 x 0.25),
// and k = 7 is the least with P(X > k) <= 1 % (0.90 %; k = 6 gives 2.4 %).
// Sized at the middle, 3 spares left the fleet short 27 % of the time at
// 0.20. Pay-as-you-go keeps 50.
TEST_F(RealismTest, ServingOnSpotCarriesSparesForEvictions) {
  EXPECT_EQ(internal::serving_spares(50, 0.20).vms, 7);
  EXPECT_LT(internal::serving_spares(50, 0.20).short_probability, 0.01);
  EXPECT_EQ(internal::serving_spares(50, 0.05).vms, 3);
  EXPECT_EQ(internal::serving_spares(1, 0.01).vms, 0);    // P(X > 0) = 0.25 %
  EXPECT_EQ(internal::serving_spares(100, 0.2).vms, 12);  // Poisson(5.6): P(X > 12) = 0.5 %
  // No count of spares holds 1 % at 20 evictions an hour: the fleet doubles
  // and says how often it is short.
  const internal::ServingSpares cap = internal::serving_spares(3, 20);
  EXPECT_EQ(cap.vms, 3);
  EXPECT_GT(cap.short_probability, 0.5);
  catalog::VmSize a = gpu_size("Standard_A2", "Aseries", 2, 16);
  auto cat = catalog::Catalog::from_parts(
      {gpu_h()}, {a},
      {offer(a.name, "eastus", Pricing::kPayg, 4.0), offer(a.name, "eastus", Pricing::kSpot, 1.0)});
  workload::Workload w;
  w.name = "s";
  w.kind = workload::Kind::kInfer;
  w.serving.request_rate = 100;
  w.serving.duration_hours = 672;
  PlanOptions o;
  auto p = make_plan(w, *cat, rates_, o, ServingEstimator{});
  ASSERT_TRUE(p) << p.error().to_string();
  const Option* spot = nullptr;
  const Option* payg = nullptr;
  for (const Option& x : p->options) {
    if (x.pricing == Pricing::kSpot && !spot) spot = &x;
    if (x.pricing == Pricing::kPayg && !payg) payg = &x;
  }
  ASSERT_NE(spot, nullptr);
  ASSERT_NE(payg, nullptr);
  EXPECT_EQ(payg->count, 50);
  EXPECT_EQ(spot->count, 57);
  ASSERT_TRUE(spot->spot_risk);
  EXPECT_EQ(spot->spot_risk->spare_vms, 7);
  EXPECT_EQ(spot->gpus, 57 * 2);
  EXPECT_GE(spot->usd_per_hour, 57 * 1.0);  // spares are paid for (plus disks)
  bool said = false;
  for (const std::string& c : spot->caveats)
    said |= c.find("7 of the 57 VMs are spares for evictions: at up to 0.200 evictions") == 0;
  EXPECT_TRUE(said);
}

// A constraints.series whose sizes are all retired leaves nothing to buy:
// the plan says so by name, not only "not in the workload's
// constraints.series" for every other size.
TEST_F(RealismTest, ASeriesOfRetiredSizesIsSaidRetired) {
  catalog::VmSize old = gpu_size("Standard_NC6s_v3", "NCv3", 1, 6);
  old.status = catalog::SizeStatus::kRetired;
  old.retire_date = "2025-09-30";
  catalog::VmSize a = gpu_size("Standard_A1", "Aseries", 1, 8);
  auto cat = catalog::Catalog::from_parts({gpu_h()}, {old, a},
                                          {offer(a.name, "eastus", Pricing::kPayg, 4.0)});
  workload::Workload w = finetune();
  w.constraints.series = {"ncv3"};
  auto p = make_plan(w, *cat, rates_, PlanOptions{}, SimpleEstimator{});
  ASSERT_TRUE(p) << p.error().to_string();
  bool said = false;
  for (const std::string& x : p->warnings)
    said |=
        x.find("'ncv3' names only retired sizes (NCv3 retired 2025-09-30)") != std::string::npos;
  EXPECT_TRUE(said);
  w.constraints.series = {"Aseries"};
  auto fine = make_plan(w, *cat, rates_, PlanOptions{}, SimpleEstimator{});
  ASSERT_TRUE(fine);
  for (const std::string& x : fine->warnings) EXPECT_EQ(x.find("retired"), std::string::npos) << x;
}

// Weekly fine-tuning on data growing 20 % a week: SimpleEstimator takes 10
// GPU-hours today; A1 x1 runs 10 h + 0.25 h setup = 10.25 h. Against a 14 h
// deadline, week w's run takes 10.25 x 1.2^w: 12.3 h (week 1), 14.76 h (week
// 2, misses) — then B4 (4 GPUs, 2.5625 h today) still meets it.
TEST_F(RealismTest, RecurringTrainingSaysWhenTheWinnerStopsMeetingTheDeadline) {
  catalog::VmSize a = gpu_size("Standard_A1", "Aseries", 1, 8);
  catalog::VmSize b = gpu_size("Standard_B4", "Bseries", 4, 32);
  auto cat = catalog::Catalog::from_parts({gpu_h()}, {a, b},
                                          {offer(a.name, "eastus", Pricing::kPayg, 4.0),
                                           offer(b.name, "eastus", Pricing::kPayg, 20.0)});
  workload::Workload w = finetune();
  w.data.growth_per_week = 0.2;
  w.constraints.deadline_hours = 14;
  w.constraints.repeat = workload::Repeat::kWeekly;
  w.constraints.budget_usd = 80;  // B4 (20 x 2.75 h = $55 + disks) stays feasible
  w.constraints.budget_growth_per_week = 0.1;
  PlanOptions o;
  o.max_count = 1;
  o.pricings = {Pricing::kPayg};
  auto p = make_plan(w, *cat, rates_, o, SimpleEstimator{});
  ASSERT_TRUE(p) << p.error().to_string();
  EXPECT_EQ(p->options[0].size, a.name);
  ASSERT_TRUE(p->growth.has_value());
  const Growth& g = *p->growth;
  ASSERT_EQ(g.weeks.size(), 4u);
  EXPECT_NEAR(g.weeks[0].hours, p->options[0].hours * 1.2, 1e-9);
  EXPECT_TRUE(g.weeks[0].meets_deadline);
  EXPECT_FALSE(g.weeks[1].meets_deadline);
  ASSERT_TRUE(g.misses_deadline_week.has_value());
  EXPECT_EQ(*g.misses_deadline_week, 2);
  EXPECT_NE(g.move_to.find(b.name), std::string::npos) << g.move_to;
  // Budget week by week: $80 x 1.1^(w-1) against the run's cost x 1.2^w.
  for (const GrowthWeek& wk : g.weeks) {
    ASSERT_TRUE(wk.budget_usd.has_value());
    EXPECT_NEAR(*wk.budget_usd, 80 * std::pow(1.1, wk.week - 1), 1e-9);
    EXPECT_EQ(wk.within_budget, wk.cost_usd <= *wk.budget_usd);
  }
  EXPECT_NE(g.summary.find("week 2"), std::string::npos) << g.summary;
  // Run once: planned on today's data, said so.
  w.constraints.repeat = workload::Repeat::kNone;
  auto once = make_plan(w, *cat, rates_, o, SimpleEstimator{});
  ASSERT_TRUE(once);
  ASSERT_TRUE(once->growth.has_value());
  EXPECT_TRUE(once->growth->weeks.empty());
  EXPECT_NE(once->growth->summary.find("runs once"), std::string::npos);
}

// The plan names its data disk as deploy reads it back (assumption
// data_disk_gib, size first) and prices the tier cost::data_disk() picks.
TEST_F(RealismTest, TheDiskPricedIsTheDiskDeployBuilds) {
  catalog::VmSize a = gpu_size("Standard_A1", "Aseries", 1, 8);
  auto cat =
      catalog::Catalog::from_parts({gpu_h()}, {a}, {offer(a.name, "eastus", Pricing::kPayg, 4.0)});
  PlanOptions o;
  o.max_count = 1;
  auto p = make_plan(finetune(), *cat, rates_, o, SimpleEstimator{});
  ASSERT_TRUE(p) << p.error().to_string();
  auto disk = cost::data_disk(rates_, std::nullopt);
  ASSERT_TRUE(disk);
  std::string value;
  for (const Assumption& x : p->assumptions) {
    if (x.name == "data_disk_gib") value = x.value;
  }
  ASSERT_FALSE(value.empty());
  EXPECT_EQ(value.substr(0, value.find(' ')), strings::fixed(disk->gib, 0));
  EXPECT_NE(value.find(disk->sku), std::string::npos) << value;
  bool priced = false;
  for (const cost::CostLine& l : p->options[0].lines) {
    if (l.name == "data disk")
      priced = l.assumption.find("billed as " + disk->tier) != std::string::npos;
  }
  EXPECT_TRUE(priced);
}

}  // namespace
}  // namespace gpuplan::plan
