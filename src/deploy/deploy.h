// Turning one plan option into a deployment that works the first time:
// deploy.sh (az CLI), template.json (ARM), cloud-init.yaml (Linux) or
// setup.ps1 (Windows), budget.json, with secure defaults (SSH keys only,
// SSH from one CIDR, no secrets in files, a managed identity, encryption at
// host where the size supports it).
//
// CONTRACT for cli/ and server/: make_deploy_spec, generate_files, write_files.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "core/result.h"
#include "deploy/plan_input.h"
#include "deploy/stack.h"
#include "deploy/stack_matrix.h"

namespace gpuplan::deploy {

// What the user chose on the command line.
struct DeployOptions {
  int option = 1;        // 1-based into the plan's options
  std::string ssh_cidr;  // IPv4 CIDR SSH (RDP on Windows) is allowed from
  bool allow_ssh_from_anywhere = false;
  std::string start_date;  // YYYY-MM-DD, first of a month (budget start)
  // YYYY-MM-DD: the start must lie in Azure's window around it (this month
  // to twelve months on: check_budget_start_date); "" checks the form only.
  std::string today;
  std::string ssh_public_key_file;      // default in deploy.sh when "" (~/.ssh/id_rsa.pub)
  std::optional<double> data_disk_gib;  // overrides the plan's; default kDefaultDataDiskGib
  // Autostop minutes: unset = the default for the workload kind
  // (kDefaultAutostopMinutes for training, fine-tuning and rendering; off for
  // serving), 0 = off (--autostop off).
  std::optional<int> autostop_minutes;
  std::string shutdown_time = "2300";  // daily auto-shutdown backstop, HHMM UTC
  // --skip-catalog-check: an option the catalog does not offer (unknown
  // region, size not in the region, size retired) is deployed with a warning
  // instead of refused.
  bool skip_catalog_check = false;
};

// Autostop after an hour without work, the default for jobs that end (the
// span issue 17 asks for: it covers a pause between runs, not a night).
inline constexpr int kDefaultAutostopMinutes = 60;
// The longest autostop wait: a week, in minutes.
inline constexpr int kMaxAutostopMinutes = 7 * 24 * 60;
// The daily auto-shutdown backstop is enabled only for jobs expected to end
// within this many hours: a daily shutdown would cut a longer run short.
inline constexpr double kShutdownBackstopMaxJobHours = 20;

// Data disk when neither the plan nor the user names one: 256 GiB Premium SSD
// (P15 tier), enough for a model checkpoint set; shown as an assumption.
inline constexpr double kDefaultDataDiskGib = 256;

// The VM's security type (az vm create --security-type; ARM
// securityProfile.securityType).
enum class SecurityType { kStandard, kTrustedLaunch, kConfidentialVm };
[[nodiscard]] const char* to_string(SecurityType t);

// Everything the generators need, decided once.
struct DeploySpec {
  std::string plan_file;
  int option_index = 1;
  PlanOption option;
  std::string workload_name;
  std::string workload_kind;
  catalog::VmSize size;
  Stack stack;
  // Names (derived from the workload name; Azure's length rules applied).
  std::string prefix;          // "finetune-llama3-8b"
  std::string resource_group;  // "<prefix>-rg"
  std::string vm_name;         // VM or scale set name
  std::string computer_name;   // host name (Windows: <= 15 characters)
  // Layout.
  bool scale_set = false;        // count > 1 or serving: a VM scale set
  bool serving = false;          // an inference workload: autoscale.json too
  bool proximity_group = false;  // InfiniBand scale-out: proximity placement group
  bool hpc_image = false;        // Ubuntu-HPC image (ships driver, MOFED, NCCL)
  bool arm64 = false;            // an Arm64 size (catalog::is_arm64): arm64 image, sbsa repo
  std::string image_urn;         // publisher:offer:sku:version
  bool encryption_at_host = false;
  // Security: Confidential VM for confidential sizes, else Trusted Launch
  // (deploy.sh falls back to Standard where `az vm list-skus` says the size
  // has TrustedLaunchDisabled). Secure Boot only with a signed driver; the
  // driver gpuplan installs is DKMS-built (unsigned), so it stays off.
  SecurityType security_type = SecurityType::kTrustedLaunch;
  bool secure_boot = false;
  bool vtpm = true;
  std::string security_note;  // why, said in deploy.sh, stdout and the template
  // Autostop: minutes without work before the VM deallocates itself (0 = off).
  int autostop_minutes = 0;
  std::string shutdown_time = "2300";  // the backstop's daily time, HHMM UTC
  bool shutdown_backstop = false;      // the schedule is enabled (short jobs only)
  int gpus_per_vm = 1;                 // what `nvidia-smi -L` lists on one VM
  double data_disk_gib = kDefaultDataDiskGib;
  std::string data_disk_source;  // "plan", "--data-disk-gib" or "default"
  std::string ssh_cidr;          // "0.0.0.0/0" only when allowed explicitly
  bool ssh_from_anywhere = false;
  std::string start_date;  // the budget's first day, YYYY-MM-01
  // The day the work starts, YYYY-MM-DD: today when the budget starts this
  // month, else the budget's first day. The budget runs to the end of the
  // month in which the work, started then, ends at the plan's high end.
  std::string work_start_date;
  std::string ssh_public_key_file;
  // Said to the user next to the files (autoscale left out, assumptions, ...).
  std::vector<std::string> notes;
  // What may make the deployment fail, said as warnings (an option the
  // catalog does not offer, deployed under --skip-catalog-check).
  std::vector<std::string> warnings;
};

// The stack target a deployment of `size` uses: on Linux, sizes with
// InfiniBand run the Ubuntu-HPC image, whose driver is then fixed by the image.
// `gpu` may be null.
[[nodiscard]] StackTarget deployment_target(const catalog::VmSize& size, const catalog::Gpu* gpu,
                                            catalog::Os os);

// `gpuplan stack` and GET /api/stack: the stack a deployment of the catalog
// size `size` would install, for an OS and optionally a PyTorch and a CUDA
// version ("major.minor"; "" = the newest that works). Its JSON is the
// resolved stack with "refused": false, or {"schema", "size", "refused": true,
// "reason"} when the combination cannot work. Errors name the field
// `field_prefix` + "size" / "pytorch" / "cuda": an unknown size (kNotFound,
// with "did you mean"), a version that is not major.minor or that the matrix
// does not know (kInvalidArgument).
struct StackAnswer {
  std::string size;
  std::optional<Stack> stack;  // nullopt: refused
  std::string refusal;         // why, when refused
  [[nodiscard]] nlohmann::ordered_json to_json() const;
};
[[nodiscard]] Result<StackAnswer> stack_for_size(const catalog::Catalog& catalog,
                                                 std::string_view size, catalog::Os os,
                                                 std::string_view pytorch, std::string_view cuda,
                                                 std::string_view field_prefix = "");

// Builds the spec for one option of a plan. Errors:
//   kInvalidArgument — --option out of range, a bad CIDR, 0.0.0.0/0 without
//     allow_ssh_from_anywhere, both or neither SSH choice, a start date that
//     is not YYYY-MM-DD or not the first of a month;
//   kNotFound — the option's size is not in the catalog; unless
//     skip_catalog_check (then a warning), the size is not offered in the
//     option's region or is retired at the catalog's date (options[i].region
//     / options[i].size; an unknown region is kInvalidArgument);
//   kFailedPrecondition — the plan has no options, or no GPU stack works on
//     the size (AMD, unknown GRID driver, ...): the stack resolver's reasons.
[[nodiscard]] Result<DeploySpec> make_deploy_spec(const PlanDocument& plan,
                                                  const catalog::Catalog& catalog,
                                                  const StackMatrix& matrix,
                                                  const DeployOptions& options);

struct GeneratedFile {
  std::string name;  // "deploy.sh"
  std::string content;
  bool executable = false;
};

// deploy.sh, template.json, cloud-init.yaml or setup.ps1, budget.json (and
// autoscale.json for serving) —
// deterministic for a given spec (golden-tested).
[[nodiscard]] std::vector<GeneratedFile> generate_files(const DeploySpec& spec);

// The individual generators (public for tests).
[[nodiscard]] std::string render_deploy_script(const DeploySpec& spec);
[[nodiscard]] std::string render_arm_template(const DeploySpec& spec);
[[nodiscard]] std::string render_cloud_init(const DeploySpec& spec);
[[nodiscard]] std::string render_setup_ps1(const DeploySpec& spec);
[[nodiscard]] std::string render_budget(const DeploySpec& spec);
// Serving only: the Azure Monitor autoscale setting for the scale set, from the
// simulator's export of its azure-autoscale policy (src/simulate/autoscale_export.h).
// `in_template`: target the scale set by an ARM expression (inside
// template.json) instead of by name (the standalone autoscale.json).
[[nodiscard]] nlohmann::ordered_json autoscale_resource(const DeploySpec& spec, bool in_template);
[[nodiscard]] std::string render_autoscale(const DeploySpec& spec);
// The check the VM runs after installing the stack:
// "gpuplan doctor --expect-gpus N --expect-cuda X.Y".
[[nodiscard]] std::string doctor_command(const DeploySpec& spec);

// Every name generate_files can write: what write_files removes from an
// existing directory when the new deployment does not write it.
inline constexpr const char* kGeneratedFileNames[] = {
    "deploy.sh", "template.json", "cloud-init.yaml", "setup.ps1", "budget.json", "autoscale.json"};

// Writes the files into `dir`. When `dir` does not exist the files are written
// into a fresh sibling directory that is then renamed to `dir` (all or
// nothing); when it exists each file is replaced atomically, then the
// kGeneratedFileNames it does not write are removed (other files are kept). kUnavailable when
// the directory cannot be created or written; nothing half-written is left.
[[nodiscard]] Status write_files(const std::string& dir, const std::vector<GeneratedFile>& files);

// Validation helpers (exposed for tests and the CLI).
// A canonical IPv4 CIDR ("203.0.113.0/24"; a bare address means /32).
// kInvalidArgument naming `field` otherwise.
[[nodiscard]] Result<std::string> parse_ipv4_cidr(const std::string& text,
                                                  const std::string& field);
// YYYY-MM-DD that is a real date and the first of a month (Azure budgets start on one).
// With `today` (YYYY-MM-DD), also Azure's window for a monthly budget's
// startDate: "Future start date should not be more than twelve months. Past
// start date should be selected within the timegrain period" (Microsoft
// Consumption Budgets REST API, BudgetTimePeriod.startDate) — from this
// month's first to twelve months on. A date outside it is refused when
// deploy.sh creates the budget, after the VMs are up.
[[nodiscard]] Status check_budget_start_date(const std::string& date,
                                             const std::string& today = "");
// Checks that a file holds an OpenSSH public key (not a private key): kInvalidArgument otherwise.
[[nodiscard]] Status check_ssh_public_key_file(const std::string& path);

}  // namespace gpuplan::deploy
