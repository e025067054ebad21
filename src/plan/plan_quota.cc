// The planner's quota requests: among the candidates blocked only by quota
// (the best per size and region, kept by plan_feasibility.cc), those that
// beat the winner become requests — at most three, one per (first binding
// limit, region).
//
// An option needs count x vCPUs under each of the limits `az vm list-usage`
// reports for its region: its family's (standardNCADSH100v5Family) — for
// spot the low-priority pool (lowPriorityCores) instead — and the regional
// total of all families (`cores`, "Total Regional vCPUs"), the same limits
// catalog::quota_headroom_vcpus() checks. Every limit whose headroom is short
// is named with its current value, usage, what the option needs and the
// value to ask for (used + needed), and the `az quota` command that asks for
// it: on a new subscription the regional total binds before the family does,
// and a request for the family alone would not unlock the option.
#include <algorithm>
#include <cctype>

#include "core/names.h"
#include "core/strings.h"
#include "plan/internal/planner.h"

namespace gpuplan::plan::internal {

using catalog::Pricing;
using strings::fixed;

namespace {

// As the catalog matches list-usage names: folded, without a "vCPUs" suffix.
std::string quota_key(std::string_view name) {
  std::string k = strings::fold(name);
  if (k.size() > 5 && k.compare(k.size() - 5, 5, "vcpus") == 0) k.resize(k.size() - 5);
  return k;
}

// One shell word: as is when it is a plain name, else single-quoted. Azure
// names some families with spaces ("Standard NCASv3_T4 Family"), which the
// shell split into three arguments; and an imported name is text from a
// file, which must stay inert when the command is pasted.
std::string shell_word(const std::string& s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
  });
  return plain ? s : names::shell_quote(s);
}

std::string quota_command(const QuotaLimit& l, const std::string& region, bool spot) {
  const std::string verb = l.limit > 0 ? "update" : "create";
  return "az quota " + verb + " --resource-name " + shell_word(l.resource) +
         // The subscription from the signed-in az (a "<subscription-id>"
         // placeholder was a shell redirection when pasted).
         " --scope \"/subscriptions/$(az account show --query id -o tsv)/providers/"
         "Microsoft.Compute/locations/" +
         region + "\" --limit-object value=" + fixed(l.new_limit, 0) +
         " limit-object-type=LimitValue --resource-type " + (spot ? "lowPriority" : "dedicated");
}

}  // namespace

// The limits that stand in the way of `b`: each imported limit of its region
// whose headroom is below what it needs.
std::vector<QuotaLimit> Planner::binding_limits(const Cand& b) const {
  const catalog::VmSize& size = *sizes_[b.s];
  const bool spot = catalog::kAllPricing[b.p] == Pricing::kSpot;
  const std::string region = strings::fold(regions_[b.r]);
  const std::string api = quota_key(size.quota_family);
  const std::string display = quota_key(size.quota_family_display);
  const double needed = static_cast<double>(size.vcpus) * b.count;
  std::vector<QuotaLimit> out;
  for (const catalog::Quota& q : catalog_.quotas()) {
    if (strings::fold(q.region) != region) continue;
    const std::string k = quota_key(q.family);
    QuotaLimit l;
    if (k.empty() || k == "cores" || k == "totalregional") {
      l.scope = "regional";
      l.resource = "cores";
    } else if (spot && (k == "lowprioritycores" || k == "totalregionallowpriority")) {
      l.scope = "spot";
      l.resource = "lowPriorityCores";
    } else if (!spot && ((!api.empty() && k == api) || (!display.empty() && k == display))) {
      l.scope = "family";
      l.resource = size.quota_family.empty() ? q.family : size.quota_family;
    } else {
      continue;
    }
    if (q.limit - q.used >= needed) continue;
    l.limit = q.limit;
    l.used = q.used;
    l.needed = needed;
    l.new_limit = std::max(q.limit, q.used + needed);
    l.command = quota_command(l, regions_[b.r], spot && l.scope == "spot");
    out.push_back(std::move(l));
  }
  // The family or spot pool first, then the regional total.
  std::stable_sort(out.begin(), out.end(), [](const QuotaLimit& x, const QuotaLimit& y) {
    return x.scope != "regional" && y.scope == "regional";
  });
  return out;
}

QuotaRequest Planner::quota_request(const Cand& b, std::vector<QuotaLimit> limits) {
  const bool spot = catalog::kAllPricing[b.p] == Pricing::kSpot;
  QuotaRequest qr;
  const QuotaLimit& first = limits.front();
  qr.family = first.resource;
  qr.region = regions_[b.r];
  qr.spot = spot;
  qr.limit = first.limit;
  qr.used = first.used;
  qr.vcpus_needed = first.needed;
  qr.new_limit = first.new_limit;
  qr.command = first.command;
  qr.limits = std::move(limits);
  qr.unlocks = materialise(b);
  qr.unlocks.quota_ok = false;
  qr.saves_usd = top_.empty() ? 0 : std::max(0.0, top_.front().cost - b.cost);
  qr.unlocks.why = top_.empty() ? "the best option once quota allows it"
                                : "beats the winner once quota allows it";
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
    std::vector<QuotaLimit> limits = binding_limits(b);
    if (limits.empty()) continue;  // cannot happen: the candidate was blocked by one
    std::string key = limits.front().resource + "|" + regions_[b.r];
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    plan.quota_requests.push_back(quota_request(b, std::move(limits)));
  }
  if (!plan.quota_requests.empty()) {
    warnings_.push_back("a better option is blocked by quota: see the quota request" +
                        std::string(plan.quota_requests.size() > 1 ? "s" : ""));
  }
}

}  // namespace gpuplan::plan::internal
