#include "cli/choices.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <utility>

#include "core/files.h"
#include "core/names.h"
#include "core/strings.h"
#include "estimate/estimate.h"
#include "plan/plan.h"
#include "simulate/deadline.h"
#include "simulate/demand.h"
#include "simulate/reserve.h"
#include "simulate/serving.h"
#include "workload/yaml_reader.h"

namespace gpuplan::cli {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

// The item of `seq` (a YAML sequence or scalar) whose text is `value`, folded.
YAML::Node find_item(const YAML::Node& node, std::string_view value) {
  if (!node.IsSequence()) return node;
  for (const YAML::Node& item : node) {
    if (item.IsScalar() && strings::fold(item.Scalar()) == strings::fold(value)) return item;
  }
  return node;
}

}  // namespace

CLI::Validator not_blank(const std::string& flag_help) {
  return CLI::Validator(
      [flag_help](const std::string& v) {
        return strings::trim(v).empty() ? "an empty value (" + flag_help + ")" : std::string();
      },
      "");
}

CLI::Validator one_of(std::string what, std::vector<std::string> choices, bool list) {
  // command_tree.cc reads the "{a,b,c}" description as the value list.
  std::string description = "{";
  for (size_t i = 0; i < choices.size(); ++i) description += (i ? "," : "") + choices[i];
  description += "}";
  return CLI::Validator(
      [what = std::move(what), choices = std::move(choices),
       list](std::string& text) -> std::string {
        std::vector<std::string> parts =
            list ? strings::split(text, ',') : std::vector<std::string>{text};
        for (const std::string& part : parts) {
          const std::string v = strings::to_lower(strings::trim(part));
          if (v.empty() && list) continue;
          if (std::find(choices.begin(), choices.end(), v) != choices.end()) continue;
          return "unknown " + what + " '" + names::printable(strings::trim(part), 60) +
                 "' (expected " + joined(choices) + ")" + strings::did_you_mean(v, choices);
        }
        return "";
      },
      description);
}

std::vector<std::string> pricing_names() {
  std::vector<std::string> out;
  for (catalog::Pricing p : catalog::kAllPricing) out.emplace_back(catalog::to_string(p));
  return out;
}

std::vector<std::string> os_names() {
  return {std::string(catalog::to_string(catalog::Os::kLinux)),
          std::string(catalog::to_string(catalog::Os::kWindows))};
}

std::vector<std::string> sort_names() {
  std::vector<std::string> out;
  for (catalog::CatalogSort s : catalog::kAllCatalogSorts) out.emplace_back(catalog::to_string(s));
  return out;
}

std::vector<std::string> objective_names() {
  std::vector<std::string> out;
  for (plan::Objective o : plan::kAllObjectives) out.emplace_back(plan::to_string(o));
  return out;
}

std::vector<std::string> policy_names() {
  std::set<std::string> names;
  for (const auto* list :
       {&simulate::deadline_policy_names(), &simulate::serving_policy_names(),
        &simulate::serving_on_request_names(), &simulate::reserve_policy_names()}) {
    names.insert(list->begin(), list->end());
  }
  std::vector<std::string> out = {"all"};
  out.insert(out.end(), names.begin(), names.end());
  return out;
}

Where field_where(const std::string& file, const std::string& field, std::string_view value) {
  Where where{file, 0, 0, field};
  auto text = files::read_text(file);
  if (!text) return where;
  auto root = yaml::load(*text, file);
  if (!root) return where;
  // reset(), not operator=, rebinds a YAML::Node (= would assign into the
  // tree); the const operator[] looks up without inserting.
  YAML::Node node(*root);
  for (const std::string& key : strings::split(field, '.')) {
    const YAML::Node parent(node);
    if (!parent.IsMap() || !parent[key]) return where;
    node.reset(parent[key]);
  }
  return yaml::located(find_item(node, value).Mark(), file, field);
}

Error located_in(const workload::Workload& w, Error e) {
  if (!w.file.empty() && e.where.file == w.file && e.where.line == 0 && !e.where.field.empty())
    e.where = field_where(w.file, e.where.field, "");
  return e;
}

Status rate_from_trace(workload::Workload& w) {
  if (w.kind != workload::Kind::kInfer || w.serving.request_rate > 0 || w.serving.trace.empty())
    return {};
  std::filesystem::path path(w.serving.trace);
  if (path.is_relative() && !w.file.empty())
    path = std::filesystem::path(w.file).parent_path() / path;
  auto rate = simulate::trace_mean_rate(path.string());
  if (!rate) {
    Error e = rate.error();
    e.message = "serving.trace: " + e.message;
    if (e.where.file.empty()) e.where = field_where(w.file, "serving.trace", w.serving.trace);
    return tl::unexpected(e);
  }
  w.serving.request_rate = rate->rps;
  w.serving.request_rate_source = "mean of serving.trace " + path.string() + ": " +
                                  std::to_string(rate->requests) + " requests over " +
                                  strings::fixed(rate->span_s, 0) + " s";
  return {};
}

Status check_workload_names(const catalog::Catalog& catalog, const workload::Workload& w) {
  const workload::Constraints& c = w.constraints;
  // The entry's line only for the one refused: field_where reads and parses
  // the file again, and once per entry 4,000 regions (37 KB) took 25 s.
  for (const std::string& r : c.regions) {
    auto known = catalog.check_region_name(r, Where{w.file, 0, 0, "constraints.regions"});
    if (!known) {
      Error e = known.error();
      e.where = field_where(w.file, "constraints.regions", r);
      return tl::unexpected(e);
    }
  }
  if (!c.data_region.empty()) {
    GPUPLAN_RETURN_IF_ERROR(catalog.check_region_name(
        c.data_region, field_where(w.file, "constraints.data_region", c.data_region)));
  }
  if (!c.series.empty()) {
    // A series name or a family letter, ignoring case (plan_enumerate.cc's rule).
    std::set<std::string> known;
    std::vector<std::string> names;
    for (const catalog::VmSize& s : catalog.sizes()) {
      if (known.insert(strings::fold(s.series)).second) names.push_back(s.series);
      if (known.insert(strings::fold(s.family_letter)).second) names.push_back(s.family_letter);
    }
    for (const std::string& s : c.series) {
      if (known.count(strings::fold(s)) > 0) continue;
      return invalid_argument("unknown VM series or family '" + names::printable(s, 60) + "'" +
                                  strings::did_you_mean(s, names),
                              field_where(w.file, "constraints.series", s));
    }
  }
  if (w.kind == workload::Kind::kBatch && !w.batch.reference_gpu.empty()) {
    const std::vector<std::string> gpus = estimate::reference_gpu_names();
    const std::string& g = w.batch.reference_gpu;
    const bool known = std::any_of(gpus.begin(), gpus.end(), [&](const std::string& n) {
      return strings::fold(n) == strings::fold(g);
    });
    if (!known) {
      // A family name ("H100") means one of its parts: name them, rather
      // than the nearest spelling ("did you mean 'A10'?").
      std::vector<std::string> parts;
      for (const std::string& n : gpus)
        if (strings::fold(n).rfind(strings::fold(g), 0) == 0) parts.push_back(n);
      const std::string hint =
          parts.empty() ? strings::did_you_mean(g, gpus) : "; did you mean " + joined(parts) + "?";
      return invalid_argument("unknown reference GPU '" + names::printable(g, 60) +
                                  "' (expected one of " + joined(gpus) + ")" + hint,
                              field_where(w.file, "batch.reference_gpu", g));
    }
  }
  return {};
}

}  // namespace gpuplan::cli
