// `report`: stream an export into per-resource, per-day totals, then judge
// them (findings.cc). The top-level flow reads as named steps:
//   1. the header says which format (export_reader.cc);
//   2. each row is folded and added to its resource's day and, when it ran
//      under a commitment, to that commitment;
//   3. resources whose compute meter is a GPU size of the catalog become VMs;
//   4. findings.cc applies the rules and writes the recommendations.
// Memory: one record, one accumulator per resource (a map of its days) and
// one per commitment — bounded by resources x days, whatever the row count.
#include <algorithm>
#include <fstream>
#include <map>
#include <unordered_map>

#include "core/strings.h"
#include "report/internal/export_row.h"
#include "report/internal/findings.h"

namespace gpuplan::report {

std::string_view to_string(ExportFormat f) {
  return f == ExportFormat::kFocus ? "focus" : "azure-cost";
}

std::string_view to_string(Category c) {
  switch (c) {
    case Category::kOnDemand:
      return "on-demand";
    case Category::kSpot:
      return "spot";
    case Category::kCommitted:
      return "committed";
    case Category::kOther:
      break;
  }
  return "other";
}

namespace {

using internal::CommitmentStatus;

constexpr int kMaxSpanDays = 3 * 366;
using internal::CostRow;

struct DayAcc {
  double usd = 0;
  double hours = 0;
};

struct ResourceAcc {
  std::string id;
  const catalog::VmSize* size = nullptr;
  std::string region;
  std::map<int, DayAcc> days;
  double usd_total = 0, usd_compute = 0, hours = 0;
  double usd_cat[kCategories] = {0, 0, 0, 0};
  double hours_cat[kCategories] = {0, 0, 0, 0};
};

struct CommitmentAcc {
  CommitmentReport out;
  std::map<const catalog::VmSize*, double> hours_by_size;
  const catalog::VmSize* unused_size = nullptr;
  std::string region;
};

// Transparent hashing so a string_view row field looks up without a copy.
struct Hash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using Index = std::unordered_map<std::string, size_t, Hash, std::equal_to<>>;

class Accumulator {
 public:
  explicit Accumulator(const catalog::Catalog& catalog) : catalog_(catalog) {}

  void add(const CostRow& r) {
    ++rows_;
    first_ = std::min(first_, r.day);
    last_ = std::max(last_, r.day);
    // EffectiveCost (FOCUS: purchases are 0, their amortized share is on the
    // usage rows) or the Azure cost column (actual: purchases included): each
    // is the whole bill once.
    total_ += r.cost;
    if (currency_.empty() && !r.currency.empty()) currency_ = r.currency;
    if (!r.commitment_id.empty()) add_commitment(r);
    if (r.commitment_status == CommitmentStatus::kUnused || r.purchase) return;
    if (r.resource_id.empty()) return;
    ResourceAcc& acc = resource(r.resource_id);
    DayAcc& day = acc.days[r.day];
    day.usd += r.cost;
    acc.usd_total += r.cost;
    const catalog::VmSize* size = r.vm_meter && r.hours > 0 ? gpu_size(r.size_hint) : nullptr;
    if (size == nullptr) return;
    acc.size = size;
    if (acc.region.empty()) acc.region = region_id(r.region);
    day.hours += r.hours;
    acc.hours += r.hours;
    acc.usd_compute += r.cost;
    acc.usd_cat[static_cast<int>(r.category)] += r.cost;
    acc.hours_cat[static_cast<int>(r.category)] += r.hours;
  }

  Report finish(const std::string& file, ExportFormat format) {
    Report rep;
    rep.file = file;
    rep.format = format;
    rep.rows = rows_;
    rep.currency = currency_;
    rep.usd_total = total_;
    if (rows_ > 0) {
      rep.first_day = internal::format_day(first_);
      rep.last_day = internal::format_day(last_);
    }
    for (ResourceAcc& acc : resources_) {
      if (acc.size == nullptr) continue;
      rep.vms.push_back(vm_report(acc));
      rep.usd_gpu_vms += acc.usd_total;
    }
    std::sort(rep.vms.begin(), rep.vms.end(), [](const VmReport& a, const VmReport& b) {
      return a.usd_total != b.usd_total ? a.usd_total > b.usd_total : a.resource_id < b.resource_id;
    });
    for (auto& [id, c] : commitments_) {
      const catalog::VmSize* size = c.unused_size;
      double best = -1;
      for (const auto& [s, h] : c.hours_by_size)
        if (h > best) best = h, size = s;
      if (size != nullptr) c.out.size = size->name;
      c.out.region = c.region;
      rep.commitments.push_back(c.out);
    }
    return rep;
  }

  [[nodiscard]] int period_days() const { return rows_ > 0 ? last_ - first_ + 1 : 0; }

 private:
  // Azure resource ids are case-insensitive, and exports do spell one id in
  // several casings: the folded id is the key. Folding every row was a third
  // of the reading time, so the id as spelled is looked up first.
  ResourceAcc& resource(std::string_view id) {
    if (auto exact = spelled_.find(id); exact != spelled_.end()) return resources_[exact->second];
    std::string key = strings::to_lower(id);
    auto it = index_.find(key);
    size_t i = 0;
    if (it != index_.end()) {
      i = it->second;
    } else {
      i = resources_.size();
      index_.emplace(std::move(key), i);
      resources_.push_back(ResourceAcc{});
      resources_.back().id = std::string(id);
    }
    spelled_.emplace(std::string(id), i);
    return resources_[i];
  }

  // The GPU size a meter names ("Standard_NC40ads_H100_v5", "NC40ads H100 v5",
  // "NC40ads H100 v5 Spot", "... Low Priority"); nullptr when it is not a GPU
  // size of the catalog. Cached: a file names a handful of meters.
  const catalog::VmSize* gpu_size(std::string_view hint) {
    auto it = sizes_.find(hint);
    if (it != sizes_.end()) return it->second;
    std::string name(hint);
    for (std::string_view suffix : {" Low Priority", " Spot"}) {
      if (strings::ends_with(name, suffix)) name.resize(name.size() - suffix.size());
    }
    std::replace(name.begin(), name.end(), ' ', '_');
    const catalog::VmSize* s = name.empty() ? nullptr : catalog_.find_size(name);
    if (s != nullptr && s->gpu_count <= 0) s = nullptr;
    sizes_.emplace(std::string(hint), s);
    return s;
  }

  static std::string region_id(std::string_view r) {
    std::string out;
    for (char c : r)
      if (c != ' ') out.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
    return out;
  }

  void add_commitment(const CostRow& r) {
    std::string key = strings::to_lower(r.commitment_id);
    CommitmentAcc& c = commitments_[key];
    if (c.out.id.empty()) c.out.id = std::string(r.commitment_id);
    if (c.out.name.empty()) c.out.name = std::string(r.commitment_name);
    if (c.out.type.empty()) c.out.type = std::string(r.commitment_type);
    if (c.region.empty() && !r.region.empty()) c.region = region_id(r.region);
    if (r.purchase) {
      if (c.unused_size == nullptr) c.unused_size = gpu_size(r.size_hint);
      c.out.purchase_usd += r.billed_cost;
      c.out.purchase_quantity += r.quantity;
      if (!r.recurring) c.out.one_time_purchase = true;
      return;
    }
    if (r.commitment_status == CommitmentStatus::kUnused) {
      c.out.unused_usd += r.cost;
      if (c.unused_size == nullptr) c.unused_size = gpu_size(r.size_hint);
      return;
    }
    if (r.commitment_status == CommitmentStatus::kUsed && r.vm_meter && r.hours > 0) {
      c.out.used_hours += r.hours;
      c.out.used_usd += r.cost;
      if (const catalog::VmSize* s = gpu_size(r.size_hint)) c.hours_by_size[s] += r.hours;
    }
  }

  VmReport vm_report(const ResourceAcc& acc) const {
    VmReport v;
    v.resource_id = acc.id;
    size_t slash = acc.id.find_last_of('/');
    v.name = slash == std::string::npos ? acc.id : acc.id.substr(slash + 1);
    v.size = acc.size->name;
    v.region = acc.region;
    v.gpu_model = acc.size->gpu_model;
    v.gpu_count = acc.size->gpu_count;
    v.hours_billed = acc.hours;
    v.usd_total = acc.usd_total;
    v.usd_compute = acc.usd_compute;
    for (int i = 0; i < kCategories; ++i) {
      v.usd_by_category[i] = acc.usd_cat[i];
      v.hours_by_category[i] = acc.hours_cat[i];
    }
    if (acc.hours > 0 && v.gpu_count > 0)
      v.effective_usd_per_gpu_hour = acc.usd_compute / (acc.hours * v.gpu_count);
    if (const catalog::Offer* o =
            catalog_.offer(v.size, v.region, catalog::Os::kLinux, catalog::Pricing::kPayg);
        o != nullptr && o->usd_per_hour && v.gpu_count > 0) {
      v.list_usd_per_gpu_hour = *o->usd_per_hour / v.gpu_count;
      v.list_source = o->source;
      v.list_as_of = o->as_of;
    }
    const int first = acc.days.begin()->first, last = acc.days.rbegin()->first;
    for (int d = first; d <= last; ++d) {
      auto it = acc.days.find(d);
      DayAcc day = it == acc.days.end() ? DayAcc{} : it->second;
      if (day.hours > 0) ++v.days_running;
      v.daily.push_back(DayCost{internal::format_day(d), day.usd, day.hours});
    }
    return v;
  }

  const catalog::Catalog& catalog_;
  long long rows_ = 0;
  int first_ = 1 << 30, last_ = -(1 << 30);
  double total_ = 0;
  std::string currency_;
  std::vector<ResourceAcc> resources_;
  Index index_;    // folded id -> resources_
  Index spelled_;  // id as spelled in the file -> resources_
  std::unordered_map<std::string, const catalog::VmSize*, Hash, std::equal_to<>> sizes_;
  std::map<std::string, CommitmentAcc> commitments_;
};

}  // namespace

Result<Report> read_export(std::istream& in, const std::string& file,
                           const catalog::Catalog& catalog, const Options& options) {
  // 1. The header says which format.
  internal::CsvStream csv(in, file);
  std::vector<std::string> fields;
  GPUPLAN_TRY(bool any, csv.next(fields));
  if (!any) return invalid_argument("empty export: no header", Where{file, 1, 0, ""});
  GPUPLAN_TRY(internal::ColumnMap map, internal::map_header(fields, file));
  // 2. Fold and accumulate every row.
  Accumulator acc(catalog);
  int first = 1 << 30, last = -(1 << 30);
  while (true) {
    GPUPLAN_TRY(bool more, csv.next(fields));
    if (!more) break;
    GPUPLAN_TRY(CostRow row, internal::fold_row(map, fields, csv.line(), file));
    // Memory is resources x days: a span of centuries (a damaged date) would
    // make it unbounded. Cost Details keeps 13 months of history
    // (get-small-usage-datasets-on-demand.md); three years is plenty.
    first = std::min(first, row.day);
    last = std::max(last, row.day);
    if (last - first >= kMaxSpanDays) {
      return invalid_argument(
          "the export would span " + std::to_string(last - first + 1) + " days (" +
              internal::format_day(first) + " .. " + internal::format_day(last) +
              "); gpuplan reads at most " + std::to_string(kMaxSpanDays) + " (three years)",
          Where{file, csv.line(), map.date + 1, map.header[static_cast<size_t>(map.date)]});
    }
    acc.add(row);
  }
  // 3. GPU VMs and commitments; 4. findings.
  Report rep = acc.finish(file, map.format);
  internal::judge(rep, catalog, options, acc.period_days());
  return rep;
}

Result<Report> read_export_file(const std::string& path, const catalog::Catalog& catalog,
                                const Options& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found("cannot open the cost export", Where{path, 0, 0, ""});
  return read_export(in, path, catalog, options);
}

}  // namespace gpuplan::report
