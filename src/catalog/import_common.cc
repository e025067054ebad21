// Shared pieces of the Azure importers (see import_common.h).
#include "catalog/internal/import_common.h"

#include <cctype>
#include <cmath>
#include <limits>

#include "core/strings.h"

namespace gpuplan::catalog {

SizeFilter SizeFilter::from_sizes(const std::vector<VmSize>& sizes) {
  SizeFilter f;
  for (const VmSize& s : sizes) {
    f.sizes_[strings::fold(s.name)] = s.name;
    if (!s.quota_family.empty()) {
      f.families_[strings::fold(s.quota_family)] = s.quota_family;
      if (!s.quota_family_display.empty()) {
        f.families_[strings::fold(s.quota_family_display)] = s.quota_family;
      }
    }
  }
  return f;
}

SizeFilter SizeFilter::gpu_name_pattern() {
  SizeFilter f;
  f.pattern_ = true;
  return f;
}

std::optional<std::string> SizeFilter::match(std::string_view name) const {
  if (pattern_) {
    if (name.size() > 10 && strings::starts_with_icase(name, "Standard_N")) {
      char c = static_cast<char>(std::toupper(static_cast<unsigned char>(name[10])));
      if (c == 'C' || c == 'D' || c == 'G' || c == 'V') return std::string(name);
    }
    return std::nullopt;
  }
  auto it = sizes_.find(strings::fold(name));
  if (it == sizes_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> SizeFilter::match_family(std::string_view value,
                                                    std::string_view display) const {
  auto find = [&](std::string_view s) -> std::optional<std::string> {
    if (s.empty()) return std::nullopt;
    auto it = families_.find(strings::fold(s));
    if (it != families_.end()) return it->second;
    return std::nullopt;
  };
  if (auto v = find(value)) return v;
  if (auto d = find(display)) return d;
  // list-usage prints "Standard NCADS_A100_v4 Family vCPUs"; sizes may hold
  // the display name without the " vCPUs".
  std::string folded = strings::fold(display);
  if (strings::ends_with(folded, "vcpus")) {
    auto it = families_.find(folded.substr(0, folded.size() - 5));
    if (it != families_.end()) return it->second;
  }
  return std::nullopt;
}

namespace {

// The spot part of describe(): bands per size and region, price points.
std::string describe_spot(const SnapshotData& d) {
  std::string out = "  eviction bands stored: " + std::to_string(d.spot_bands.size()) +
                    " (percent of VMs evicted within an hour, per Azure)\n";
  for (const SpotBandRow& b : d.spot_bands)
    out += "    " + b.size + " in " + b.region + ": " + std::string(to_string(b.band)) + " %\n";
  out += "  spot price points stored: " + std::to_string(d.spot_prices.size()) + "\n";
  return out;
}

}  // namespace

std::string describe(const ImportReport& r) {
  std::string out;
  const SnapshotData& d = r.data;
  out += "Imported " + std::string(to_string(d.kind)) + " from " + d.source + "\n";
  out += "  pages/files read: " + std::to_string(r.pages) + "\n";
  out += "  items read:       " + std::to_string(r.items_read) + "\n";
  out += "  items used:       " + std::to_string(r.items_used) + "\n";
  int64_t ignored = 0;
  for (const auto& [reason, n] : r.ignored) ignored += n;
  out += "  items ignored:    " + std::to_string(ignored) + "\n";
  for (const auto& [reason, n] : r.ignored) out += "    " + std::to_string(n) + " " + reason + "\n";
  switch (d.kind) {
    case SnapshotKind::kRetailPrices:
      out += "  prices stored:    " + std::to_string(d.prices.size()) + "\n";
      if (!d.blob_prices.empty())
        out += "  Blob capacity price bands stored: " + std::to_string(d.blob_prices.size()) + "\n";
      if (r.rows_superseded > 0)
        out += "  older prices dropped (same size, region, os, pricing): " +
               std::to_string(r.rows_superseded) + "\n";
      break;
    case SnapshotKind::kSkus:
      out += "  size x region offered:    " + std::to_string(d.availability.size()) + "\n";
      out += "  restrictions stored:      " + std::to_string(d.restrictions.size()) + "\n";
      for (const Restriction& x : d.restrictions) {
        std::string zones;
        for (const auto& z : x.zones) zones += (zones.empty() ? "" : ",") + z;
        out += "    " + x.size + " in " + x.region + ": " + x.reason +
               (zones.empty() ? " (whole region)" : " (zones " + zones + ")") + "\n";
      }
      break;
    case SnapshotKind::kUsage:
      out += "  quota rows stored: " + std::to_string(d.usage.size()) + " (vCPUs used / limit)\n";
      for (const UsageRow& u : d.usage) {
        std::string name = u.family.empty() ? "regional total" : u.family;
        if (!u.family_display.empty()) name += " (" + u.family_display + ")";
        out += "    " + name + ": " + strings::fixed(u.used, 0) + " / " +
               strings::fixed(u.limit, 0) + "\n";
      }
      break;
    case SnapshotKind::kSpot:
      out += describe_spot(d);
      break;
  }
  for (const std::string& n : r.notes) out += "  note: " + n + "\n";
  if (r.snapshot)
    out += "  snapshot:         " + std::to_string(r.snapshot->id) + " (" +
           r.snapshot->imported_at + ")\n";
  return out;
}

nlohmann::ordered_json to_json(const ImportReport& r) {
  nlohmann::ordered_json j;
  j["kind"] = std::string(to_string(r.data.kind));
  j["source"] = r.data.source;
  j["pages"] = r.pages;
  j["items_read"] = r.items_read;
  j["items_used"] = r.items_used;
  nlohmann::ordered_json ign = nlohmann::ordered_json::object();
  for (const auto& [reason, n] : r.ignored) ign[reason] = n;
  j["items_ignored"] = ign;
  switch (r.data.kind) {
    case SnapshotKind::kRetailPrices:
      j["prices"] = r.data.prices.size();
      j["blob_price_bands"] = r.data.blob_prices.size();
      j["rows_superseded"] = r.rows_superseded;
      break;
    case SnapshotKind::kSkus:
      j["availability"] = r.data.availability.size();
      j["restrictions"] = r.data.restrictions.size();
      break;
    case SnapshotKind::kUsage:
      j["quotas"] = r.data.usage.size();
      break;
    case SnapshotKind::kSpot:
      j["eviction_bands"] = r.data.spot_bands.size();
      j["spot_prices"] = r.data.spot_prices.size();
      break;
  }
  j["notes"] = r.notes;
  if (r.snapshot) {
    j["snapshot"] = r.snapshot->id;
    j["imported_at"] = r.snapshot->imported_at;
  } else {
    j["snapshot"] = nullptr;
  }
  return j;
}

namespace internal {

Result<const nlohmann::json*> az_list(const nlohmann::json& doc, const std::string& origin,
                                      std::string_view what, std::string& prefix,
                                      std::vector<std::string>& notes) {
  prefix.clear();
  if (doc.is_array()) return &doc;
  const std::string name(what);
  if (!doc.is_object())
    return invalid_argument(
        "not " + name + " output: expected a JSON array, got " + json_type_name(doc),
        Where{origin});
  auto v = doc.find("value");
  if (v == doc.end())
    return invalid_argument(
        "not " + name + " output: expected a JSON array or an object with \"value\"",
        Where{origin});
  if (!v->is_array())
    return invalid_argument("expected an array, got " + json_type_name(*v),
                            Where{origin, 0, 0, "value"});
  prefix = "value";
  if (auto n = doc.find("nextLink"); n != doc.end() && !n->is_null()) {
    if (!n->is_string())
      return invalid_argument("expected a string or null, got " + json_type_name(*n),
                              Where{origin, 0, 0, "nextLink"});
    notes.push_back("the document has a nextLink: only this page was imported");
  }
  return &*v;
}

std::string json_type_name(const nlohmann::json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

Result<std::string> require_string(const nlohmann::json& obj, const char* key,
                                   const std::string& file, const std::string& path) {
  std::string field = path + "." + key;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null())
    return invalid_argument("missing field (expected a string)", Where{file, 0, 0, field});
  if (!it->is_string())
    return invalid_argument("expected a string, got " + json_type_name(*it),
                            Where{file, 0, 0, field});
  return it->get<std::string>();
}

Result<std::optional<std::string>> optional_string(const nlohmann::json& obj, const char* key,
                                                   const std::string& file,
                                                   const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string())
    return invalid_argument("expected a string, got " + json_type_name(*it),
                            Where{file, 0, 0, path + "." + key});
  return std::optional<std::string>(it->get<std::string>());
}

namespace {

// A value read from `field`: finite, >= 0 and at most `most`.
Result<double> check_non_negative(double v, const std::string& file, const std::string& field,
                                  double most) {
  if (!std::isfinite(v)) return invalid_argument("not a finite number", Where{file, 0, 0, field});
  if (v < 0)
    return invalid_argument("negative value " + strings::fixed(v, 4) + " (expected >= 0)",
                            Where{file, 0, 0, field});
  if (v > most) {
    return invalid_argument(
        "implausible value " + strings::general(v) + " (more than " + strings::general(most) + ")",
        Where{file, 0, 0, field});
  }
  return v;
}

}  // namespace

Result<double> require_non_negative(const nlohmann::json& obj, const char* key,
                                    const std::string& file, const std::string& path, double most) {
  const std::string field = path + "." + key;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null())
    return invalid_argument("missing field (expected a number)", Where{file, 0, 0, field});
  if (!it->is_number())
    return invalid_argument("expected a number, got " + json_type_name(*it) +
                                (it->is_string() ? " \"" + it->get<std::string>() + "\"" : ""),
                            Where{file, 0, 0, field});
  return check_non_negative(it->get<double>(), file, field, most);
}

Result<double> require_count(const nlohmann::json& obj, const char* key, const std::string& file,
                             const std::string& path) {
  const std::string field = path + "." + key;
  auto it = obj.find(key);
  double v = 0;
  if (it == obj.end() || !it->is_string()) {
    GPUPLAN_TRY(v, require_non_negative(obj, key, file, path, kMaxCount));
  } else {
    const std::optional<double> parsed = strings::parse_double(it->get<std::string>());
    if (!parsed)
      return invalid_argument("expected a number, got a string \"" + it->get<std::string>() + "\"",
                              Where{file, 0, 0, field});
    GPUPLAN_TRY(v, check_non_negative(*parsed, file, field, kMaxCount));
  }
  if (v != std::floor(v))
    return invalid_argument("expected a whole number, got " + strings::general(v),
                            Where{file, 0, 0, field});
  return v;
}

bool sovereign_cloud_region(std::string_view region) {
  for (std::string_view prefix : {"usgov", "usdod", "usnat", "ussec", "china"})
    if (region.substr(0, prefix.size()) == prefix) return true;
  return false;
}

Status refuse_sovereign_region(std::string_view region) {
  if (!sovereign_cloud_region(region)) return {};
  return invalid_argument("'" + std::string(region) +
                              "' is a sovereign cloud region (Azure Government or Azure China): "
                              "its own cloud with its own subscriptions, which a public-cloud "
                              "plan cannot deploy to",
                          Where{"", 0, 0, "--region"});
}

std::string normalize_region(std::string_view region) {
  std::string out;
  for (char c : region) {
    if (c == ' ') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

}  // namespace internal
}  // namespace gpuplan::catalog
