// list-usage importer.
//
// Problem: Azure enforces vCPU quota per region at two tiers — "Total
// Regional vCPUs" (name.value "cores") and one per VM family
// ("standardNCADSH100v5Family", displayed "Standard NCADS_H100_v5 Family
// vCPUs") — plus a separate regional pool for spot ("lowPriorityCores",
// "Total Regional Low-priority vCPUs"); facts.md section 5. Family names
// differ in case and spacing between list-skus, list-usage and the docs
// ("Standard NCASv3_T4 Family" vs "standardNCASv3_T4Family").
// Approach: classify each row by name.value; store currentValue as used and
// limit as limit; match family rows to the catalog's quota families with
// strings::fold (case, spaces, '_' and '-' ignored), trying the API name,
// then the display name with and without " vCPUs"; keep both names.
// Trade-off: families no catalog size uses are still stored (they are the
// user's quota and cheap), under Azure's own API name.
#include "catalog/import_usage.h"

#include <algorithm>
#include <set>
#include <utility>

#include "core/files.h"
#include "core/names.h"
#include "core/strings.h"

namespace gpuplan::catalog {

using internal::json_type_name;
using internal::require_count;
using internal::require_string;

Result<ImportReport> import_usage_text(std::string_view text, const std::string& origin,
                                       const std::string& region, const SizeFilter& filter) {
  std::string reg = internal::normalize_region(region);
  if (reg.empty())
    return invalid_argument("list-usage is per region: give --region (the -l of az vm list-usage)",
                            Where{origin});
  GPUPLAN_TRY(nlohmann::json doc, files::parse_json_unique_keys(text, origin));
  ImportReport report;
  report.data.kind = SnapshotKind::kUsage;
  GPUPLAN_RETURN_IF_ERROR(names::check_region(reg, Where{"", 0, 0, "--region"}));
  report.data.source = origin + " (region " + reg + ")";
  report.pages = 1;

  std::string prefix;
  GPUPLAN_TRY(const nlohmann::json* list,
              internal::az_list(doc, origin, "list-usage", prefix, report.notes));

  std::set<std::string> seen;
  int64_t matched = 0;
  for (size_t i = 0; i < list->size(); ++i) {
    const nlohmann::json& row = (*list)[i];
    const std::string path = prefix + "[" + std::to_string(i) + "]";
    if (!row.is_object())
      return invalid_argument("expected an object, got " + json_type_name(row),
                              Where{origin, 0, 0, path});
    ++report.items_read;
    GPUPLAN_TRY(double used, require_count(row, "currentValue", origin, path));
    GPUPLAN_TRY(double limit, require_count(row, "limit", origin, path));
    auto name = row.find("name");
    if (name == row.end() || name->is_null())
      return invalid_argument("missing field (expected {value, localizedValue})",
                              Where{origin, 0, 0, path + ".name"});
    if (!name->is_object())
      return invalid_argument("expected an object, got " + json_type_name(*name),
                              Where{origin, 0, 0, path + ".name"});
    GPUPLAN_TRY(std::string value, require_string(*name, "value", origin, path + ".name"));
    GPUPLAN_TRY(auto display,
                internal::optional_string(*name, "localizedValue", origin, path + ".name"));
    std::string shown = display.value_or("");
    // Names are stored and printed by every later plan: one carrying an
    // escape sequence ("standardEvil\x1b[31mFamily") was stored and
    // recoloured the terminal. Azure's names are plain text; refuse others.
    for (const auto& [field, name_text] :
         {std::pair<const char*, const std::string&>{"value", value}, {"localizedValue", shown}}) {
      if (strings::terminal_control_at(name_text) || strings::invalid_utf8_at(name_text))
        return invalid_argument("'" + strings::escape_controls(name_text) +
                                    "' holds a control character or is not UTF-8; Azure's quota "
                                    "names are plain text",
                                Where{origin, 0, 0, path + ".name." + field});
    }

    UsageRow u{reg, "", shown, limit, used};
    std::string folded = strings::fold(value);
    if (folded == "cores") {
      u.family = "";
    } else if (folded == "lowprioritycores") {
      u.family = "lowPriorityCores";
    } else if (strings::ends_with(folded, "family")) {
      if (auto f = filter.match_family(value, shown)) {
        u.family = *f;
        ++matched;
      } else {
        u.family = value;
      }
    } else {
      ++report.ignored["not a vCPU quota (" + value + ")"];
      continue;
    }
    if (!seen.insert(strings::fold(u.family)).second)
      return invalid_argument("quota '" + value + "' listed twice", Where{origin, 0, 0, path});
    ++report.items_used;
    report.data.usage.push_back(std::move(u));
  }
  if (report.data.usage.empty())
    return invalid_argument("nothing to import: " + std::to_string(report.items_read) +
                                " rows read, none is a vCPU quota",
                            Where{origin});
  if (filter.uses_catalog())
    report.notes.push_back("families matched to GPU sizes of the catalog: " +
                           std::to_string(matched));
  std::sort(report.data.usage.begin(), report.data.usage.end(),
            [](const UsageRow& a, const UsageRow& b) { return a.family < b.family; });
  return report;
}

Result<ImportReport> import_usage_file(const std::string& path, const std::string& region,
                                       const SizeFilter& filter) {
  GPUPLAN_TRY(std::string text, files::read_text(path));
  return import_usage_text(text, path, region, filter);
}

}  // namespace gpuplan::catalog
