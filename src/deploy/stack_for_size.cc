// The stack of one catalog size, shared by `gpuplan stack` and GET /api/stack.
#include "catalog/lookup.h"
#include "deploy/deploy.h"
#include "deploy/stack_matrix.h"

namespace gpuplan::deploy {

namespace {

// "" → nullopt; else a major.minor version, or kInvalidArgument at `field`.
Result<std::optional<Version>> major_minor(std::string_view text, const std::string& field) {
  if (text.empty()) return std::optional<Version>();
  auto v = Version::parse(text);
  if (!v || v->parts.size() != 2)
    return invalid_argument("'" + std::string(text) + "' is not a major.minor version (e.g. 12.8)",
                            Where{"", 0, 0, field});
  return std::optional<Version>(*v);
}

}  // namespace

nlohmann::ordered_json StackAnswer::to_json() const {
  if (!stack)
    return nlohmann::ordered_json{
        {"schema", "gpuplan.stack/2"}, {"size", size}, {"refused", true}, {"reason", refusal}};
  auto j = deploy::to_json(*stack);
  j["refused"] = false;
  return j;
}

Result<StackAnswer> stack_for_size(const catalog::Catalog& catalog, std::string_view size_name,
                                   catalog::Os os, std::string_view pytorch, std::string_view cuda,
                                   std::string_view field_prefix) {
  const std::string prefix(field_prefix);
  GPUPLAN_TRY(std::optional<Version> want_pytorch, major_minor(pytorch, prefix + "pytorch"));
  GPUPLAN_TRY(std::optional<Version> want_cuda, major_minor(cuda, prefix + "cuda"));
  GPUPLAN_TRY(const catalog::VmSize* size,
              catalog::lookup_size(catalog, size_name, Where{"", 0, 0, prefix + "size"}));
  GPUPLAN_TRY(const StackMatrix* matrix, embedded_stack_matrix());
  const StackTarget target = deployment_target(*size, catalog.find_gpu(size->gpu_model), os);
  StackAnswer answer;
  answer.size = size->name;
  auto stack = resolve_stack(*matrix, target, StackRequest{want_pytorch, want_cuda});
  if (stack) {
    answer.stack = std::move(*stack);
  } else if (stack.error().code == ErrorCode::kFailedPrecondition) {
    answer.refusal = stack.error().message;
  } else {
    return tl::unexpected(stack.error());
  }
  return answer;
}

}  // namespace gpuplan::deploy
