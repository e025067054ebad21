#include "core/files.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/strings.h"

namespace gpuplan::files {

namespace {
std::atomic<size_t> g_max_input_bytes{kDefaultMaxInputBytes};

std::string mib(size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }
}  // namespace

void set_max_input_bytes(size_t bytes) { g_max_input_bytes = bytes; }
size_t max_input_bytes() { return g_max_input_bytes; }

Result<std::string> read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found("cannot open file: " + std::string(std::strerror(errno)), Where{path});
  const size_t cap = max_input_bytes();
  const std::string too_big =
      "larger than the " + mib(cap) + " an input read whole may be (raise with --max-input-mib)";
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return invalid_argument("a directory, not a file", Where{path});
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      static_cast<size_t>(st.st_size) > cap)
    return invalid_argument(too_big, Where{path});
  // Read in blocks up to one byte past the cap: devices and pipes have no size.
  std::string text;
  char block[1 << 16];
  while (in && text.size() <= cap) {
    in.read(block, sizeof block);
    text.append(block, static_cast<size_t>(in.gcount()));
  }
  if (text.size() > cap) return invalid_argument(too_big, Where{path});
  if (in.bad())
    return unavailable("cannot read: " + std::string(std::strerror(errno)), Where{path});
  if (auto bad = strings::invalid_utf8_at(text)) {
    const auto [line, column] = strings::line_column(text, *bad);
    return invalid_argument("not UTF-8 text (byte 0x" + strings::hex_byte(text[*bad]) + ")",
                            Where{path, line, column, ""});
  }
  return text;
}

namespace {

// nlohmann's parse with its errors as ours (line and column), each event
// seen by `note` when there is one.
Result<nlohmann::json> parse_json_with(std::string_view text, const std::string& file,
                                       const nlohmann::json::parser_callback_t& note) {
  bool blank = true;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) blank = false;
  if (blank) return invalid_argument("empty file (expected JSON)", Where{file});
  try {
    return nlohmann::json::parse(text.begin(), text.end(), note);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based offset of the error; turn it into line:column.
    const auto [line, col] = strings::line_column(text, e.byte == 0 ? 0 : e.byte - 1);
    std::string msg = e.what();
    // nlohmann's message starts with "[json.exception.parse_error.101] parse error at ...: ".
    auto pos = msg.find("parse error");
    if (pos != std::string::npos) msg = msg.substr(pos);
    return invalid_argument("invalid JSON (" + msg + ")", Where{file, line, col, ""});
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond a double ("1e400", issue 15): the parser names the
    // text, not its place, so find the first occurrence for line:column.
    std::string msg = e.what();
    const size_t q1 = msg.find('\'');
    const size_t q2 = q1 == std::string::npos ? q1 : msg.find('\'', q1 + 1);
    const std::string number = q2 == std::string::npos ? "" : msg.substr(q1 + 1, q2 - q1 - 1);
    const size_t at = number.empty() ? std::string::npos : text.find(number);
    const auto [line, col] =
        at == std::string::npos ? std::pair<int, int>{0, 0} : strings::line_column(text, at);
    return invalid_argument("number " + number + " is out of range (larger than a double holds)",
                            Where{file, line, col, ""});
  }
}

}  // namespace

Result<nlohmann::json> parse_json(std::string_view text, const std::string& file) {
  return parse_json_with(text, file, nullptr);
}

Result<nlohmann::json> parse_json_unique_keys(std::string_view text, const std::string& file) {
  // The keys of each object being read, innermost last.
  std::vector<std::vector<std::string>> open;
  std::string twice;
  const auto note = [&](int /*depth*/, nlohmann::json::parse_event_t event,
                        nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (event == E::object_start) open.emplace_back();
    if (event == E::object_end && !open.empty()) open.pop_back();
    if (event == E::key && !open.empty() && twice.empty()) {
      std::string k = parsed.get<std::string>();
      std::vector<std::string>& seen = open.back();
      if (std::find(seen.begin(), seen.end(), k) != seen.end())
        twice = std::move(k);
      else
        seen.push_back(std::move(k));
    }
    return true;
  };
  // One pass: syntax errors with their line and column, and the keys.
  GPUPLAN_TRY(nlohmann::json doc, parse_json_with(text, file, note));
  if (twice.empty()) return doc;
  // Its place: the key's second occurrence in the text (a close guess
  // where the name also appears elsewhere).
  const std::string quoted = nlohmann::json(twice).dump();
  const size_t first = text.find(quoted);
  const size_t second = first == std::string_view::npos ? first : text.find(quoted, first + 1);
  const auto [line, col] = second == std::string_view::npos ? std::pair<int, int>{0, 0}
                                                            : strings::line_column(text, second);
  return invalid_argument("key given twice in one object (which one is meant is a guess)",
                          Where{file, line, col, twice});
}

Result<nlohmann::json> read_json(const std::string& path) {
  GPUPLAN_TRY(std::string text, read_text(path));
  return parse_json(text, path);
}

namespace {

// Writes all of `content` to `fd` (retrying short writes and EINTR); the
// errno of the failure, or 0.
int write_all(int fd, std::string_view content) {
  size_t off = 0;
  while (off < content.size()) {
    const ssize_t n = ::write(fd, content.data() + off, content.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    off += static_cast<size_t>(n);
  }
  return 0;
}

// Writes `content` to an existing file that is not a regular one (a device
// such as /dev/null or /dev/stdout, a FIFO): in place, as a shell redirect
// would. Renaming over it replaced the device node with a plain file
// (`--events /dev/full` as root turned /dev/full into a 111-byte file).
Status write_in_place(const std::string& path, std::string_view content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return unavailable("cannot write: " + std::string(std::strerror(errno)), Where{path});
  int err = write_all(fd, content);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) return unavailable("cannot write: " + std::string(std::strerror(err)), Where{path});
  return {};
}

}  // namespace

namespace {

// One file of a write: staged in a temp file beside its target (renamed
// over it on commit), or written in place when the target is a device or a
// FIFO. `tmp` is empty for an in-place write.
struct Staged {
  std::string path, shown, tmp;
};

// Writes `content` for `path_in` to a temp file in its directory (fsynced),
// or in place for a device or FIFO; the rename is the caller's.
Result<Staged> stage(const std::string& path_in, std::string_view content) {
  namespace fs = std::filesystem;
  std::string path = path_in;
  std::error_code ec;
  // A symbolic link keeps pointing where it did: the file it names is the
  // one replaced (renaming over the link replaced the link itself).
  if (fs::is_symlink(fs::symlink_status(path, ec))) {
    const fs::path resolved = fs::weakly_canonical(path, ec);
    if (ec) return unavailable("cannot write: " + ec.message(), Where{path_in});
    path = resolved.string();
  }
  const fs::file_status st = fs::status(path, ec);
  if (fs::is_directory(st)) return invalid_argument("is a directory", Where{path_in});
  if (fs::exists(st) && !fs::is_regular_file(st)) {
    GPUPLAN_RETURN_IF_ERROR(write_in_place(path, content));
    return Staged{path, path_in, ""};
  }
  fs::path target(path);
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmpl = (dir / ("." + target.filename().string() + ".tmpXXXXXX")).string();
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return unavailable("cannot write: " + std::string(std::strerror(errno)), Where{path});
  if (const int err = write_all(fd, content); err != 0) {
    ::close(fd);
    ::unlink(tmpl.c_str());
    return unavailable("cannot write: " + std::string(std::strerror(err)), Where{path});
  }
  ::fchmod(fd, 0644);
  ::fsync(fd);
  ::close(fd);
  return Staged{path, path_in, tmpl};
}

}  // namespace

Status write_atomic(const std::string& path_in, std::string_view content) {
  GPUPLAN_TRY(Staged f, stage(path_in, content));
  if (f.tmp.empty()) return {};
  if (::rename(f.tmp.c_str(), f.path.c_str()) != 0) {
    int err = errno;
    ::unlink(f.tmp.c_str());
    return unavailable("cannot write: " + std::string(std::strerror(err)), Where{f.path});
  }
  return {};
}

Status write_all_or_nothing(const std::vector<std::pair<std::string, std::string>>& files) {
  // Every file is staged before any is renamed into place: a failure leaves
  // none of the regular files written. (A device or FIFO among them is
  // written when staged, as a shell redirect would be; they come last.)
  std::vector<const std::pair<std::string, std::string>*> order;
  order.reserve(files.size());
  for (const auto& f : files) order.push_back(&f);
  std::stable_partition(order.begin(), order.end(), [](const auto* f) {
    std::error_code ec;
    const auto st = std::filesystem::status(f->first, ec);
    return !std::filesystem::exists(st) || std::filesystem::is_regular_file(st) ||
           std::filesystem::is_directory(st);
  });
  std::vector<Staged> staged;
  staged.reserve(order.size());
  const auto discard = [&] {
    for (const Staged& f : staged)
      if (!f.tmp.empty()) ::unlink(f.tmp.c_str());
  };
  for (const auto* f : order) {
    auto s = stage(f->first, f->second);
    if (!s) {
      discard();
      return tl::unexpected(s.error());
    }
    staged.push_back(std::move(*s));
  }
  for (size_t i = 0; i < staged.size(); ++i) {
    const Staged& f = staged[i];
    if (f.tmp.empty()) continue;
    if (::rename(f.tmp.c_str(), f.path.c_str()) != 0) {
      const int err = errno;
      for (size_t j = i; j < staged.size(); ++j)
        if (!staged[j].tmp.empty()) ::unlink(staged[j].tmp.c_str());
      return unavailable("cannot write: " + std::string(std::strerror(err)), Where{f.path});
    }
  }
  return {};
}

std::string executable_dir() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  return p.parent_path().string();
}

}  // namespace gpuplan::files
