// `gpuplan stack` (the driver/CUDA/cuDNN/PyTorch that work on a size) and
// `gpuplan deploy` (write deploy.sh, template.json, cloud-init.yaml or
// setup.ps1, and budget.json for one plan option). Parses flags, calls the
// deploy library, formats.
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/lookup.h"
#include "catalog/store.h"
#include "cli/choices.h"
#include "cli/command.h"
#include "cli/number_flags.h"
#include "core/files.h"
#include "core/names.h"
#include "core/strings.h"
#include "cost/cost.h"
#include "deploy/deploy.h"
#include "deploy/plan_input.h"
#include "deploy/stack.h"
#include "plan/plan.h"
#include "workload/workload.h"

namespace gpuplan::cli {
namespace {

struct StackFlags {
  std::string size;
  std::string pytorch;
  std::string cuda;
  std::string os = "linux";
  bool json = false;
};

int run_stack(Context& ctx, const StackFlags& f) {
  auto os = catalog::parse_os(f.os, Where{"", 0, 0, "--os"});
  if (!os) return report(ctx, os.error());
  auto cat = load_catalog(ctx);
  if (!cat) return report(ctx, cat.error());
  auto answer = deploy::stack_for_size(**cat, f.size, *os, f.pytorch, f.cuda, "--");
  if (!answer) return report(ctx, answer.error());
  // A refusal is exit 1 with its reasons; --json carries them too.
  if (f.json) {
    ctx.out << answer->to_json().dump(2) << "\n";
  } else if (answer->stack) {
    ctx.out << deploy::render_text(*answer->stack);
  } else {
    return report(ctx, Error{ErrorCode::kFailedPrecondition, answer->refusal, Where{}});
  }
  return answer->stack ? 0 : exit_code_for(ErrorCode::kFailedPrecondition);
}

struct DeployFlags {
  std::string input;
  int option = 1;
  std::string out;
  std::string ssh_cidr;
  bool anywhere = false;
  std::string start_date;
  std::string ssh_public_key;
  std::optional<double> data_disk_gib;
  std::string autostop;  // MINUTES or "off"; "" = the kind's default
  std::string shutdown_time = "2300";
  bool skip_catalog_check = false;
  bool json = false;
};

// The plan: PLAN.json as written by `gpuplan plan --json`, or a workload
// planned here with the planner's defaults, handed over as it is.
Result<deploy::PlanDocument> read_plan(const std::string& input, const catalog::Catalog& cat) {
  if (strings::ends_with(strings::to_lower(input), ".json")) {
    GPUPLAN_TRY(std::string text, files::read_text(input));
    return deploy::parse_plan_json(text, input);
  }
  GPUPLAN_TRY(workload::Workload w, workload::parse_file(input));
  GPUPLAN_TRY(cost::Rates rates, cost::Rates::load_embedded());
  GPUPLAN_TRY(plan::Plan p,
              plan::make_plan(w, cat, rates, plan::PlanOptions{}).map_error([&](Error e) {
                return located_in(w, std::move(e));
              }));
  return deploy::plan_document(p, input);
}

int run_deploy(Context& ctx, const DeployFlags& f) {
  // An empty --out names no directory: a usage error, not "cannot create "
  // (exit 3) after the plan was read.
  // The filesystem's root is no deployment's directory (run as root it
  // took deploy.sh and three more files).
  std::error_code ec;
  if (strings::trim(f.out).empty() ||
      std::filesystem::weakly_canonical(f.out, ec) == std::filesystem::path("/"))
    return report(ctx, Error{ErrorCode::kInvalidArgument,
                             "expected a directory for the files (not empty, not /)",
                             {"", 0, 0, "--out"}});
  // 1. The catalog and the plan.
  auto cat = load_catalog(ctx);
  if (!cat) return report(ctx, cat.error());
  auto plan = read_plan(f.input, **cat);
  if (!plan) return report(ctx, plan.error());
  // 2. Decide the deployment (validates SSH, dates, the option, the stack).
  auto matrix = deploy::embedded_stack_matrix();
  if (!matrix) return report(ctx, matrix.error());
  deploy::DeployOptions o;
  o.option = f.option;
  o.ssh_cidr = f.ssh_cidr;
  o.allow_ssh_from_anywhere = f.anywhere;
  // Today honours GPUPLAN_TODAY, as the catalog's statuses do.
  auto today = catalog::today();
  if (!today) return report(ctx, today.error());
  o.today = *today;
  o.start_date = f.start_date.empty() ? today->substr(0, 8) + "01" : f.start_date;
  o.ssh_public_key_file = f.ssh_public_key;
  o.data_disk_gib = f.data_disk_gib;
  // The flag's check (number_in | "off") has already refused anything else.
  if (!f.autostop.empty()) o.autostop_minutes = f.autostop == "off" ? 0 : std::stoi(f.autostop);
  o.shutdown_time = f.shutdown_time;
  o.skip_catalog_check = f.skip_catalog_check;
  auto spec = deploy::make_deploy_spec(*plan, **cat, **matrix, o);
  if (!spec) return report(ctx, spec.error());
  // 3. Generate everything in memory, then write it all at once.
  const std::vector<deploy::GeneratedFile> files = deploy::generate_files(*spec);
  auto written = deploy::write_files(f.out, files);
  if (!written) return report(ctx, written.error());
  // 4. Say what was written and what comes next.
  if (f.json) {
    nlohmann::ordered_json j;
    j["schema"] = "gpuplan.deploy/1";
    j["out"] = f.out;
    j["plan"] = spec->plan_file;
    j["option"] = spec->option_index;
    j["size"] = spec->size.name;
    j["gpu"] = spec->size.gpu_model;
    j["gpu_count"] = spec->size.gpu_count;
    j["cpu_architecture"] = spec->arm64 ? "arm64" : "x64";
    j["count"] = spec->option.count;
    j["region"] = spec->option.region;
    j["pricing"] = catalog::to_string(spec->option.pricing);
    j["os"] = catalog::to_string(spec->option.os);
    j["resource_group"] = spec->resource_group;
    j["image"] = spec->image_urn;
    j["autostop"] = {{"minutes", spec->autostop_minutes},
                     {"shutdown_backstop", spec->shutdown_backstop},
                     {"shutdown_time_utc", spec->shutdown_time}};
    j["security"] = {{"type", deploy::to_string(spec->security_type)},
                     {"secure_boot", spec->secure_boot},
                     {"vtpm", spec->vtpm},
                     {"boot_diagnostics", true},
                     {"note", spec->security_note}};
    j["ssh_cidr"] = spec->ssh_cidr;
    j["budget_start"] = spec->start_date;
    j["files"] = nlohmann::ordered_json::array();
    for (const auto& file : files) j["files"].push_back(file.name);
    j["stack"] = deploy::to_json(spec->stack);
    j["notes"] = spec->notes;
    j["warnings"] = spec->warnings;
    ctx.out << j.dump(2) << "\n";
    return 0;
  }
  ctx.out << "Wrote " << f.out << "/ for option " << spec->option_index << " of " << spec->plan_file
          << ": " << spec->option.count << " x " << spec->size.name << " in " << spec->option.region
          << " (" << catalog::to_string(spec->option.pricing) << ", "
          << catalog::to_string(spec->option.os) << ")\n";
  for (const auto& file : files) ctx.out << "  " << file.name << "\n";
  ctx.out << "GPU stack: driver >= " << spec->stack.min_driver.to_string() << ", CUDA "
          << spec->stack.cuda.to_string() << ", PyTorch " << spec->stack.pytorch.to_string() << " "
          << spec->stack.wheel_variant << " (details: gpuplan stack --size " << spec->size.name
          << ")\n";
  for (const std::string& n : spec->notes) ctx.out << "Note: " << n << "\n";
  for (const std::string& w : spec->warnings) ctx.out << "Warning: " << w << "\n";
  for (const std::string& w : spec->stack.warnings) ctx.out << "Warning: " << w << "\n";
  ctx.out << "Next: bash " << f.out << "/deploy.sh  (needs az login"
          << (spec->option.os == catalog::Os::kWindows ? " and ADMIN_PASSWORD" : "") << ")\n";
  return 0;
}

}  // namespace

void add_deploy_commands(CLI::App& app, Context& ctx) {
  // ---- gpuplan stack
  auto sf = std::make_shared<StackFlags>();
  CLI::App* stack = app.add_subcommand(
      "stack",
      "The NVIDIA driver, CUDA, cuDNN and PyTorch wheel that work together on a VM size,\n"
      "or the reason none does (exit 1).\n"
      "Example: gpuplan stack --size Standard_NC40ads_H100_v5 --pytorch 2.9");
  stack->add_option("--size", sf->size, "VM size, e.g. Standard_NC40ads_H100_v5")->required();
  stack->add_option("--pytorch", sf->pytorch,
                    "PyTorch release X.Y (default: the newest that works)");
  stack->add_option("--cuda", sf->cuda, "CUDA release X.Y (default: the newest that works)");
  stack->add_option("--os", sf->os, "linux or windows")
      ->capture_default_str()
      ->check(one_of("OS", os_names()));
  stack->add_flag("--json", sf->json, "Print JSON (schema gpuplan.stack/2)");
  stack->callback([sf, &ctx] { ctx.action = [sf, &ctx] { return run_stack(ctx, *sf); }; });

  // ---- gpuplan deploy
  auto df = std::make_shared<DeployFlags>();
  CLI::App* deploy = app.add_subcommand(
      "deploy",
      "Write deploy.sh (az CLI), template.json (ARM), cloud-init.yaml or setup.ps1 and\n"
      "budget.json for one option of a plan. SSH keys only; SSH open to one CIDR.\n"
      "Example: gpuplan plan w.yaml --json > plan.json &&\n"
      "         gpuplan deploy plan.json --out deploy/ --ssh-cidr 203.0.113.0/24");
  deploy->add_option("plan", df->input, "PLAN.json (gpuplan plan --json) or WORKLOAD.yaml")
      ->required();
  deploy->add_option("--option", df->option, "1-based option of the plan")->capture_default_str();
  deploy->add_option("--out", df->out, "Directory for the files (created; files replaced)")
      ->required();
  auto* cidr = deploy->add_option("--ssh-cidr", df->ssh_cidr,
                                  "IPv4 CIDR allowed to SSH (RDP on Windows), e.g. 203.0.113.0/24");
  auto* anywhere = deploy->add_flag("--allow-ssh-from-anywhere", df->anywhere,
                                    "Open SSH to the whole internet (0.0.0.0/0), knowingly");
  cidr->excludes(anywhere);
  deploy->add_option("--start-date", df->start_date,
                     "Budget start, YYYY-MM-01 (default: this month)");
  deploy->add_option("--ssh-public-key", df->ssh_public_key,
                     "OpenSSH public key file deploy.sh uses: ssh-ed25519, or ssh-rsa of at "
                     "least 2048 bits (default ~/.ssh/id_rsa.pub)");
  deploy
      ->add_option("--data-disk-gib", df->data_disk_gib,
                   "Premium SSD data disk per VM, GiB (default: the plan's, else 256)")
      ->check(number_in(0, range::kMaxDiskGib));
  deploy
      ->add_option("--autostop", df->autostop,
                   "Deallocate after MINUTES without work, or 'off' (default: 60 for "
                   "training, fine-tuning and rendering; off for serving)")
      ->check(number_in(1, deploy::kMaxAutostopMinutes, Low::kClosed, true) |
              CLI::IsMember({"off"}));
  deploy
      ->add_option("--shutdown-time", df->shutdown_time,
                   "Daily auto-shutdown backstop, HHMM UTC (single VMs; enabled for jobs "
                   "under 20 h)")
      ->capture_default_str();
  deploy->add_flag("--skip-catalog-check", df->skip_catalog_check,
                   "Deploy an option the catalog does not offer (unknown region, size not in "
                   "the region, retired size) with a warning instead of refusing it");
  deploy->add_flag("--json", df->json, "Print what was written as JSON (schema gpuplan.deploy/1)");
  deploy->callback([df, &ctx] { ctx.action = [df, &ctx] { return run_deploy(ctx, *df); }; });
}

}  // namespace gpuplan::cli
