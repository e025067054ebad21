// Presenting a resolved stack: the `gpuplan stack` text and --json.
#include <sstream>

#include "deploy/stack.h"

namespace gpuplan::deploy {

namespace {
std::string driver_line(const Stack& s) {
  std::string kind(catalog::to_string(s.target.driver));
  std::string line = (kind == "grid" ? "GRID/vGPU" : "data-center") + std::string(" driver >= ") +
                     s.min_driver.to_string();
  switch (s.driver_source) {
    case DriverSource::kCloudInit:
      line += ", branch " + s.driver_branch + " (" + s.driver_package +
              ", installed by gpuplan's cloud-init)";
      break;
    case DriverSource::kExtension:
      line += s.provided_driver
                  ? ", Azure's NVIDIA driver extension installs " + s.provided_driver->to_string()
                  : ", installed by Azure's NVIDIA driver extension";
      break;
    case DriverSource::kImage:
      line += ", shipped by the " + s.target.image_with_driver + " image";
      break;
  }
  return line;
}
}  // namespace

nlohmann::ordered_json to_json(const Stack& s) {
  using J = nlohmann::ordered_json;
  J j;
  j["schema"] = "gpuplan.stack/2";
  j["size"] = s.target.size;
  j["gpu"] = s.target.gpu_model;  // /2: "gpu", as everywhere (docs/json.md)
  j["architecture"] = s.target.architecture;
  j["compute_capability"] = s.compute_capability.to_string();
  j["os"] = catalog::to_string(s.target.os);
  j["driver_kind"] = catalog::to_string(s.target.driver);
  j["driver_source"] = to_string(s.driver_source);
  j["min_driver"] = s.min_driver.to_string();
  j["driver_branch"] = s.driver_branch.empty() ? J(nullptr) : J(s.driver_branch);
  j["driver_package"] = s.driver_package.empty() ? J(nullptr) : J(s.driver_package);
  j["provided_driver"] = s.provided_driver ? J(s.provided_driver->to_string()) : J(nullptr);
  j["image"] = s.target.image_with_driver.empty() ? J(nullptr) : J(s.target.image_with_driver);
  j["cuda"] = s.cuda.to_string();
  j["minor_version_compat"] = s.minor_version_compat;
  j["cudnn"] = s.cudnn ? J(s.cudnn->to_string()) : J(nullptr);
  j["pytorch"] = s.pytorch.to_string();
  j["wheel"] = s.wheel_variant;
  j["wheel_stable"] = s.wheel_stable;
  j["pip"] =
      "pip install 'torch==" + s.pytorch.to_string() + ".*' --index-url " + s.pytorch_index_url;
  j["reasons"] = s.reasons;
  j["warnings"] = s.warnings;
  return j;
}

std::string render_text(const Stack& s) {
  std::ostringstream o;
  o << s.target.size << ": " << s.target.gpu_model << " (";
  if (!s.target.architecture.empty()) o << s.target.architecture << ", ";
  o << "compute capability " << s.compute_capability.to_string() << "), "
    << catalog::to_string(s.target.os) << "\n"
    << "  driver   " << driver_line(s) << "\n"
    << "  CUDA     " << s.cuda.to_string()
    << (s.minor_version_compat ? " (minor-version compatibility)" : "") << "\n"
    << "  cuDNN    " << (s.cudnn ? s.cudnn->to_string() : "none in the matrix for this GPU") << "\n"
    << "  PyTorch  " << s.pytorch.to_string() << " " << s.wheel_variant << " ("
    << (s.wheel_stable ? "stable" : "experimental") << ")\n"
    << "  install  pip install 'torch==" << s.pytorch.to_string() << ".*' --index-url "
    << s.pytorch_index_url << "\n"
    << "Why\n";
  for (const std::string& r : s.reasons) o << "  - " << r << "\n";
  if (!s.warnings.empty()) {
    o << "Warnings\n";
    for (const std::string& w : s.warnings) o << "  - " << w << "\n";
  }
  return o.str();
}

}  // namespace gpuplan::deploy
