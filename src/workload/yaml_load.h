// Loading YAML text for every parser that reads it (workloads, scenarios):
// yaml-cpp's own errors and two it does not report, each as kInvalidArgument
// naming file, line, column (and the field where there is one):
//  - text that is not UTF-8 (YAML 1.2 section 5.2; yaml-cpp passes the bytes
//    on, so a name could carry them into output and scripts);
//  - a key given twice in one mapping: yaml-cpp keeps both and `node[key]`
//    answers the first, so a second `deadline_hours` was silently ignored.
//    YAML 1.2 section 3.2.1.1 requires keys to be unique.
#pragma once

#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "core/result.h"

namespace gpuplan::workload {

[[nodiscard]] Result<YAML::Node> load_yaml(std::string_view text, const std::string& file);

}  // namespace gpuplan::workload
