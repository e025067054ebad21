#include "deploy/stack_matrix.h"

#include <algorithm>
#include <compare>

#include "core/csv.h"
#include "core/strings.h"

namespace gpuplan::deploy {
namespace internal {
std::string_view embedded_file(std::string_view name);
}  // namespace internal

Result<Version> Version::parse(std::string_view text) {
  Version v;
  std::string_view s = strings::trim(text);
  if (s.empty()) return invalid_argument("empty version");
  for (const std::string& part : strings::split(s, '.')) {
    if (part.empty() || part.size() > 6 ||
        !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return invalid_argument("'" + std::string(s) +
                              "' is not a version (digits separated by dots)");
    }
    v.parts.push_back(std::stoi(part));
  }
  v.text = std::string(s);
  return v;
}

std::string Version::to_string() const {
  if (!text.empty()) return text;
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += '.';
    out += std::to_string(parts[i]);
  }
  return out;
}

std::strong_ordering operator<=>(const Version& a, const Version& b) {
  const size_t n = std::max(a.parts.size(), b.parts.size());
  for (size_t i = 0; i < n; ++i) {
    const int x = i < a.parts.size() ? a.parts[i] : 0;
    const int y = i < b.parts.size() ? b.parts[i] : 0;
    if (x != y) return x <=> y;
  }
  return std::strong_ordering::equal;
}

bool operator==(const Version& a, const Version& b) { return std::is_eq(a <=> b); }

std::string PytorchWheel::variant() const {
  return "cu" + std::to_string(cuda.major()) + std::to_string(cuda.minor());
}

const CudaRelease* StackMatrix::find_cuda(const Version& v) const {
  for (const CudaRelease& r : cuda) {
    if (r.cuda.major() == v.major() && r.cuda.minor() == v.minor()) return &r;
  }
  return nullptr;
}

const CudaFamily* StackMatrix::find_family(int major) const {
  for (const CudaFamily& f : families) {
    if (f.major == major) return &f;
  }
  return nullptr;
}

const ImageDriver* StackMatrix::find_image(std::string_view image) const {
  for (const ImageDriver& i : images) {
    if (i.image == image) return &i;
  }
  return nullptr;
}

namespace {

// A version cell; kInvalidArgument naming file:line: column.
Result<Version> version_cell(const csv::RowReader& r, std::string_view column) {
  GPUPLAN_TRY(std::string text, r.str(column));
  auto v = Version::parse(text);
  if (!v) return invalid_argument(v.error().message, r.where(column));
  return *v;
}

Result<std::optional<Version>> optional_version_cell(const csv::RowReader& r,
                                                     std::string_view column) {
  GPUPLAN_TRY(std::string text, r.str(column));
  if (strings::trim(text).empty()) return std::optional<Version>();
  GPUPLAN_TRY(Version v, version_cell(r, column));
  return std::optional<Version>(std::move(v));
}

// "12.0-13.1" or "12.6" (a one-version range).
Result<std::pair<Version, Version>> range_cell(const csv::RowReader& r, std::string_view column) {
  GPUPLAN_TRY(std::string text, r.str(column));
  const auto dash = text.find('-');
  auto lo = Version::parse(text.substr(0, dash));
  auto hi = dash == std::string::npos ? lo : Version::parse(text.substr(dash + 1));
  if (!lo || !hi || *hi < *lo) {
    return invalid_argument("'" + text + "' is not a version range (X.Y or X.Y-Z.W)",
                            r.where(column));
  }
  return std::make_pair(*lo, *hi);
}

}  // namespace

// stack_matrix.h says what this accepts. Long because it is one dispatch
// over the matrix's six tables, each branch reading its own row's cells.
Result<StackMatrix> parse_stack_matrix(std::string_view csv_text, const std::string& file) {
  GPUPLAN_TRY(csv::Table table, csv::parse(csv_text, file));
  StackMatrix m;
  for (const csv::Row& row : table.rows) {
    csv::RowReader r(table, row);
    GPUPLAN_TRY(std::string kind, r.str("table"));
    GPUPLAN_TRY(std::string name, r.str("name"));
    GPUPLAN_TRY(std::string notes, r.str("notes"));
    GPUPLAN_TRY(std::string source, r.str("source"));
    GPUPLAN_TRY(std::string status, r.str("status"));
    // Every table's row carries the row's notes and source cells.
    auto keep = [&](auto& rows, auto entry) {
      entry.notes = notes;
      entry.source = source;
      rows.push_back(std::move(entry));
    };
    if (kind == "cuda") {
      CudaRelease c;
      GPUPLAN_TRY(c.cuda, version_cell(r, "cuda"));
      GPUPLAN_TRY(c.linux_min_driver, version_cell(r, "driver_linux"));
      GPUPLAN_TRY(c.windows_min_driver, optional_version_cell(r, "driver_windows"));
      GPUPLAN_TRY(c.min_cc, optional_version_cell(r, "min_cc"));
      keep(m.cuda, std::move(c));
    } else if (kind == "cuda_family") {
      CudaFamily f;
      GPUPLAN_TRY(Version major, version_cell(r, "name"));
      f.major = major.major();
      GPUPLAN_TRY(f.linux_min_driver, version_cell(r, "driver_linux"));
      GPUPLAN_TRY(f.windows_min_driver, optional_version_cell(r, "driver_windows"));
      keep(m.families, std::move(f));
    } else if (kind == "cudnn") {
      CudnnRelease c;
      GPUPLAN_TRY(c.version, version_cell(r, "name"));
      GPUPLAN_TRY(auto range, range_cell(r, "cuda"));
      c.cuda_min = range.first;
      c.cuda_max = range.second;
      GPUPLAN_TRY(c.min_cc, version_cell(r, "min_cc"));
      GPUPLAN_TRY(c.max_cc, version_cell(r, "max_cc"));
      keep(m.cudnn, std::move(c));
    } else if (kind == "pytorch") {
      PytorchWheel w;
      GPUPLAN_TRY(w.pytorch, version_cell(r, "name"));
      GPUPLAN_TRY(w.cuda, version_cell(r, "cuda"));
      if (status != "stable" && status != "experimental") {
        return invalid_argument("status must be 'stable' or 'experimental', not '" + status + "'",
                                r.where("status"));
      }
      w.stable = status == "stable";
      GPUPLAN_TRY(w.min_cc, version_cell(r, "min_cc"));
      GPUPLAN_TRY(w.max_cc, version_cell(r, "max_cc"));
      keep(m.pytorch, std::move(w));
    } else if (kind == "grid") {
      GridDriver g;
      g.series = name;
      GPUPLAN_TRY(g.gpu, r.str("gpu"));
      GPUPLAN_TRY(g.linux_driver, optional_version_cell(r, "driver_linux"));
      GPUPLAN_TRY(g.windows_driver, optional_version_cell(r, "driver_windows"));
      // Tokens joined by '+': "pinned", "no-secure-boot-vtpm" (an empty
      // status has none; an empty token, as in "pinned+", is refused).
      for (size_t at = 0; !status.empty() && at <= status.size();) {
        const size_t end = std::min(status.find('+', at), status.size());
        const std::string token = status.substr(at, end - at);
        if (token == "pinned") {
          g.pinned = true;
        } else if (token == "no-secure-boot-vtpm") {
          g.no_secure_boot_vtpm = true;
        } else {
          return invalid_argument(
              "status of a grid row must be empty or 'pinned', 'no-secure-boot-vtpm' or both "
              "joined by '+', not '" +
                  status + "'",
              r.where("status"));
        }
        at = end + 1;
      }
      keep(m.grid, std::move(g));
    } else if (kind == "image") {
      ImageDriver i;
      i.image = name;
      GPUPLAN_TRY(i.linux_driver, version_cell(r, "driver_linux"));
      keep(m.images, std::move(i));
    } else {
      return invalid_argument(
          "unknown table '" + kind + "' (expected cuda, cuda_family, cudnn, pytorch, grid, image)",
          r.where("table"));
    }
  }
  if (m.cuda.empty() || m.pytorch.empty()) {
    return invalid_argument("the matrix needs at least one cuda row and one pytorch row",
                            Where{file, 0, 0, ""});
  }
  std::stable_sort(m.cuda.begin(), m.cuda.end(),
                   [](const CudaRelease& a, const CudaRelease& b) { return a.cuda > b.cuda; });
  std::stable_sort(
      m.cudnn.begin(), m.cudnn.end(),
      [](const CudnnRelease& a, const CudnnRelease& b) { return a.version > b.version; });
  std::stable_sort(m.pytorch.begin(), m.pytorch.end(),
                   [](const PytorchWheel& a, const PytorchWheel& b) {
                     if (a.pytorch != b.pytorch) return a.pytorch > b.pytorch;
                     return a.cuda > b.cuda;
                   });
  return m;
}

Result<const StackMatrix*> embedded_stack_matrix() {
  static const Result<StackMatrix> kMatrix = parse_stack_matrix(
      internal::embedded_file("stack_matrix.csv"), "data/deploy/stack_matrix.csv");
  if (!kMatrix) {
    return internal_error("embedded stack matrix is broken: " + kMatrix.error().to_string());
  }
  return &*kMatrix;
}

}  // namespace gpuplan::deploy
