// The planner's quota requests: among the candidates blocked only by quota
// (the best per size and region, kept by plan_feasibility.cc), those that
// beat the winner become requests — family or spot pool, region, current
// limit and usage, vCPUs needed, the new limit and the `az quota` command —
// at most three, one per (limit, region).
#include <algorithm>

#include "core/strings.h"
#include "plan/internal/planner.h"

namespace gpuplan::plan::internal {

using catalog::Pricing;
using strings::fixed;

QuotaRequest Planner::quota_request(const Cand& b, const std::string& family) {
  const catalog::VmSize& size = *sizes_[b.s];
  const bool spot = catalog::kAllPricing[b.p] == Pricing::kSpot;
  QuotaRequest qr;
  qr.family = family;
  qr.region = regions_[b.r];
  qr.spot = spot;
  for (const catalog::Quota& q : catalog_.quotas()) {
    if (strings::fold(q.region) == strings::fold(qr.region) &&
        strings::fold(q.family) == strings::fold(family)) {
      qr.limit = q.limit;
      qr.used = q.used;
    }
  }
  qr.vcpus_needed = static_cast<double>(size.vcpus) * b.count;
  qr.new_limit = std::max(qr.limit, qr.used + qr.vcpus_needed);
  qr.unlocks = materialise(b);
  qr.unlocks.quota_ok = false;
  qr.saves_usd = top_.empty() ? 0 : std::max(0.0, top_.front().cost - b.cost);
  qr.unlocks.why = top_.empty() ? "the best option once quota allows it"
                                : "beats the winner once quota allows it";
  std::string verb = qr.limit > 0 ? "update" : "create";
  qr.command = "az quota " + verb + " --resource-name " + family +
               " --scope /subscriptions/<subscription-id>/providers/Microsoft.Compute/"
               "locations/" +
               qr.region + " --limit-object value=" + fixed(qr.new_limit, 0) +
               " limit-object-type=LimitValue --resource-type " +
               (spot ? "lowPriority" : "dedicated");
  return qr;
}

// The best blocked options that beat the winner.
void Planner::finish_quota_requests(Plan& plan) {
  std::vector<Cand> blocked;
  for (const Cand& b : blocked_best_) {
    if (b.valid() && (top_.empty() || order_(b, top_.front()))) blocked.push_back(b);
  }
  std::sort(blocked.begin(), blocked.end(), order_);
  std::vector<std::string> seen;
  for (const Cand& b : blocked) {
    if (plan.quota_requests.size() >= 3) break;
    const bool spot = catalog::kAllPricing[b.p] == Pricing::kSpot;
    std::string family = spot ? "lowPriorityCores" : sizes_[b.s]->quota_family;
    std::string key = family + "|" + regions_[b.r];
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    plan.quota_requests.push_back(quota_request(b, family));
  }
  if (!plan.quota_requests.empty()) {
    warnings_.push_back("a better option is blocked by quota: see the quota request" +
                        std::string(plan.quota_requests.size() > 1 ? "s" : ""));
  }
}

}  // namespace gpuplan::plan::internal
