// The planner against a deliberately naive brute force on small random
// catalogs (seeded; the seed is printed on failure), plus behaviours users
// rely on: drops explained, quota requests, Hybrid Benefit, JSON keys.
#include "plan/plan.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include <gtest/gtest.h>

namespace gpuplan::plan {
namespace {

using catalog::Offer;
using catalog::Os;
using catalog::Pricing;

// ---------------------------------------------------------------- fakes

// A fake estimator: the work needs `need_gib` of GPU memory in total and
// `gpu_hours` on a speed-1 GPU; each doubling of VMs past one loses 10 %.
struct FakeEstimator {
  double need_gib = 100;
  double gpu_hours = 40;
  estimate::Estimate operator()(const catalog::VmSize& size, const catalog::Gpu& gpu,
                                int count) const {
    estimate::Estimate e;
    e.size = size.name;
    e.count = count;
    e.gpus = size.gpu_count * count;
    double have = size.gpu_memory_gib * count;
    e.memory_available_gib = gpu.memory_gib;
    e.memory_needed_gib = need_gib / std::max(1.0, e.gpus);
    e.fits = have >= need_gib;
    if (!e.fits) e.reason = "needs " + std::to_string(need_gib) + " GiB";
    double speed = gpu.fp16_tflops / 100.0;
    double efficiency = std::pow(0.9, std::log2(static_cast<double>(count)));
    e.hours = gpu_hours / (e.gpus * speed * efficiency);
    e.throughput = 1000 * e.gpus;
    e.throughput_unit = "tokens/s";
    e.mfu = 0.4;
    e.assumptions.push_back({"mfu", "0.4", "fake"});
    return e;
  }
};

Offer offer(const std::string& size, const std::string& region, Os os, Pricing p,
            std::optional<double> usd) {
  Offer o;
  o.size = size;
  o.region = region;
  o.os = os;
  o.pricing = p;
  o.usd_per_hour = usd;
  o.source = "test";
  o.as_of = "2026-05-20";
  return o;
}

struct World {
  std::unique_ptr<catalog::Catalog> catalog;
  workload::Workload workload;
  PlanOptions options;
  FakeEstimator estimator;
};

// A small random world. Prices are multiples of $0.50 so ties happen and the
// tie-breaking order is exercised.
World random_world(unsigned seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  World w;
  catalog::Gpu a;
  a.model = "GA";
  a.memory_gib = 24;
  a.fp16_tflops = 100;
  catalog::Gpu b;
  b.model = "GB";
  b.memory_gib = 80;
  b.fp16_tflops = 250;
  std::vector<catalog::VmSize> sizes;
  int n_sizes = 2 + pick(4);
  const double gpu_counts[] = {1, 2, 4, 8};
  const int vcpus[] = {8, 24, 40, 96};
  for (int i = 0; i < n_sizes; ++i) {
    catalog::VmSize s;
    s.name = "Standard_S" + std::to_string(i) + "_v" + std::to_string(pick(3));
    s.family_letter = "NC";
    s.gpu_model = chance(0.5) ? "GA" : "GB";
    s.gpu_count = gpu_counts[pick(4)];
    s.gpu_memory_gib = s.gpu_count * (s.gpu_model == "GA" ? 24 : 80);
    s.vcpus = vcpus[pick(4)];
    s.quota_family = "fam" + std::to_string(i % 2);
    if (chance(0.1)) s.status = catalog::SizeStatus::kRetired;
    sizes.push_back(s);
  }
  int n_regions = 2 + pick(3);
  std::vector<std::string> regions;
  regions.reserve(static_cast<size_t>(n_regions));
  for (int r = 0; r < n_regions; ++r) regions.push_back("zr" + std::to_string(r));
  const double factor[] = {1.0, 0.3, 0.6, 0.4, 0.7, 0.5};
  std::vector<Offer> offers;
  std::vector<catalog::Restriction> restrictions;
  for (const catalog::VmSize& s : sizes) {
    for (const std::string& r : regions) {
      if (!chance(0.75)) continue;
      double base = 0.5 * (1 + pick(8)) * s.gpu_count;
      for (int p = 0; p < 6; ++p) {
        if (!chance(0.85)) continue;
        std::optional<double> usd = std::round(base * factor[p] * 2) / 2;
        if (*usd <= 0) usd = 0.5;
        if (chance(0.05)) usd = std::nullopt;
        offers.push_back(offer(s.name, r, Os::kLinux, catalog::kAllPricing[p], usd));
        if (p < 2 && chance(0.5) && usd) {
          offers.push_back(
              offer(s.name, r, Os::kWindows, catalog::kAllPricing[p], *usd + 0.046 * s.vcpus));
        }
      }
      if (chance(0.1)) restrictions.push_back({s.name, r, "NotAvailableForSubscription", {}});
    }
  }
  // Azure eviction bands for about half the (size, region) pairs.
  std::vector<catalog::SpotEviction> bands;
  for (const catalog::VmSize& s : sizes)
    for (const std::string& r : regions)
      if (chance(0.5))
        bands.push_back(
            {s.name, r, catalog::kAllEvictionBands[pick(5)], "spot: test", "2026-11-30"});
  std::vector<catalog::Quota> quotas;
  for (const std::string& r : regions) {
    if (!chance(0.5)) continue;
    quotas.push_back({r, "", 200.0 + 100 * pick(10), 0, "test", "2026-05-20"});
    quotas.push_back({r, "fam0", 24.0 * pick(10), 0, "test", "2026-05-20"});
    quotas.push_back({r, "lowPriorityCores", 48.0 * pick(10), 0, "test", "2026-05-20"});
  }
  w.catalog = catalog::Catalog::from_parts({a, b}, sizes, offers, quotas, restrictions, bands);

  w.workload.name = "random";
  w.workload.kind = chance(0.7) ? workload::Kind::kFinetune : workload::Kind::kBatch;
  w.workload.constraints.os = chance(0.3) ? "windows" : "linux";
  w.workload.constraints.hybrid_benefit = chance(0.5);
  w.workload.constraints.spot = chance(0.2) ? workload::Spot::kNever : workload::Spot::kAllowed;
  if (chance(0.6)) w.workload.constraints.deadline_hours = 2.0 + pick(40);
  if (chance(0.4)) w.workload.constraints.budget_usd = 20.0 + pick(400);
  if (chance(0.3)) w.workload.constraints.max_gpus = 4 + pick(12);
  if (chance(0.3)) w.workload.constraints.regions = {regions[0], regions[n_regions - 1]};
  w.estimator.need_gib = 20.0 + pick(300);
  w.estimator.gpu_hours = 5.0 + pick(100);
  w.options.max_count = 1 + pick(6);
  w.options.top = 1 + pick(6);
  w.options.objective = static_cast<Objective>(pick(3));
  if (chance(0.3)) w.options.utilization = 0.3 + 0.1 * pick(7);
  return w;
}

// ---------------------------------------------------------------- brute force

struct Naive {
  std::string size;
  int count = 0;
  std::string region;
  int pricing = 0;
  double cost = 0;
  double hours = 0;
  bool suspect = false;  // the price looks wrong (ranked after the others)
};

// The price checks of docs/plan.md, written the slow, obvious way: every
// quote through cost::quote(), quartiles by sorting, medians by copying.
double naive_quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  double at = q * (v.size() - 1);
  size_t lo = static_cast<size_t>(at);
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (at - lo);
}
std::optional<double> naive_fence(const std::vector<double>& v) {
  if (v.size() < 4) return std::nullopt;
  double q1 = naive_quantile(v, 0.25), q3 = naive_quantile(v, 0.75);
  return q1 - 1.5 * (q3 - q1);
}
using PriceKey = std::tuple<std::string, std::string, int>;  // size, region, pricing
std::set<PriceKey> naive_suspects(const World& w, const cost::Rates& rates, Os os, bool hybrid) {
  std::map<PriceKey, double> compute;
  std::vector<const catalog::VmSize*> sizes;
  for (const catalog::VmSize& s : w.catalog->sizes()) {
    if (s.status == catalog::SizeStatus::kRetired || s.gpu_count <= 0) continue;
    sizes.push_back(&s);
    for (const std::string& r : w.catalog->regions()) {
      for (int p = 0; p < 6; ++p) {
        auto q = cost::quote(*w.catalog, rates, s, r, catalog::kAllPricing[p], os, hybrid);
        if (q) compute[{s.name, r, p}] = q->compute_usd_per_hour;
      }
    }
  }
  std::set<PriceKey> out;
  // Spot discount below Tukey's fence of its series and of the catalog.
  std::map<PriceKey, double> ratio;
  std::vector<double> all;
  std::map<std::string, std::vector<double>> series;
  for (const auto& [k, v] : compute) {
    if (std::get<2>(k) != 1) continue;
    auto payg = compute.find({std::get<0>(k), std::get<1>(k), 0});
    if (payg == compute.end() || payg->second <= 0) continue;
    ratio[k] = v / payg->second;
    all.push_back(ratio[k]);
    series[w.catalog->find_size(std::get<0>(k))->series].push_back(ratio[k]);
  }
  if (auto cf = naive_fence(all)) {
    for (const auto& [k, x] : ratio) {
      auto sf = naive_fence(series[w.catalog->find_size(std::get<0>(k))->series]);
      if (x < (sf ? std::min(*sf, *cf) : *cf)) out.insert(k);
    }
  }
  // Per-GPU price below the same-GPU siblings' median further than any payg.
  std::map<PriceKey, double> sib;
  double fence = 1e300;
  for (const auto& [k, v] : compute) {
    const catalog::VmSize* s = w.catalog->find_size(std::get<0>(k));
    std::vector<double> others;
    for (const catalog::VmSize* t : sizes) {
      if (t == s || t->gpu_model != s->gpu_model) continue;
      auto it = compute.find({t->name, std::get<1>(k), std::get<2>(k)});
      if (it != compute.end()) others.push_back(it->second / t->gpu_count);
    }
    if (others.empty()) continue;
    double m = naive_quantile(others, 0.5);
    if (m <= 0) continue;
    sib[k] = (v / s->gpu_count) / m;
    if (std::get<2>(k) == 0) fence = std::min(fence, sib[k]);
  }
  for (const auto& [k, x] : sib) {
    // No payg sibling pair anywhere: no fence, nothing flagged.
    if (std::get<2>(k) != 0 && fence < 1e300 && x < fence) out.insert(k);
  }
  return out;
}

// Every combination, costed through the public cost::cost() (catalog
// lookups, text and all), kept when it passes every constraint.
std::vector<Naive> brute_force(const World& w, const cost::Rates& rates) {
  std::vector<Naive> out;
  const workload::Constraints& k = w.workload.constraints;
  Os os = k.os == "windows" ? Os::kWindows : Os::kLinux;
  const std::set<PriceKey> suspects = naive_suspects(w, rates, os, k.hybrid_benefit);
  for (const catalog::VmSize& size : w.catalog->sizes()) {
    if (size.status == catalog::SizeStatus::kRetired) continue;
    const catalog::Gpu* gpu = w.catalog->find_gpu(size.gpu_model);
    for (int count = 1; count <= w.options.max_count; ++count) {
      if (k.max_gpus > 0 && size.gpu_count * count > k.max_gpus) continue;
      estimate::Estimate e = w.estimator(size, *gpu, count);
      if (!e.fits) continue;
      for (const std::string& region : w.catalog->regions()) {
        if (!k.regions.empty() &&
            std::find(k.regions.begin(), k.regions.end(), region) == k.regions.end()) {
          continue;
        }
        if (w.catalog->restricted(size.name, region)) continue;
        for (int p = 0; p < 6; ++p) {
          Pricing pricing = catalog::kAllPricing[p];
          bool spot = pricing == Pricing::kSpot;
          if (spot && k.spot == workload::Spot::kNever) continue;
          cost::Usage u = *cost::default_usage(rates);
          u.os = os;
          u.hybrid_benefit = k.hybrid_benefit;
          u.count = count;
          u.work_hours = e.hours;
          u.utilization = w.options.utilization;
          u.eviction.gang = w.workload.kind != workload::Kind::kBatch;
          if (const catalog::SpotEviction* band = w.catalog->spot_eviction(size.name, region))
            cost::apply_band(u.eviction, *band);
          auto b = cost::cost(*w.catalog, rates, size, region, pricing, u);
          if (!b) continue;  // no price
          if (spot && !b->hours.finishes) continue;
          if (k.deadline_hours && b->hours.wall_hours > *k.deadline_hours) continue;
          if (k.budget_usd && b->total_usd() > *k.budget_usd) continue;
          auto room = w.catalog->quota_headroom_vcpus(size, region, spot);
          if (room && *room < static_cast<double>(count) * size.vcpus) continue;
          out.push_back({size.name, count, region, p, b->total_usd(), b->hours.wall_hours,
                         suspects.count({size.name, region, p}) > 0});
        }
      }
    }
  }
  return out;
}

auto naive_key(Objective o, const Naive& n) {
  double score = objective_score(o, n.cost, n.hours);
  double a = o == Objective::kTime ? n.hours : score;
  double b = o == Objective::kTime ? n.cost : (o == Objective::kCost ? n.hours : n.cost);
  double c = o == Objective::kBalanced ? n.hours : 0.0;
  return std::make_tuple(n.suspect, a, b, c, n.size, n.count, n.region, n.pricing);
}

// O(n^2): not dominated; among equal (cost, hours) the first in cost order.
std::vector<Naive> naive_frontier(std::vector<Naive> all) {
  std::sort(all.begin(), all.end(), [](const Naive& x, const Naive& y) {
    // The frontier does not demote a suspect price: compare without it.
    auto kx = naive_key(Objective::kCost, x), ky = naive_key(Objective::kCost, y);
    std::get<0>(kx) = std::get<0>(ky) = false;
    return kx < ky;
  });
  std::vector<Naive> out;
  for (size_t i = 0; i < all.size(); ++i) {
    bool dominated = false;
    for (size_t j = 0; j < all.size() && !dominated; ++j) {
      const Naive& x = all[i];
      const Naive& y = all[j];
      if (i == j) continue;
      bool no_worse = y.cost <= x.cost && y.hours <= x.hours;
      bool better = y.cost < x.cost || y.hours < x.hours;
      if (no_worse && better) dominated = true;
      if (!better && no_worse && j < i) dominated = true;  // identical point seen first
    }
    if (!dominated) out.push_back(all[i]);
  }
  std::sort(out.begin(), out.end(),
            [](const Naive& x, const Naive& y) { return x.hours < y.hours; });
  return out;
}

std::string describe(const Naive& n) {
  return n.size + " x" + std::to_string(n.count) + " " + n.region + " " +
         std::string(catalog::to_string(catalog::kAllPricing[n.pricing])) + " $" +
         std::to_string(n.cost) + " " + std::to_string(n.hours) + " h";
}
std::string describe(const Option& o) {
  return o.size + " x" + std::to_string(o.count) + " " + o.region + " " +
         std::string(catalog::to_string(o.pricing)) + " $" + std::to_string(o.cost_usd) + " " +
         std::to_string(o.hours) + " h";
}

class PlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto r = cost::Rates::load_embedded();
    ASSERT_TRUE(r) << r.error().to_string();
    rates_ = std::move(*r);
  }
  cost::Rates rates_;
};

TEST_F(PlanTest, AgreesWithBruteForceOnRandomCatalogs) {
  int with_options = 0;
  int with_suspects = 0;  // worlds where the price checks demote something
  for (unsigned seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    World w = random_world(seed);
    auto plan = make_plan(w.workload, *w.catalog, rates_, w.options, w.estimator);
    ASSERT_TRUE(plan) << plan.error().to_string();
    std::vector<Naive> all = brute_force(w, rates_);

    ASSERT_EQ(plan->feasible, static_cast<long long>(all.size()));
    std::sort(all.begin(), all.end(), [&](const Naive& x, const Naive& y) {
      return naive_key(w.options.objective, x) < naive_key(w.options.objective, y);
    });
    // Ranked options: the first `top` of the brute force, in order.
    size_t n = std::min<size_t>(all.size(), w.options.top);
    ASSERT_EQ(plan->options.size(), n);
    for (size_t i = 0; i < n; ++i) {
      const Option& o = plan->options[i];
      EXPECT_EQ(describe(o), describe(all[i])) << "rank " << i + 1;
      EXPECT_EQ(!o.price_warnings.empty(), all[i].suspect) << "rank " << i + 1;
      EXPECT_EQ(o.cost_usd, all[i].cost);
    }
    // Frontier: the same points in the same order.
    std::vector<Naive> front = naive_frontier(all);
    ASSERT_EQ(plan->frontier.size(), front.size());
    for (size_t i = 0; i < front.size(); ++i) {
      EXPECT_EQ(describe(plan->frontier[i]), describe(front[i])) << "frontier " << i;
    }
    // Accounting: everything considered is either feasible or dropped.
    long long dropped = 0;
    for (const Drop& d : plan->dropped) dropped += d.count;
    EXPECT_EQ(plan->considered, plan->feasible + dropped);
    if (!all.empty()) ++with_options;
    if (std::any_of(all.begin(), all.end(), [](const Naive& x) { return x.suspect; })) {
      ++with_suspects;
    }
    if (HasFailure()) return;
  }
  EXPECT_GT(with_options, 100);  // the generator makes mostly feasible worlds
  EXPECT_GT(with_suspects, 20) << with_suspects;
}

// ---------------------------------------------------------------- behaviours

struct Fixed {
  std::unique_ptr<catalog::Catalog> catalog;
  workload::Workload workload;
  FakeEstimator estimator;
};

// Two sizes in two regions: cheap S1 (1 x GB, $4/h eastus, $4.50 westus, 24 vCPUs)
// and fast S8 (8 x GB, $40/h, 96 vCPUs; 1.5 h x $40 = $60 > S1's ~$47 anywhere).
Fixed fixed_world(std::vector<catalog::Quota> quotas = {},
                  const std::string& s1_family = "standardS1Family") {
  catalog::Gpu gb;
  gb.model = "GB";
  gb.memory_gib = 80;
  gb.fp16_tflops = 100;
  catalog::VmSize s1;
  s1.name = "Standard_S1";
  s1.gpu_model = "GB";
  s1.gpu_count = 1;
  s1.gpu_memory_gib = 80;
  s1.vcpus = 24;
  s1.quota_family = s1_family;
  catalog::VmSize s8 = s1;
  s8.name = "Standard_S8";
  s8.gpu_count = 8;
  s8.gpu_memory_gib = 640;
  s8.vcpus = 96;
  s8.quota_family = "standardS8Family";
  std::vector<Offer> offers;
  for (std::string r : {"eastus", "westus"}) {
    offers.push_back(offer(s1.name, r, Os::kLinux, Pricing::kPayg, r == "eastus" ? 4.0 : 4.5));
    offers.push_back(offer(s1.name, r, Os::kWindows, Pricing::kPayg, r == "eastus" ? 5.1 : 5.6));
    offers.push_back(offer(s8.name, r, Os::kLinux, Pricing::kPayg, 40.0));
  }
  Fixed f;
  f.catalog = catalog::Catalog::from_parts({gb}, {s1, s8}, offers, std::move(quotas));
  f.workload.name = "fixed";
  f.workload.kind = workload::Kind::kFinetune;
  f.estimator.need_gib = 40;
  f.estimator.gpu_hours = 10;  // S1: 10 h; S8 x1: 1.25 h
  return f;
}

TEST_F(PlanTest, CheapestWinsAndEveryLineIsCosted) {
  Fixed f = fixed_world();
  PlanOptions o;
  o.max_count = 2;
  auto p = make_plan(f.workload, *f.catalog, rates_, o, f.estimator);
  ASSERT_TRUE(p) << p.error().to_string();
  ASSERT_FALSE(p->options.empty());
  const Option& best = p->options.front();
  // S1 x1 in eastus: 10 h of work + 0.25 h setup at $4/h = $41 + disks:
  // OS P10 19.71 x 10.25 / 730 = $0.27675; data 512 GiB Premium SSD billed as
  // P20 $73.22 x 10.25 / 730 = $1.02809
  EXPECT_EQ(best.size, "Standard_S1");
  EXPECT_EQ(best.count, 1);
  EXPECT_EQ(best.region, "eastus");
  EXPECT_EQ(best.pricing, Pricing::kPayg);
  EXPECT_NEAR(best.cost_usd, 41.0 + 19.71 * 10.25 / 730 + 73.22 * 10.25 / 730, 1e-9);
  EXPECT_NEAR(best.hours, 10.25, 1e-12);
  double sum = 0;
  for (const cost::CostLine& l : best.lines) sum += l.usd;
  EXPECT_NEAR(sum, best.cost_usd, 1e-9);
  EXPECT_EQ(best.rank, 1);
  EXPECT_FALSE(best.why.empty());
  // Fallbacks: same size in westus, other size S8.
  ASSERT_GE(p->fallbacks.size(), 2u);
  EXPECT_EQ(p->fallbacks[0].fallback_for, "region");
  EXPECT_EQ(p->fallbacks[0].region, "westus");
  bool other_size = false;
  for (const Option& fb : p->fallbacks)
    other_size |= fb.fallback_for == "size" && fb.size == "Standard_S8";
  EXPECT_TRUE(other_size);
  // No quota imported: a warning, every option quota_ok.
  EXPECT_TRUE(best.quota_ok);
  EXPECT_FALSE(best.quota_known);
  bool warned = false;
  for (const std::string& w : p->warnings)
    warned |= w.find("quota not imported") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST_F(PlanTest, TimeObjectivePicksTheFastest) {
  Fixed f = fixed_world();
  PlanOptions o;
  o.max_count = 2;
  o.objective = Objective::kTime;
  auto p = make_plan(f.workload, *f.catalog, rates_, o, f.estimator);
  ASSERT_TRUE(p);
  // S8 x2: 16 GPUs, 10 / (16 x 0.9) = 0.694 h
  EXPECT_EQ(p->options.front().size, "Standard_S8");
  EXPECT_EQ(p->options.front().count, 2);
  EXPECT_NEAR(p->options.front().work_hours, 10.0 / (16 * 0.9), 1e-9);
}

TEST_F(PlanTest, NothingFeasibleExplainsTheDrops) {
  Fixed f = fixed_world();
  f.workload.constraints.budget_usd = 5;  // everything costs more
  PlanOptions o;
  o.max_count = 3;
  auto p = make_plan(f.workload, *f.catalog, rates_, o, f.estimator);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->options.empty());
  EXPECT_TRUE(p->frontier.empty());
  ASSERT_FALSE(p->dropped.empty());
  long long total = 0;
  bool budget = false;
  for (const Drop& d : p->dropped) {
    total += d.count;
    if (d.reason == "over budget") {
      budget = true;
      EXPECT_NE(d.example.find("> $5.00"), std::string::npos) << d.example;
    }
  }
  EXPECT_TRUE(budget);
  // 2 sizes x 3 counts x 2 regions x 6 pricings
  EXPECT_EQ(total, 2 * 3 * 2 * 6);
  EXPECT_EQ(p->considered, total);
}

TEST_F(PlanTest, QuotaBlocksTheCheapestAndSaysWhatToRequest) {
  // eastus: S1's family has 0 vCPUs; the regional total is ample.
  Fixed f = fixed_world({{"eastus", "", 1000, 0, "test", "2026-05-20"},
                         {"eastus", "standardS1Family", 0, 0, "test", "2026-05-20"}});
  PlanOptions o;
  o.max_count = 1;
  o.pricings = {Pricing::kPayg};
  auto p = make_plan(f.workload, *f.catalog, rates_, o, f.estimator);
  ASSERT_TRUE(p);
  ASSERT_FALSE(p->options.empty());
  // The winner moves to westus ($4.50/h) ...
  EXPECT_EQ(p->options.front().size, "Standard_S1");
  EXPECT_EQ(p->options.front().region, "westus");
  // ... and the request that unlocks eastus ($4.00/h) is exact.
  ASSERT_EQ(p->quota_requests.size(), 1u);
  const QuotaRequest& q = p->quota_requests.front();
  EXPECT_EQ(q.family, "standardS1Family");
  EXPECT_EQ(q.region, "eastus");
  EXPECT_EQ(q.vcpus_needed, 24);
  EXPECT_EQ(q.new_limit, 24);
  EXPECT_EQ(q.unlocks.region, "eastus");
  // saves ($4.50 - $4.00) x 10.25 h
  EXPECT_NEAR(q.saves_usd, 0.5 * 10.25, 1e-9);
  EXPECT_NE(q.command.find("az quota create --resource-name standardS1Family"), std::string::npos);
  // A family Azure names with spaces is one quoted word of the command.
  Fixed spaced = fixed_world({{"eastus", "", 1000, 0, "test", "2026-05-20"},
                              {"eastus", "Standard S1 Family", 0, 0, "test", "2026-05-20"}},
                             "Standard S1 Family");
  auto ps = make_plan(spaced.workload, *spaced.catalog, rates_, o, spaced.estimator);
  ASSERT_TRUE(ps);
  ASSERT_EQ(ps->quota_requests.size(), 1u);
  EXPECT_NE(ps->quota_requests.front().command.find("--resource-name 'Standard S1 Family' --scope"),
            std::string::npos)
      << ps->quota_requests.front().command;
  // The subscription comes from the signed-in az: the command pastes as is.
  EXPECT_NE(q.command.find("--scope \"/subscriptions/$(az account show --query id -o tsv)/"
                           "providers/Microsoft.Compute/locations/eastus\" "),
            std::string::npos)
      << q.command;
  EXPECT_NE(q.command.find("value=24"), std::string::npos);
  bool family_drop = false;
  for (const Drop& d : p->dropped) family_drop |= d.reason == "family quota" && d.count == 1;
  EXPECT_TRUE(family_drop);
}

TEST_F(PlanTest, HybridBenefitPaysLinuxRateAndWindowsPaysTheLicence) {
  Fixed f = fixed_world();
  f.workload.constraints.os = "windows";
  PlanOptions o;
  o.max_count = 1;
  o.pricings = {Pricing::kPayg};
  o.regions = {"eastus"};
  auto win = make_plan(f.workload, *f.catalog, rates_, o, f.estimator);
  ASSERT_TRUE(win);
  const Option& w = win->options.front();
  EXPECT_EQ(w.size, "Standard_S1");
  // Windows $5.10 = compute $4.00 + licence $1.10
  EXPECT_NEAR(w.usd_per_hour, 5.10, 1e-9);
  f.workload.constraints.hybrid_benefit = true;
  auto hb = make_plan(f.workload, *f.catalog, rates_, o, f.estimator);
  ASSERT_TRUE(hb);
  EXPECT_NEAR(hb->options.front().usd_per_hour, 4.00, 1e-9);
  EXPECT_TRUE(hb->options.front().hybrid_benefit);
  EXPECT_EQ(hb->options.front().os, Os::kWindows);
}

TEST_F(PlanTest, SpotCarriesItsRisk) {
  Fixed f = fixed_world();
  // Add a spot price for S1 in eastus.
  std::vector<Offer> offers = f.catalog->offers();
  offers.push_back(offer("Standard_S1", "eastus", Os::kLinux, Pricing::kSpot, 1.0));
  f.catalog = catalog::Catalog::from_parts(f.catalog->gpus(), f.catalog->sizes(), offers);
  f.workload.constraints.deadline_hours = 12;
  PlanOptions o;
  o.max_count = 1;
  auto p = make_plan(f.workload, *f.catalog, rates_, o, f.estimator);
  ASSERT_TRUE(p);
  const Option& best = p->options.front();
  ASSERT_EQ(best.pricing, Pricing::kSpot);
  ASSERT_TRUE(best.spot_risk);
  // As in cost_test: 10 h work, 0.05/h, 0.75 h lost per eviction, 12 h deadline: 2.07 %
  EXPECT_NEAR(best.spot_risk->deadline_miss_probability, 0.0207177, 1e-6);
  // No Azure band was imported: priced at the default, but the risk is not "low".
  EXPECT_EQ(best.spot_risk->level, "unknown");
  EXPECT_EQ(best.spot_risk->rate_basis, "default");
  EXPECT_FALSE(best.spot_risk->band);
  EXPECT_GT(best.cost_high_usd, best.cost_usd);
  EXPECT_LT(best.cost_low_usd, best.cost_usd);
  // Spot never: it is dropped with a reason.
  f.workload.constraints.spot = workload::Spot::kNever;
  auto never = make_plan(f.workload, *f.catalog, rates_, o, f.estimator);
  ASSERT_TRUE(never);
  EXPECT_NE(never->options.front().pricing, Pricing::kSpot);
  bool dropped = false;
  for (const Drop& d : never->dropped) dropped |= d.reason == "spot not allowed";
  EXPECT_TRUE(dropped);
}

// The spot option of S1 in eastus with Azure's band `band` (nullopt: none).
Result<Plan> spot_plan(const cost::Rates& rates, std::optional<catalog::EvictionBand> band,
                       const PlanOptions& o, std::optional<double> checkpoint_hours = {}) {
  Fixed f = fixed_world();
  std::vector<Offer> offers = f.catalog->offers();
  offers.push_back(offer("Standard_S1", "eastus", Os::kLinux, Pricing::kSpot, 1.0));
  std::vector<catalog::SpotEviction> bands;
  if (band) bands.push_back({"Standard_S1", "eastus", *band, "spot: test.json", "2026-11-30"});
  f.catalog =
      catalog::Catalog::from_parts(f.catalog->gpus(), f.catalog->sizes(), offers, {}, {}, bands);
  f.workload.constraints.deadline_hours = 13;
  f.workload.constraints.checkpoint_hours = checkpoint_hours;
  PlanOptions opt = o;
  opt.max_count = 1;
  opt.pricings = {Pricing::kSpot};
  return make_plan(f.workload, *f.catalog, rates, opt, f.estimator);
}

TEST_F(PlanTest, SpotRiskFollowsTheImportedBand) {
  auto low = spot_plan(rates_, catalog::EvictionBand::k0To5, {});
  auto high = spot_plan(rates_, catalog::EvictionBand::k20Plus, {});
  ASSERT_TRUE(low && high);
  ASSERT_FALSE(low->options.empty());
  ASSERT_FALSE(high->options.empty());
  const Option& a = low->options.front();
  const Option& b = high->options.front();
  ASSERT_EQ(a.region, "eastus");
  ASSERT_TRUE(a.spot_risk && b.spot_risk);
  // 0-5 %: rate -ln(1 - 0.025) at the middle, -ln(0.95) at the upper edge.
  EXPECT_NEAR(a.spot_risk->eviction_rate_per_hour, -std::log(1 - 0.025), 1e-12);
  EXPECT_NEAR(a.spot_risk->eviction_rate_high_per_hour, -std::log(0.95), 1e-12);
  EXPECT_EQ(a.spot_risk->band, "0-5");
  EXPECT_EQ(a.spot_risk->rate_basis, "azure-band");
  EXPECT_EQ(a.spot_risk->band_as_of, "2026-11-30");
  EXPECT_EQ(a.spot_risk->level, "low");
  // 20+ %, taken as 20-25 %: 10 h of work stretches to 12.6 h of the 13 h
  // deadline (0.255/h x 0.75 h lost per eviction), so missing it is likely.
  EXPECT_NEAR(b.spot_risk->eviction_rate_per_hour, -std::log(1 - 0.225), 1e-12);
  EXPECT_EQ(b.spot_risk->band, "20+");
  EXPECT_EQ(b.spot_risk->level, "high");
  EXPECT_GT(b.spot_risk->deadline_miss_probability, 0.25);
  EXPECT_GT(b.cost_usd, a.cost_usd);
  EXPECT_GT(b.hours, a.hours);
  bool line = false;
  for (const auto& l : b.lines)
    line |= l.name == "spot eviction overhead" &&
            l.assumption.find("Azure band 20+ % evicted per hour (taken as 20-25 %)") !=
                std::string::npos;
  EXPECT_TRUE(line);
  // --eviction-rate replaces the band everywhere and says so.
  PlanOptions o;
  o.eviction_rate = 0.05;
  auto forced = spot_plan(rates_, catalog::EvictionBand::k20Plus, o);
  ASSERT_TRUE(forced && !forced->options.empty());
  EXPECT_EQ(forced->options.front().spot_risk->rate_basis, "override");
  EXPECT_DOUBLE_EQ(forced->options.front().spot_risk->eviction_rate_per_hour, 0.05);
  EXPECT_FALSE(forced->options.front().spot_risk->band);
  EXPECT_EQ(forced->options.front().spot_risk->level, "low");
}

TEST_F(PlanTest, CheckpointHoursComeFromTheWorkloadUnlessTheFlagSaysOtherwise) {
  auto base = spot_plan(rates_, catalog::EvictionBand::k5To10, {});
  auto sparse = spot_plan(rates_, catalog::EvictionBand::k5To10, {}, 4.0);
  PlanOptions o;
  o.checkpoint_hours = 1.0;
  auto flag = spot_plan(rates_, catalog::EvictionBand::k5To10, o, 4.0);
  ASSERT_TRUE(base && sparse && flag);
  // Half of a 4 h interval is lost per eviction instead of half of 1 h.
  EXPECT_GT(sparse->options.front().hours, base->options.front().hours);
  EXPECT_DOUBLE_EQ(flag->options.front().hours, base->options.front().hours);
  auto source = [](const Plan& p) {
    for (const Assumption& a : p.assumptions)
      if (a.name == "checkpoint_interval") return a.source;
    return std::string();
  };
  EXPECT_NE(source(*sparse).find("constraints.checkpoint_hours"), std::string::npos);
  EXPECT_EQ(source(*flag), "--checkpoint-hours");
}

TEST_F(PlanTest, RegionsOutsideTheAllowedListAreDropped) {
  Fixed f = fixed_world();
  f.workload.constraints.regions = {"westus"};
  PlanOptions o;
  o.max_count = 1;
  auto p = make_plan(f.workload, *f.catalog, rates_, o, f.estimator);
  ASSERT_TRUE(p);
  for (const Option& opt : p->options) EXPECT_EQ(opt.region, "westus");
  bool dropped = false;
  for (const Drop& d : p->dropped) {
    if (d.reason == "region not allowed") {
      dropped = true;
      EXPECT_EQ(d.regions, 1);
      EXPECT_EQ(d.count, 2 * 6);  // 2 sizes x 6 pricings in eastus
    }
  }
  EXPECT_TRUE(dropped);
}

TEST_F(PlanTest, BadOptionsAreInvalidArgument) {
  Fixed f = fixed_world();
  PlanOptions o;
  o.top = 0;
  EXPECT_EQ(make_plan(f.workload, *f.catalog, rates_, o, f.estimator).error().code,
            ErrorCode::kInvalidArgument);
  o = PlanOptions{};
  o.utilization = 0;
  EXPECT_EQ(make_plan(f.workload, *f.catalog, rates_, o, f.estimator).error().code,
            ErrorCode::kInvalidArgument);
  EXPECT_FALSE(parse_objective("cheap"));
  EXPECT_EQ(*parse_objective("Balanced"), Objective::kBalanced);
}

TEST_F(PlanTest, JsonHasTheDocumentedKeys) {
  Fixed f = fixed_world();
  PlanOptions o;
  o.max_count = 2;
  auto p = make_plan(f.workload, *f.catalog, rates_, o, f.estimator);
  ASSERT_TRUE(p);
  nlohmann::ordered_json j = to_json(*p);
  EXPECT_EQ(j["schema"], "gpuplan.plan/2");
  for (const char* k : {"options", "frontier", "fallbacks", "dropped", "warnings", "assumptions",
                        "quota_requests"}) {
    EXPECT_TRUE(j.contains(k)) << k;
  }
  const auto& opt = j["options"][0];
  for (const char* k : {"size", "count", "gpus", "region", "pricing", "os", "hybrid_benefit",
                        "hours", "cost_usd", "cost_low_usd", "cost_high_usd", "usd_per_hour",
                        "quota_ok", "price", "cost_lines", "rank"}) {
    EXPECT_TRUE(opt.contains(k)) << k;
  }
  EXPECT_EQ(opt["rank"], 1);
  EXPECT_EQ(opt["pricing"], "payg");
  for (const auto& a : j["assumptions"]) {
    EXPECT_FALSE(a["source"].get<std::string>().empty()) << a["name"];
  }
}

TEST(Objective, BalancedIsCostTimesSqrtHours) {
  EXPECT_DOUBLE_EQ(objective_score(Objective::kBalanced, 100, 4), 200);
  EXPECT_DOUBLE_EQ(objective_score(Objective::kCost, 100, 4), 100);
  EXPECT_DOUBLE_EQ(objective_score(Objective::kTime, 100, 4), 4);
}

}  // namespace
}  // namespace gpuplan::plan
