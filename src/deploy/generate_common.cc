#include "core/strings.h"
#include "deploy/internal/generate.h"

namespace gpuplan::deploy {
namespace internal {

bool is_windows(const DeploySpec& spec) { return spec.option.os == catalog::Os::kWindows; }

bool uses_driver_extension(const DeploySpec& spec) {
  return spec.stack.driver_source == DriverSource::kExtension;
}

std::string describe_option(const DeploySpec& spec) {
  std::string s = std::to_string(spec.option.count) + " x " + spec.size.name + " in " +
                  spec.option.region + ", " + std::string(catalog::to_string(spec.option.pricing)) +
                  ", " + std::string(catalog::to_string(spec.option.os));
  if (spec.option.hybrid_benefit) s += " with Hybrid Benefit";
  return s;
}

std::string describe_stack(const DeploySpec& spec) {
  const Stack& st = spec.stack;
  std::string s = "driver >= " + st.min_driver.to_string();
  switch (st.driver_source) {
    case DriverSource::kCloudInit:
      s += " (branch " + st.driver_branch + ", installed by cloud-init)";
      break;
    case DriverSource::kExtension:
      s += std::string(" (") + (spec.size.driver == catalog::DriverKind::kGrid ? "GRID, " : "") +
           "Azure NVIDIA driver extension)";
      break;
    case DriverSource::kImage:
      s += " (shipped by the image)";
      break;
  }
  s += ", CUDA " + st.cuda.to_string();
  if (st.cudnn) s += ", cuDNN " + st.cudnn->to_string();
  s += ", PyTorch " + st.pytorch.to_string() + " " + st.wheel_variant;
  return s;
}

std::string nsg_name(const DeploySpec& spec) { return spec.prefix + "-nsg"; }
std::string vnet_name(const DeploySpec& spec) { return spec.prefix + "-vnet"; }
std::string ppg_name(const DeploySpec& spec) { return spec.prefix + "-ppg"; }
std::string budget_name(const DeploySpec& spec) { return spec.prefix + "-budget"; }
int admin_port(const DeploySpec& spec) { return is_windows(spec) ? 3389 : 22; }

std::string cuda_dash(const DeploySpec& spec) {
  return std::to_string(spec.stack.cuda.major()) + "-" + std::to_string(spec.stack.cuda.minor());
}

std::string windows_setup_command() {
  // Windows puts the VM's custom data in C:\AzureData\CustomData.bin; forward
  // slashes keep the command free of JSON and shell escapes.
  return "powershell -ExecutionPolicy Bypass -NoProfile -Command \"Copy-Item -Force "
         "C:/AzureData/CustomData.bin C:/AzureData/gpuplan-setup.ps1; "
         "& C:/AzureData/gpuplan-setup.ps1\"";
}

}  // namespace internal

std::string doctor_command(const DeploySpec& spec) {
  return "gpuplan doctor --expect-gpus " + std::to_string(spec.gpus_per_vm) + " --expect-cuda " +
         spec.stack.cuda.to_string();
}

}  // namespace gpuplan::deploy
