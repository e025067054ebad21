#include "core/strings.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace gpuplan::strings {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

std::string wrap(std::string_view text, size_t width, size_t indent,
                 std::optional<size_t> first_width) {
  std::string out, line;
  size_t limit = first_width.value_or(width);
  for (const std::string& word : split(text, ' ')) {
    if (!line.empty() && line.size() + 1 + word.size() > limit) {
      out += line + "\n" + std::string(indent, ' ');
      line.clear();
      limit = width;
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line;
}

namespace {

bool continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The longest prefix of `s` of at most `n` bytes that ends on a character
// boundary; at least its first character.
size_t prefix_bytes(std::string_view s, size_t n) {
  if (n >= s.size()) return s.size();
  size_t take = n;
  while (take > 0 && continuation_byte(s[take])) --take;
  if (take > 0) return take;
  take = 1;
  while (take < s.size() && continuation_byte(s[take])) ++take;
  return take;
}

}  // namespace

// Widths are counted in bytes: a multi-byte character (a middle dot, an
// accent) takes one column, so a line can only come out narrower than the
// width, never wider, and every check that counts bytes agrees.
std::string wrap_text(std::string_view raw, size_t width, size_t indent, size_t rest_indent) {
  // The CLI's prose goes through here, and quotes input (a finding's VM
  // name, a quota family): escaped, as Error::to_string and TextTable do.
  const std::string escaped = escape_controls(raw, /*keep_newlines=*/true);
  const std::string_view text = escaped;
  std::string out(indent, ' ');
  size_t room = width > indent ? width - indent : 1;  // bytes left on this line
  size_t used = 0;                                    // bytes of text on this line
  auto new_line = [&] {
    out += "\n" + std::string(rest_indent, ' ');
    room = width > rest_indent ? width - rest_indent : 1;
    used = 0;
  };
  for (std::string_view word : split(text, ' ')) {
    if (used > 0 && used + 1 + word.size() > room) new_line();
    if (used > 0) {
      out += ' ';
      ++used;
    }
    // A word longer than a whole line is broken at the width.
    while (used + word.size() > room && room > used) {
      const size_t take = prefix_bytes(word, room - used);
      out.append(word.substr(0, take));
      word.remove_prefix(take);
      new_line();
    }
    out.append(word);
    used += word.size();
  }
  return out + "\n";
}

std::string short_source(std::string_view source) {
  const size_t cut = std::min(source.find(" ("), source.find("; "));
  return std::string(trim(source.substr(0, cut)));
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string fold(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == ' ' || c == '_' || c == '-') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

bool starts_with_icase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) !=
        std::tolower(static_cast<unsigned char>(prefix[i])))
      return false;
  return true;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::optional<double> parse_double(std::string_view s) {
  if (s.empty()) return std::nullopt;
  if (s.front() == '+') s.remove_prefix(1);
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::optional<std::string> closest(std::string_view word,
                                   const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  size_t best_d = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    size_t d = edit_distance(to_lower(word), to_lower(c));
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const std::optional<std::string> c = closest(word, candidates);
  return c ? "; did you mean '" + *c + "'?" : "";
}

std::string fixed(double v, int digits) {
  // 1e300 prints 301 digits: size the buffer to the text, never truncate it.
  const int n = std::snprintf(nullptr, 0, "%.*f", digits, v);
  if (n <= 0) return "?";
  std::string out(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), "%.*f", digits, v);
  out.pop_back();
  return out;
}

std::string general(double v) {
  char text[32];  // %g is at most 13 characters ("-1.23457e+308")
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

std::optional<size_t> terminal_control_at(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) return i;
    const auto next = [&](size_t k) {
      return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0;
    };
    if (c == 0xc2 && next(1) >= 0x80 && next(1) <= 0x9f) return i;  // C1
    if (c == 0xe2 && next(1) == 0x80 && next(2) >= 0xaa && next(2) <= 0xae) return i;
    if (c == 0xe2 && next(1) == 0x81 && next(2) >= 0xa6 && next(2) <= 0xa9) return i;
  }
  return std::nullopt;
}

std::optional<size_t> invalid_utf8_at(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xbf;  // the second byte's range (RFC 3629 section 4)
    if (c >= 0xc2 && c <= 0xdf) {
      len = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
      len = 3;
      if (c == 0xe0) lo = 0xa0;
      if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      len = 4;
      if (c == 0xf0) lo = 0x90;
      if (c == 0xf4) hi = 0x8f;
    } else {
      return i;
    }
    if (i + len > n || p[i + 1] < lo || p[i + 1] > hi) return i;
    for (size_t k = 2; k < len; ++k)
      if (p[i + k] < 0x80 || p[i + k] > 0xbf) return i;
    i += len;
  }
  return std::nullopt;
}

std::pair<int, int> line_column(std::string_view s, size_t offset) {
  int line = 1, column = 1;
  for (size_t i = 0; i < offset && i < s.size(); ++i) {
    if (s[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

std::string escape_controls(std::string_view s, bool keep_newlines) {
  // Most text has nothing to escape: return it unchanged, without a copy
  // byte by byte.
  if (!terminal_control_at(s) && !invalid_utf8_at(s)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 8);
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if ((c < 0x20 && !(keep_newlines && c == '\n')) || c == 0x7f)
        out += "\\x" + hex_byte(s[i]);
      else
        out += s[i];
      ++i;
      continue;
    }
    const size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    const std::string_view ch = s.substr(i, len);
    if (ch.size() < len || invalid_utf8_at(ch)) {  // a byte out of place
      out += "\\x" + hex_byte(s[i]);
      ++i;
      continue;
    }
    if (terminal_control_at(ch)) {  // C1 or a bidirectional control
      char32_t cp = len == 2 ? (c & 0x1f) : (c & 0x0f);
      for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(ch[k]) & 0x3f);
      char buf[16];  // "\\u" and at most 6 hex digits (U+10FFFF)
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
      out += buf;
    } else {
      out += ch;
    }
    i += len;
  }
  return out;
}

std::string hex_byte(char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto b = static_cast<unsigned char>(c);
  return {kHex[b >> 4], kHex[b & 15]};
}

}  // namespace gpuplan::strings
