// Names that enter gpuplan from outside (files, flags, HTTP requests) and end
// up in generated scripts, ARM templates, store rows and file names.
//
// Each check is a whitelist pattern, applied where the name enters (the
// importers, the workload and plan parsers, the flags) and once more where a
// deployment is decided, so that a name carrying shell or template syntax
// (`eastus$(curl …)`, `[concat(…)]`, a newline) never reaches a generator.
// The patterns follow Azure's own naming rules:
//   - region: Azure location names are lower-case letters and digits
//     ("eastus", "eastus2euap", "southcentralus"); `az account
//     list-locations --query [].name` lists them. Up to 40 characters.
//   - VM size: "Standard_" followed by letters, digits and '_'
//     (Microsoft Learn, "Azure VM sizes naming conventions"); up to 80.
//   - resource name: resource groups allow letters, digits, '_', '-', '.',
//     '(' and ')', up to 90 characters, not ending in '.' (Microsoft Learn,
//     "Naming rules and restrictions for Azure resources", Microsoft.Resources).
//   - e-mail: a conservative subset of RFC 5321 addresses (local part of
//     letters, digits and ._%+-; a dotted domain), enough for budget alerts.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace gpuplan::names {

[[nodiscard]] bool is_region(std::string_view s);
[[nodiscard]] bool is_size(std::string_view s);
[[nodiscard]] bool is_resource_name(std::string_view s);
[[nodiscard]] bool is_email(std::string_view s);

// The same checks as errors: kInvalidArgument at `where`, quoting the value
// with its unprintable bytes escaped, and saying what was expected.
[[nodiscard]] Status check_region(std::string_view s, const Where& where);
[[nodiscard]] Status check_size(std::string_view s, const Where& where);
[[nodiscard]] Status check_resource_name(std::string_view s, const Where& where);
[[nodiscard]] Status check_email(std::string_view s, const Where& where);

// `s` with every byte outside printable ASCII written as \xHH, and at most
// `max_chars` characters of it followed by "…": for quoting untrusted text in
// an error message or a generated comment.
[[nodiscard]] std::string printable(std::string_view s, size_t max_chars = 80);

// `s` as one POSIX shell word: single-quoted, each ' written as '\''. The one
// quoting function of every generated shell script: the result is inert in
// bash whatever `s` holds (no expansion, no word splitting, no globbing).
[[nodiscard]] std::string shell_quote(std::string_view s);

// `s` as one PowerShell single-quoted string literal ('' for each ').
[[nodiscard]] std::string powershell_quote(std::string_view s);

}  // namespace gpuplan::names
