// Helpers shared by the generators (gpuplan::deploy::internal).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "deploy/deploy.h"

namespace gpuplan::deploy::internal {

// Azure's NVIDIA GPU driver extensions (publisher Microsoft.HpcCompute):
// NvidiaGpuDriverLinux 1.6 and NvidiaGpuDriverWindows 1.10
// (azure-compute-docs extensions/hpccompute-gpu-linux.md@07921ada,
// hpccompute-gpu-windows.md@098be497).
inline constexpr const char* kExtensionPublisher = "Microsoft.HpcCompute";
inline constexpr const char* kLinuxDriverExtension = "NvidiaGpuDriverLinux";
inline constexpr const char* kLinuxDriverExtensionVersion = "1.6";
inline constexpr const char* kWindowsDriverExtension = "NvidiaGpuDriverWindows";
inline constexpr const char* kWindowsDriverExtensionVersion = "1.10";
// Custom Script Extension for Windows (Microsoft.Compute / CustomScriptExtension 1.10).
inline constexpr const char* kCustomScriptVersion = "1.10";
// The admin user on Linux and Windows.
inline constexpr const char* kAdminUser = "azureuser";
// OS disk: 128 GiB Premium SSD leaves room for the CUDA toolkit and PyTorch
// (~20 GiB together) on top of the image.
inline constexpr int kOsDiskGib = 128;
// The Consumption budgets REST API version used by deploy.sh.
inline constexpr const char* kBudgetApiVersion = "2023-05-01";
// Address space of the generated VNet.
inline constexpr const char* kVnetPrefix = "10.42.0.0/16";
inline constexpr const char* kSubnetPrefix = "10.42.0.0/24";
// Python on Windows (python.org installer), for the PyTorch wheel.
inline constexpr const char* kWindowsPython = "3.12.8";
// Where the guest scripts keep their Python environment.
inline constexpr const char* kVenv = "/opt/gpuplan/venv";

// Autostop (generate_autostop.cc): a GPU at or above this utilization is
// working (nvidia-smi utilization.gpu: the share of the sample period with a
// kernel running; idle reads 0). The busy file any user may touch to keep
// the VM up (/var/tmp: world-writable, sticky, kept across reboots).
inline constexpr int kAutostopGpuThresholdPercent = 5;
inline constexpr const char* kAutostopBusyFile = "/var/tmp/gpuplan-busy";
// The built-in role the VM's identity gets on itself, to deallocate itself:
// Virtual Machine Contributor (Azure built-in roles, id 9980e02c-...).
inline constexpr const char* kVmContributorRoleId = "9980e02c-c2be-4d73-94e8-173b1dc7cf3c";

[[nodiscard]] std::string autostop_conf(const DeploySpec& spec);
[[nodiscard]] std::string linux_autostop_script();
[[nodiscard]] std::string autostop_service();
[[nodiscard]] std::string autostop_timer();
[[nodiscard]] std::string windows_autostop_script(const DeploySpec& spec);

[[nodiscard]] bool is_windows(const DeploySpec& spec);
[[nodiscard]] bool uses_driver_extension(const DeploySpec& spec);
// "1 x Standard_NC40ads_H100_v5 in eastus, spot, linux"
[[nodiscard]] std::string describe_option(const DeploySpec& spec);
// "driver >= 580.65.06 (branch 580, installed by cloud-init), CUDA 13.0, cuDNN 9.17.0, PyTorch 2.14
// cu130"
[[nodiscard]] std::string describe_stack(const DeploySpec& spec);
[[nodiscard]] std::string nsg_name(const DeploySpec& spec);
[[nodiscard]] std::string vnet_name(const DeploySpec& spec);
[[nodiscard]] std::string ppg_name(const DeploySpec& spec);
[[nodiscard]] std::string budget_name(const DeploySpec& spec);
// The budget's properties (amount, grain, window, alerts), as budget.json
// holds them and template.json's budget resource; contactEmails empty.
[[nodiscard]] nlohmann::ordered_json budget_properties(const DeploySpec& spec);
// 22 on Linux, 3389 (RDP) on Windows.
[[nodiscard]] int admin_port(const DeploySpec& spec);
// The CUDA toolkit's apt package suffix "13-0".
[[nodiscard]] std::string cuda_dash(const DeploySpec& spec);
// The Windows Custom Script Extension command that runs setup.ps1 from custom data.
[[nodiscard]] std::string windows_setup_command();
// The first of the month `months` after the one `first_of_month` names
// ("YYYY-MM-01" or any date of that month): 2026-12-01 + 1 = 2027-01-01.
[[nodiscard]] std::string add_months(const std::string& first_of_month, int months);
// The date `days` after `date` (YYYY-MM-DD): 2026-12-25 + 7 = 2027-01-01.
[[nodiscard]] std::string add_days(const std::string& date, int days);

// The budget's time window (generate_budget.cc). Azure evaluates a budget
// only from startDate (the first of a month) to endDate, so the window must
// hold every day the work may run: from spec.work_start_date, the plan's
// high-end hours (hours_high, else hours) end at the latest on last_work_day
// — the work may start at any time of that day, so ceil(hours / 24) days on.
struct BudgetWindow {
  std::string start;          // spec.start_date
  std::string last_work_day;  // YYYY-MM-DD
  std::string end;            // the first of the month after last_work_day's
  int months = 1;             // calendar months from start to end (Monthly resets)
  double worst_hours = 0;     // the hours counted
};
[[nodiscard]] BudgetWindow budget_window(const DeploySpec& spec);

}  // namespace gpuplan::deploy::internal
