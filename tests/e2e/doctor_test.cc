// `gpuplan doctor` end to end. CI machines have no GPU: the doctor must say
// so clearly and exit 3. (Its checks are tested through a fake NVML/CUDA
// layer in src/doctor/doctor_test.cc.)
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e/e2e_util.h"

namespace gpuplan::e2e {
namespace {

bool machine_has_nvidia_driver() {
  void* h = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h != nullptr) ::dlclose(h);
  return h != nullptr;
}

TEST(Doctor, WithoutAGpuExits3WithAClearMessage) {
  if (machine_has_nvidia_driver()) GTEST_SKIP() << "this machine has an NVIDIA driver";
  const CliResult r = run_cli({"doctor", "--expect-gpus", "1", "--expect-cuda", "12.8"});
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.out.find("no usable NVIDIA GPU on this machine"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("libnvidia-ml.so.1"), std::string::npos);
  EXPECT_NE(r.err.find("gpuplan: error: no NVIDIA driver"), std::string::npos) << r.err;
  const CliResult j = run_cli({"doctor", "--json"});
  EXPECT_EQ(j.code, 3);
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["schema"], "gpuplan.doctor/2");
  EXPECT_EQ(doc["gpu_found"], false);
  EXPECT_EQ(doc["exit_code"], 3);
}

TEST(Doctor, TheRealBinaryExits3TooWithoutAGpu) {
  if (machine_has_nvidia_driver()) GTEST_SKIP() << "this machine has an NVIDIA driver";
  const int status = std::system((std::string(GPUPLAN_BIN) + " doctor >/dev/null 2>&1").c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
}

TEST(Doctor, BadFlagsExit2) {
  EXPECT_EQ(run_cli({"doctor", "--expect-cuda", "twelve"}).code, 2);
  EXPECT_EQ(run_cli({"doctor", "--expect-cuda", "12.8.1"}).code, 2);
  EXPECT_EQ(run_cli({"doctor", "--expect-gpus", "0"}).code, 2);
}

}  // namespace
}  // namespace gpuplan::e2e
