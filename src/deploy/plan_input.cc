#include "deploy/plan_input.h"

#include <cmath>
#include <filesystem>

#include "core/files.h"
#include "core/names.h"
#include "core/strings.h"

namespace gpuplan::deploy {
namespace {

using nlohmann::json;

// The schema this reader knows besides /1: the one this gpuplan writes.
constexpr std::string_view kPlanSchemaV2 = plan::kPlanSchema;

Where at(const std::string& file, const std::string& path) { return Where{file, 0, 0, path}; }

// "1024 GiB" (the plan's data_disk_gib assumption) → 1024.
std::optional<double> disk_gib(const std::string& text) {
  return strings::parse_double(strings::split(std::string(strings::trim(text)), ' ')[0]);
}

Result<std::string> get_string(const json& obj, const char* key, const std::string& file,
                               const std::string& path, bool required = true) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    if (!required) return std::string();
    return invalid_argument("missing (expected a string)", at(file, path + "." + key));
  }
  if (!it->is_string()) return invalid_argument("expected a string", at(file, path + "." + key));
  return it->get<std::string>();
}

Result<double> get_number(const json& obj, const char* key, const std::string& file,
                          const std::string& path, bool required = true) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    if (!required) return 0.0;
    return invalid_argument("missing (expected a number)", at(file, path + "." + key));
  }
  if (!it->is_number()) return invalid_argument("expected a number", at(file, path + "." + key));
  // A plan's hours, dollars and GPUs; 1e308 hours once became a 309-digit
  // line of deploy.sh and a budget of 1 USD. make_plan applies the same
  // bound, so no plan gpuplan writes is refused here.
  constexpr double kMax = plan::kMaxPlanFigure;
  const double v = it->get<double>();
  if (!std::isfinite(v) || v < 0 || v > kMax) {
    return invalid_argument("expected a number from 0 to 1e15", at(file, path + "." + key));
  }
  return v;
}

Result<bool> get_bool(const json& obj, const char* key, const std::string& file,
                      const std::string& path, bool fallback) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return fallback;
  if (!it->is_boolean())
    return invalid_argument("expected true or false", at(file, path + "." + key));
  return it->get<bool>();
}

// A workload kind as `plan` writes it (workload::to_string), or none.
Status check_kind(const std::string& kind, const std::string& file, const std::string& path) {
  if (kind.empty() || kind == "train" || kind == "finetune" || kind == "infer" || kind == "batch")
    return {};
  return invalid_argument("expected train, finetune, infer or batch", at(file, path));
}

Result<PlanOption> parse_option(const json& o, int version, const std::string& file,
                                const std::string& path) {
  if (!o.is_object()) return invalid_argument("expected an option object", at(file, path));
  PlanOption opt;
  GPUPLAN_TRY(opt.size, get_string(o, "size", file, path));
  GPUPLAN_RETURN_IF_ERROR(names::check_size(opt.size, at(file, path + ".size")));
  GPUPLAN_TRY(double count, get_number(o, "count", file, path));
  if (count < 1 || count != std::floor(count) || count > 10000) {
    return invalid_argument("expected a whole number of VMs >= 1", at(file, path + ".count"));
  }
  opt.count = static_cast<int>(count);
  GPUPLAN_TRY(opt.gpus, get_number(o, "gpus", file, path));
  if (version == 1) {
    GPUPLAN_TRY(opt.gpu, get_string(o, "gpu_model", file, path, false));
  } else {
    GPUPLAN_TRY(opt.gpu, get_string(o, "gpu", file, path, false));
    if (o.contains("gpu_count") && !o["gpu_count"].is_null()) {
      GPUPLAN_TRY(double per_vm, get_number(o, "gpu_count", file, path));
      opt.gpu_count = per_vm;
    }
  }
  GPUPLAN_TRY(opt.region, get_string(o, "region", file, path));
  GPUPLAN_RETURN_IF_ERROR(names::check_region(opt.region, at(file, path + ".region")));
  GPUPLAN_TRY(std::string pricing, get_string(o, "pricing", file, path));
  auto p = catalog::parse_pricing(pricing);
  if (!p) return invalid_argument(p.error().message, at(file, path + ".pricing"));
  opt.pricing = *p;
  GPUPLAN_TRY(std::string os, get_string(o, "os", file, path));
  auto parsed_os = catalog::parse_os(os);
  if (!parsed_os) return invalid_argument(parsed_os.error().message, at(file, path + ".os"));
  opt.os = *parsed_os;
  GPUPLAN_TRY(opt.hybrid_benefit, get_bool(o, "hybrid_benefit", file, path, false));
  GPUPLAN_TRY(opt.hours, get_number(o, "hours", file, path));
  GPUPLAN_TRY(opt.hours_high, get_number(o, "hours_high", file, path, false));
  GPUPLAN_TRY(opt.cost_usd, get_number(o, "cost_usd", file, path));
  GPUPLAN_TRY(opt.cost_low_usd, get_number(o, "cost_low_usd", file, path));
  GPUPLAN_TRY(opt.cost_high_usd, get_number(o, "cost_high_usd", file, path));
  GPUPLAN_TRY(opt.usd_per_hour, get_number(o, "usd_per_hour", file, path));
  GPUPLAN_TRY(opt.quota_ok, get_bool(o, "quota_ok", file, path, true));
  GPUPLAN_TRY(opt.kind, get_string(o, "kind", file, path, false));
  // What `plan` writes: a VM's GPUs (fractions for GPU slices), its hours
  // and price are more than nothing, and the kind is a workload's.
  for (const auto& [key, value] : {std::pair<const char*, double>{"gpus", opt.gpus},
                                   {"hours", opt.hours},
                                   {"usd_per_hour", opt.usd_per_hour}}) {
    if (value <= 0) return invalid_argument("expected a number > 0", at(file, path + "." + key));
  }
  GPUPLAN_RETURN_IF_ERROR(check_kind(opt.kind, file, path + ".kind"));
  GPUPLAN_TRY(opt.confidential, get_bool(o, "confidential", file, path, false));
  if (opt.cost_high_usd < opt.cost_usd || opt.cost_low_usd > opt.cost_usd) {
    return invalid_argument("expected cost_low_usd <= cost_usd <= cost_high_usd",
                            at(file, path + ".cost_usd"));
  }
  if (opt.hybrid_benefit && opt.os != catalog::Os::kWindows) {
    return invalid_argument("hybrid_benefit applies to Windows only",
                            at(file, path + ".hybrid_benefit"));
  }
  auto price = o.find("price");
  if (price != o.end() && price->is_object()) {
    GPUPLAN_TRY(opt.price_source, get_string(*price, "source", file, path + ".price", false));
    GPUPLAN_TRY(opt.price_as_of, get_string(*price, "as_of", file, path + ".price", false));
  }
  return opt;
}

}  // namespace

Result<PlanDocument> parse_plan_json(std::string_view text, const std::string& file) {
  GPUPLAN_TRY(json doc, files::parse_json_unique_keys(text, file));
  if (!doc.is_object()) return invalid_argument("expected a gpuplan plan object", at(file, "$"));
  PlanDocument plan;
  plan.file = file;
  auto schema = doc.find("schema");
  // Only the versions this gpuplan knows: a newer one may mean fields this
  // reader would misread (issue 15, item 7). /2 renamed gpu_model to gpu.
  int version = 1;
  if (schema != doc.end()) {
    if (schema->is_string() && *schema == "gpuplan.plan/1") {
      version = 1;
    } else if (schema->is_string() && *schema == kPlanSchemaV2) {
      version = 2;
    } else {
      return invalid_argument("expected \"gpuplan.plan/1\" or \"" + std::string(kPlanSchemaV2) +
                                  "\" (output of `gpuplan plan --json`), got " +
                                  names::printable(schema->dump(), 40),
                              at(file, "schema"));
    }
  }
  auto wl = doc.find("workload");
  if (wl != doc.end() && wl->is_object()) {
    GPUPLAN_TRY(plan.workload_name, get_string(*wl, "name", file, "workload", false));
    GPUPLAN_TRY(plan.workload_kind, get_string(*wl, "kind", file, "workload", false));
    GPUPLAN_RETURN_IF_ERROR(check_kind(plan.workload_kind, file, "workload.kind"));
  } else if (wl != doc.end() && wl->is_string()) {
    plan.workload_name = wl->get<std::string>();
  }
  if (plan.workload_name.empty()) plan.workload_name = std::filesystem::path(file).stem().string();
  auto options = doc.find("options");
  if (options == doc.end() || !options->is_array()) {
    return invalid_argument("missing (expected the ranked options array of `gpuplan plan --json`)",
                            at(file, "options"));
  }
  for (size_t i = 0; i < options->size(); ++i) {
    GPUPLAN_TRY(PlanOption opt,
                parse_option((*options)[i], version, file, "options[" + std::to_string(i) + "]"));
    if (opt.kind.empty()) opt.kind = plan.workload_kind;
    plan.options.push_back(std::move(opt));
  }
  if (plan.workload_kind.empty() && !plan.options.empty())
    plan.workload_kind = plan.options[0].kind;
  auto assumptions = doc.find("assumptions");
  if (assumptions != doc.end() && assumptions->is_array()) {
    for (const json& a : *assumptions) {
      if (!a.is_object() || a.value("name", "") != "data_disk_gib") continue;
      auto v = a.find("value");
      if (v == a.end()) continue;
      if (v->is_number()) {
        plan.data_disk_gib = v->get<double>();
      } else if (v->is_string()) {
        plan.data_disk_gib = disk_gib(v->get<std::string>());
      }
    }
  }
  return plan;
}

PlanDocument plan_document(const plan::Plan& p, const std::string& file) {
  PlanDocument doc;
  doc.file = file;
  doc.workload_name =
      p.workload_name.empty() ? std::filesystem::path(file).stem().string() : p.workload_name;
  doc.workload_kind = p.kind;
  for (const plan::Option& o : p.options) {
    PlanOption opt;
    opt.size = o.size;
    opt.count = o.count;
    opt.gpus = o.gpus;
    opt.gpu = o.gpu_model;
    opt.gpu_count = o.gpu_count;
    opt.region = o.region;
    opt.pricing = o.pricing;
    opt.os = o.os;
    opt.hybrid_benefit = o.hybrid_benefit;
    opt.hours = o.hours;
    opt.hours_high = o.hours_high;
    opt.cost_usd = o.cost_usd;
    opt.cost_low_usd = o.cost_low_usd;
    opt.cost_high_usd = o.cost_high_usd;
    opt.usd_per_hour = o.usd_per_hour;
    opt.quota_ok = o.quota_ok;
    opt.kind = o.kind.empty() ? p.kind : o.kind;
    opt.price_source = o.price.source;
    opt.price_as_of = o.price.as_of;
    opt.confidential = o.confidential;
    doc.options.push_back(std::move(opt));
  }
  for (const plan::Assumption& a : p.assumptions) {
    if (a.name == "data_disk_gib") doc.data_disk_gib = disk_gib(a.value);
  }
  return doc;
}

}  // namespace gpuplan::deploy
