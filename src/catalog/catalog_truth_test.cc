// The catalog tells the truth today: statuses computed from dated facts,
// no reservations where none are sold, access-restricted regions only on
// request, prices' ages with the command that refreshes them, and every
// estimation rule checked against prices Azure lists (tests/data/catalog/).
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog/freshness.h"
#include "catalog/internal/catalog_data.h"
#include "core/csv.h"
#include "core/files.h"

namespace gpuplan::catalog {
namespace {

std::unique_ptr<Catalog> at(const std::string& day) {
  auto r = Catalog::load_embedded_at(day);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().to_string());
  return r ? std::move(*r) : nullptr;
}

// ------------------------------------------------------ status from dates

TEST(StatusFacts, ComputedFromTheDatesAndToday) {
  // NVv3: retires 2026-09-30, reservation sales ended 2025-11-02.
  auto before_end = at("2025-11-01");
  const VmSize* nvv3 = before_end->find_size("Standard_NV12s_v3");
  EXPECT_EQ(nvv3->status, SizeStatus::kRetiring);
  EXPECT_TRUE(nvv3->reservable);
  EXPECT_NE(before_end->offer("Standard_NV12s_v3", "eastus", Os::kLinux, Pricing::kReserved1y),
            nullptr);

  auto after_end = at("2025-11-02");  // the day sales ended
  nvv3 = after_end->find_size("Standard_NV12s_v3");
  EXPECT_EQ(nvv3->status, SizeStatus::kRetiring);
  EXPECT_FALSE(nvv3->reservable);
  EXPECT_EQ(reservation_note(*nvv3), "reservation sales ended 2025-11-02");
  EXPECT_EQ(after_end->offer("Standard_NV12s_v3", "eastus", Os::kLinux, Pricing::kSavings3y),
            nullptr);

  auto retire_day = at("2026-09-30");
  EXPECT_EQ(retire_day->find_size("Standard_NV12s_v3")->status, SizeStatus::kRetired);
  EXPECT_EQ(retire_day->find_size("Standard_NV4as_v4")->status, SizeStatus::kRetired);
  EXPECT_EQ(at("2026-09-29")->find_size("Standard_NV4as_v4")->status, SizeStatus::kRetiring);
  EXPECT_EQ(retire_day->today(), "2026-09-30");
}

TEST(StatusFacts, NoReservationForNvv3OrNvv4Today) {
  auto c = at("2026-12-02");
  size_t commitments = 0;
  for (const Offer& o : c->offers()) {
    const VmSize* s = c->find_size(o.size);
    if (s->series != "NVv3" && s->series != "NVv4") continue;
    if (commitment_hours(o.pricing) > 0) ++commitments;
  }
  EXPECT_EQ(commitments, 0u);
  // Still listed for payg (history), but only with --include-retired.
  CatalogQuery q;
  q.series = {"NVv4"};
  auto rows = c->query(q);
  ASSERT_TRUE(rows);
  EXPECT_TRUE(rows->empty());
  q.include_retired = true;
  rows = c->query(q);
  ASSERT_TRUE(rows);
  ASSERT_FALSE(rows->empty());
  for (const CatalogRow& r : *rows) EXPECT_EQ(r.size->status, SizeStatus::kRetired);
}

TEST(StatusFacts, PreviewUntilGaAndNeverReservable) {
  VmSize s;
  s.preview = true;
  s.ga_date = "2026-06-01";
  std::vector<VmSize> v = {s};
  internal::apply_status(v, "2026-05-31");
  EXPECT_EQ(v[0].status, SizeStatus::kPreview);
  EXPECT_FALSE(v[0].reservable);
  internal::apply_status(v, "2026-06-01");
  EXPECT_EQ(v[0].status, SizeStatus::kCurrent);
  EXPECT_TRUE(v[0].reservable);
  v[0].ga_date = "";  // no GA announced: preview stays preview
  internal::apply_status(v, "2030-01-01");
  EXPECT_EQ(v[0].status, SizeStatus::kPreview);
}

TEST(StatusFacts, ListedCommitmentPricesOfAnUnreservableSizeAreDropped) {
  VmSize retired;
  retired.name = "Standard_X";
  retired.vcpus = 8;
  retired.reservable = false;
  Offer payg{"Standard_X", "eastus", Os::kLinux, Pricing::kPayg, 1.0, "s", "2026-01-01"};
  Offer ri{"Standard_X", "eastus", Os::kLinux, Pricing::kReserved1y, 0.6, "s", "2026-01-01"};
  auto out = internal::with_estimates({retired}, {payg, ri}, {});
  for (const Offer& o : out) EXPECT_EQ(commitment_hours(o.pricing), 0) << to_string(o.pricing);
}

TEST(StatusFacts, TodayComesFromTheEnvironmentAndIsChecked) {
  ::setenv("GPUPLAN_TODAY", "2027-02-29", 1);  // not a date
  auto bad = today();
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(bad.error().where.file, "GPUPLAN_TODAY");
  EXPECT_FALSE(Catalog::load_embedded());
  ::setenv("GPUPLAN_TODAY", "2028-02-29", 1);
  EXPECT_EQ(*today(), "2028-02-29");
  ::unsetenv("GPUPLAN_TODAY");
  EXPECT_TRUE(internal::is_date(*today()));
  EXPECT_EQ(days_between("2026-05-20", "2026-12-02"), 196);
  EXPECT_EQ(days_between("2024-02-28", "2024-03-01"), 2);
  EXPECT_EQ(days_between("2026-05-20", "soon"), std::nullopt);
}

// ------------------------------------------------- restricted regions

TEST(RegionAccess, RestrictedRegionsOnlyWhenAskedOrNamed) {
  auto c = at("2026-12-02");
  for (const char* r : {"jioindiacentral", "jioindiawest", "australiacentral2", "germanynorth",
                        "norwaywest", "southafricawest", "switzerlandwest", "uaecentral"}) {
    EXPECT_EQ(c->region_access(r), RegionAccess::kRestricted) << r;
    EXPECT_NE(c->region_access_source(r).find("Microsoft Learn"), std::string::npos);
  }
  EXPECT_EQ(c->region_access("EastUS"), RegionAccess::kOpen);
  CatalogQuery q;
  auto rows = c->query(q);
  ASSERT_TRUE(rows);
  for (const CatalogRow& r : *rows) EXPECT_EQ(r.region_access, RegionAccess::kOpen) << r.region;
  q.include_restricted_regions = true;
  rows = c->query(q);
  ASSERT_TRUE(rows);
  std::set<std::string> restricted;
  for (const CatalogRow& r : *rows) {
    if (r.region_access == RegionAccess::kRestricted) restricted.insert(r.region);
  }
  EXPECT_TRUE(restricted.count("jioindiawest"));
  // Naming a restricted region is asking for it.
  CatalogQuery named;
  named.regions = {"germanynorth"};
  rows = c->query(named);
  ASSERT_TRUE(rows);
  ASSERT_FALSE(rows->empty());
  EXPECT_EQ((*rows)[0].region_access, RegionAccess::kRestricted);
  // Region summaries likewise.
  for (const RegionSummary& s : c->region_summaries()) EXPECT_EQ(s.access, RegionAccess::kOpen);
  bool any = false;
  for (const RegionSummary& s : c->region_summaries(true))
    any = any || s.access == RegionAccess::kRestricted;
  EXPECT_TRUE(any);
}

// ------------------------------------------------------- prices' age

TEST(Freshness, AgesPerKindAndTheRefreshCommand) {
  Offer payg{"S", "eastus", Os::kLinux, Pricing::kPayg, 1.0, "src", "2024-01-01"};
  payg.retrieved = "2026-05-20";  // an old effective date is not staleness
  Offer spot = payg;
  spot.pricing = Pricing::kSpot;
  spot.retrieved = "2026-11-20";
  Offer unpriced = payg;
  unpriced.usd_per_hour.reset();
  unpriced.retrieved = "2000-01-01";
  FreshnessPolicy policy;
  auto ages = price_ages({&payg, &spot, &unpriced, nullptr}, "2026-12-02", policy);
  ASSERT_EQ(ages.size(), 2u);
  EXPECT_EQ(ages[0].kind, "payg");
  EXPECT_EQ(ages[0].days, 196);
  EXPECT_TRUE(ages[0].stale);  // > 90
  EXPECT_EQ(ages[1].kind, "spot");
  EXPECT_EQ(ages[1].days, 12);
  EXPECT_FALSE(ages[1].stale);  // <= 30
  auto lines = freshness_lines(ages, "eastus");
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[0], "warning: prices are 196 days old (retrieved 2026-05-20; limit 90 days).");
  EXPECT_EQ(lines[1], "Spot prices are 12 days old (retrieved 2026-11-20).");
  EXPECT_EQ(lines[2], "Refresh them: gpuplan catalog import retail-prices --live --region eastus");
  // The thresholds are the policy's.
  policy.payg_days = 200;
  policy.spot_days = 10;
  ages = price_ages({&payg, &spot}, "2026-12-02", policy);
  EXPECT_FALSE(ages[0].stale);
  EXPECT_TRUE(ages[1].stale);
  // The offline loop fetches the same query as --live.
  EXPECT_NE(offline_refresh_command("eastus").find("armRegionName%20eq%20%27eastus%27"),
            std::string::npos);
}

TEST(Freshness, EmbeddedPricesCarryTheirRetrievalDate) {
  auto c = at("2026-12-02");
  const Offer* o = c->offer("Standard_NC40ads_H100_v5", "eastus", Os::kLinux, Pricing::kPayg);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->retrieved, "2026-05-20");
  EXPECT_EQ(o->source.rfind("Azure Retail Prices API, 2026-05-20", 0), 0u) << o->source;
  const Offer* w = c->offer("Standard_NC40ads_H100_v5", "eastus", Os::kWindows, Pricing::kPayg);
  ASSERT_NE(w, nullptr);
  EXPECT_TRUE(w->estimated);
  EXPECT_EQ(w->retrieved, "2026-05-20");  // its base price's
  EXPECT_NE(embedded_catalog_version().find("prices of 2026-05-20"), std::string::npos);
}

// ------------------------------------ each rule against listed prices

struct Listed {
  std::string kind, size, region, confidence;
  Pricing pricing = Pricing::kPayg;
  double linux = 0, listed = 0;
};

std::vector<Listed> listed_items() {
  auto text =
      files::read_text(std::string(GPUPLAN_SOURCE_DIR) + "/tests/data/catalog/listed_items.csv");
  EXPECT_TRUE(text);
  auto t = csv::parse(*text, "listed_items.csv");
  EXPECT_TRUE(t);
  std::vector<Listed> out;
  for (const csv::Row& row : t->rows) {
    csv::RowReader r(*t, row);
    Listed l;
    l.kind = *r.str("kind");
    l.size = *r.str("size");
    l.region = *r.str("region");
    l.confidence = *r.str("confidence");
    l.pricing = *parse_pricing(*r.str("pricing"));
    l.linux = *r.number("linux_usd_per_hour");
    l.listed = *r.number("listed_usd_per_hour");
    out.push_back(l);
  }
  return out;
}

std::vector<internal::PricingRule> embedded_rules() {
  auto rules = internal::parse_pricing_rules(internal::embedded_file("pricing_rules.csv"), "r");
  EXPECT_TRUE(rules);
  return *rules;
}

// The rule's estimate for `l`: the catalog's own derivation (with_estimates)
// from the listed Linux price. `drop_size_rule` leaves the size's own
// discount out, so the series and default rules meet sizes they were not
// derived from.
std::optional<Offer> estimate(const Catalog& c, const Listed& l, bool drop_size_rule) {
  VmSize s = *c.find_size(l.size);
  s.reservable = true;  // the rule, not the status, is under test
  std::vector<internal::PricingRule> rules;
  for (const auto& r : embedded_rules())
    if (!drop_size_rule || r.applies_to != s.name) rules.push_back(r);
  Offer base{
      s.name,  l.region, Os::kLinux,  l.kind == "windows_spot" ? Pricing::kSpot : Pricing::kPayg,
      l.linux, "listed", "2026-01-01"};
  std::vector<Offer> listed = {base};
  if (l.kind == "windows_spot") {
    listed.push_back(Offer{s.name, l.region, Os::kLinux, Pricing::kPayg, l.linux * 5, "l", "d"});
  }
  const Os os = l.kind == "commitment" ? Os::kLinux : Os::kWindows;
  for (const Offer& o : internal::with_estimates({s}, listed, rules))
    if (o.os == os && o.pricing == l.pricing && o.estimated) return o;
  return std::nullopt;
}

TEST(RulesAgainstListed, WindowsPaygSurcharge) {
  auto c = at("2026-12-02");
  int checked = 0;
  for (const Listed& l : listed_items()) {
    if (l.kind != "windows_payg") continue;
    // Retired sizes carried older licence rates (ND P40 $0.0705, NC24rs_v3
    // $0.0506 per vCPU-hour in westeurope); the rule is for the sizes
    // gpuplan offers.
    if (c->find_size(l.size)->status == SizeStatus::kRetired) continue;
    // Azure lists a Windows meter for ND H100 v5, but the size's
    // documentation supports Linux images only: gpuplan offers no Windows
    // there (a no_windows rule; Catalog.LinuxOnlySeriesHasNoWindowsOffer).
    if (c->find_size(l.size)->series == "ND_H100_v5") continue;
    auto e = estimate(*c, l, false);
    ASSERT_TRUE(e) << l.size;
    EXPECT_EQ(e->rule.kind(), EstimateRule::Kind::kWindowsPayg);
    // Listed prices have 3-4 decimals: the rule must hit them to the cent.
    EXPECT_NEAR(*e->usd_per_hour, l.listed, 0.01) << l.size << " " << l.region;
    ++checked;
  }
  EXPECT_GE(checked, 30);
}

TEST(RulesAgainstListed, WindowsSpotSurcharge) {
  auto c = at("2026-12-02");
  int checked = 0;
  for (const Listed& l : listed_items()) {
    if (l.kind != "windows_spot") continue;
    auto e = estimate(*c, l, false);
    ASSERT_TRUE(e) << l.size;
    EXPECT_EQ(e->rule.kind(), EstimateRule::Kind::kWindowsSpot);
    EXPECT_NEAR(*e->usd_per_hour, l.listed, 0.01) << l.size;
    ++checked;
  }
  EXPECT_EQ(checked, 1);  // the only listed Windows/Linux spot pair at hand
}

TEST(RulesAgainstListed, CommitmentDiscounts) {
  auto c = at("2026-12-02");
  int own = 0, fallback = 0, under = 0;
  double worst = 0, worst_own = 0;
  for (const Listed& l : listed_items()) {
    if (l.kind != "commitment") continue;
    // The size's own rule reproduces the listing it came from (the
    // polandcentral calculator capture) and stays within a few points of
    // other regions' listings (westeurope Retail Prices API): discounts vary
    // by region, which is why an imported Reservation price replaces them.
    auto e = estimate(*c, l, false);
    ASSERT_TRUE(e) << l.size << " " << to_string(l.pricing);
    const double own_err = *e->usd_per_hour / l.listed - 1;
    if (l.region == "polandcentral") {
      EXPECT_NEAR(own_err, 0, 0.005) << l.size << " " << to_string(l.pricing);
    }
    worst_own = std::max(worst_own, std::abs(own_err));
    ++own;
    // Without it, the series median or the default: how far from the listing?
    auto f = estimate(*c, l, true);
    ASSERT_TRUE(f);
    const double err = *f->usd_per_hour / l.listed - 1;
    worst = std::max(worst, std::abs(err));
    if (err < -0.005) ++under;
    ++fallback;
  }
  EXPECT_GE(own, 90);
  EXPECT_EQ(own, fallback);
  // docs/catalog.md quotes these figures ("a few points").
  EXPECT_LT(worst_own, 0.05);
  EXPECT_LT(worst, 0.05);
  std::cout << "commitment rules vs " << own << " listed prices: own rule worst " << worst_own * 100
            << "%, series/default fallback worst " << worst * 100 << "%, " << under
            << " below the listing\n";
}

// ND H100 v5's documentation lists Linux images only: every Windows offer of
// it is marked not offered, with the reason; its Linux prices are unchanged,
// and a no_windows rule cannot apply to every size or to a commitment.
TEST(CatalogTruth, LinuxOnlySeriesHasNoWindowsOffer) {
  auto c = Catalog::load_embedded_at("2026-12-02");
  ASSERT_TRUE(c) << c.error().to_string();
  int windows = 0;
  for (const Offer& o : (*c)->offers()) {
    if (o.size != "Standard_ND96isr_H100_v5") continue;
    if (o.os == Os::kWindows) {
      ++windows;
      EXPECT_TRUE(o.not_offered) << o.region << " " << to_string(o.pricing);
      EXPECT_FALSE(o.usd_per_hour.has_value());
      // (Savings plans: not sold for the size at all, which says so first.)
      if (o.pricing != Pricing::kSavings1y && o.pricing != Pricing::kSavings3y) {
        EXPECT_NE(o.source.find("Linux only"), std::string::npos) << o.source;
      }
    } else if (o.pricing == Pricing::kPayg) {
      EXPECT_TRUE(o.usd_per_hour.has_value()) << o.region;
    }
  }
  EXPECT_GE(windows, 20);
  auto bad = internal::parse_pricing_rules(
      "rule,applies_to,pricing,value,unit,source,confidence,notes\n"
      "no_windows,*,payg,0,none,s,listed,n\n",
      "r.csv");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where.field, "applies_to");
  bad = internal::parse_pricing_rules(
      "rule,applies_to,pricing,value,unit,source,confidence,notes\n"
      "no_windows,series:ND_H100_v5,reserved-1y,0,none,s,listed,n\n",
      "r.csv");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where.field, "pricing");
}

}  // namespace
}  // namespace gpuplan::catalog

namespace gpuplan::catalog {
namespace {

// Arm64 (Grace) sizes get no Windows price, listed or derived: the Windows
// Server images are x64 only, so a Windows plan never offers GB200/GB300.
TEST(CatalogTruth, Arm64SizesHaveNoWindowsPrice) {
  auto c = Catalog::load_embedded_at("2026-12-02");
  ASSERT_TRUE(c) << c.error().to_string();
  int arm = 0;
  for (const VmSize& s : (*c)->sizes()) {
    if (!is_arm64(s)) continue;
    ++arm;
    for (const Offer& o : (*c)->offers()) {
      if (o.size != s.name || o.os != Os::kWindows) continue;
      EXPECT_FALSE(o.usd_per_hour.has_value()) << s.name << " " << o.region << " " << o.source;
    }
  }
  EXPECT_GE(arm, 3);  // ND GB200 v6 and the two ND GB300 v6 sizes
  const VmSize* h100 = (*c)->find_size("Standard_NC40ads_H100_v5");
  ASSERT_NE(h100, nullptr);
  EXPECT_FALSE(is_arm64(*h100));
}

}  // namespace
}  // namespace gpuplan::catalog
