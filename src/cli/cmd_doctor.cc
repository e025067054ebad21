// `gpuplan doctor`: check the GPU machine this runs on. Parses flags, calls
// doctor::diagnose, formats. Exit 0 healthy (warnings allowed), 1 a check
// failed, 3 no NVIDIA driver or GPU.
#include <memory>
#include <optional>
#include <string>

#include "catalog/catalog.h"
#include "cli/command.h"
#include "deploy/stack_matrix.h"
#include "doctor/doctor.h"

namespace gpuplan::cli {
namespace {

struct DoctorFlags {
  std::optional<int> expect_gpus;
  std::string expect_cuda;
  bool no_bandwidth = false;
  bool json = false;
};

int run_doctor(Context& ctx, const DoctorFlags& f) {
  // 1. Flags.
  doctor::DoctorOptions o;
  if (f.expect_gpus) {
    if (*f.expect_gpus < 1) {
      return report(ctx, Error{ErrorCode::kInvalidArgument, "must be 1 or more",
                               Where{"", 0, 0, "--expect-gpus"}});
    }
    o.expect_gpus = f.expect_gpus;
  }
  if (!f.expect_cuda.empty()) {
    auto v = deploy::Version::parse(f.expect_cuda);
    if (!v || v->parts.size() != 2) {
      return report(ctx,
                    Error{ErrorCode::kInvalidArgument,
                          "'" + f.expect_cuda + "' is not a major.minor CUDA version (e.g. 12.8)",
                          Where{"", 0, 0, "--expect-cuda"}});
    }
    o.expect_cuda = *v;
  }
  o.bandwidth = !f.no_bandwidth;
  // 2. The driver/CUDA table and the GPU specs (embedded; the store is not needed here).
  auto matrix = deploy::embedded_stack_matrix();
  if (!matrix) return report(ctx, matrix.error());
  auto cat = catalog::Catalog::load_embedded();
  // 3. Check the machine through NVML and the CUDA driver API (dlopen).
  const doctor::DoctorReport r =
      doctor::diagnose(doctor::Loaders{}, **matrix, cat ? cat->get() : nullptr, o);
  // 4. Print.
  if (f.json) {
    ctx.out << doctor::to_json(r).dump(2) << "\n";
  } else if (ctx.verbosity == Verbosity::kQuiet) {
    // --quiet: the verdict line only ("Result: ..."), or why there is none.
    const std::string text = doctor::render_text(r);
    const size_t at = text.rfind("Result: ");
    ctx.out << (r.gpu_found && at != std::string::npos ? text.substr(at)
                                                       : "no usable NVIDIA GPU\n");
  } else {
    ctx.out << fit_lines(doctor::render_text(r), ctx.width);
  }
  if (!r.gpu_found) ctx.err << "gpuplan: error: " << r.problem << "\n";
  return r.exit_code();
}

}  // namespace

void add_doctor_command(CLI::App& app, Context& ctx) {
  auto f = std::make_shared<DoctorFlags>();
  CLI::App* cmd = app.add_subcommand(
      "doctor",
      "Check this GPU machine: driver and CUDA versions, every GPU (memory, ECC, temperature,\n"
      "clocks, utilization, persistence) and device-to-device copy bandwidth vs the spec.\n"
      "Exit 0 healthy, 1 a check failed, 3 no NVIDIA driver or GPU.\n"
      "Example: gpuplan doctor --expect-gpus 8 --expect-cuda 12.8");
  cmd->add_option("--expect-gpus", f->expect_gpus, "GPUs this machine should have");
  cmd->add_option("--expect-cuda", f->expect_cuda,
                  "CUDA X.Y the software needs; the driver must be new enough for it");
  cmd->add_flag("--no-bandwidth", f->no_bandwidth, "Skip the copy-bandwidth probe");
  cmd->add_flag("--json", f->json, "Print JSON (schema gpuplan.doctor/2)");
  cmd->callback([f, &ctx] { ctx.action = [f, &ctx] { return run_doctor(ctx, *f); }; });
}

}  // namespace gpuplan::cli
