#include "cli/term.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include <sys/ioctl.h>
#include <unistd.h>

#include "core/strings.h"

namespace gpuplan::cli {

namespace {

size_t display_width(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) == 0x80 ? 0 : 1;
  return n;
}

}  // namespace

size_t terminal_width(bool out_is_stdout) {
  long w = 0;
  if (const char* c = std::getenv("COLUMNS"); c != nullptr && *c != '\0') {
    w = std::strtol(c, nullptr, 10);
  } else if (out_is_stdout && ::isatty(STDOUT_FILENO)) {
    winsize ws{};
    if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) w = ws.ws_col;
  }
  if (w <= 0) w = static_cast<long>(kDefaultWidth);
  return static_cast<size_t>(
      std::clamp(w, static_cast<long>(kMinWidth), static_cast<long>(kMaxWidth)));
}

size_t widest_line(std::string_view text) {
  size_t widest = 0;
  for (const std::string& line : strings::split(text, '\n')) {
    widest = std::max(widest, display_width(line));
  }
  return widest;
}

std::string fit_lines(std::string_view text, size_t width) {
  std::string out;
  std::vector<std::string> lines = strings::split(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();  // the final newline
  for (const std::string& line : lines) {
    if (display_width(line) <= width) {
      out += line + "\n";
      continue;
    }
    const size_t lead = std::min(line.find_first_not_of(' '), line.size());
    out += strings::wrap_text(line.substr(lead), width, lead, lead + 2);
  }
  return out;
}

}  // namespace gpuplan::cli
