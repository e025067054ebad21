#include "core/names.h"

#include <cstdio>

namespace gpuplan::names {
namespace {

bool lower_or_digit(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool alnum(char c) { return lower_or_digit(c) || (c >= 'A' && c <= 'Z'); }

Status fail(std::string_view s, const Where& where, const char* expected) {
  return invalid_argument("'" + printable(s) + "' is not " + expected, where);
}

}  // namespace

bool is_region(std::string_view s) {
  if (s.size() < 2 || s.size() > 40 || !(s[0] >= 'a' && s[0] <= 'z')) return false;
  for (char c : s)
    if (!lower_or_digit(c)) return false;
  return true;
}

bool is_size(std::string_view s) {
  constexpr std::string_view kPrefix = "Standard_";
  if (s.size() <= kPrefix.size() || s.size() > 80 || s.substr(0, kPrefix.size()) != kPrefix)
    return false;
  for (char c : s.substr(kPrefix.size()))
    if (!alnum(c) && c != '_') return false;
  return true;
}

bool is_resource_name(std::string_view s) {
  if (s.empty() || s.size() > 90 || s.back() == '.') return false;
  for (char c : s)
    if (!alnum(c) && c != '_' && c != '-' && c != '.' && c != '(' && c != ')') return false;
  return true;
}

bool is_email(std::string_view s) {
  if (s.size() > 254) return false;
  const size_t at = s.find('@');
  if (at == std::string_view::npos || at == 0 || s.find('@', at + 1) != std::string_view::npos)
    return false;
  for (char c : s.substr(0, at))
    if (!alnum(c) && c != '.' && c != '_' && c != '%' && c != '+' && c != '-') return false;
  const std::string_view domain = s.substr(at + 1);
  if (domain.size() < 3 || domain.find('.') == std::string_view::npos || domain.front() == '.' ||
      domain.back() == '.' || domain.find("..") != std::string_view::npos)
    return false;
  for (char c : domain)
    if (!alnum(c) && c != '.' && c != '-') return false;
  return true;
}

Status check_region(std::string_view s, const Where& where) {
  if (is_region(s)) return {};
  return fail(s, where,
              "an Azure region name (lower-case letters and digits, e.g. eastus, westeurope)");
}

Status check_size(std::string_view s, const Where& where) {
  if (is_size(s)) return {};
  return fail(s, where,
              "an Azure VM size name (Standard_ then letters, digits and '_', e.g. "
              "Standard_NC24ads_A100_v4)");
}

Status check_resource_name(std::string_view s, const Where& where) {
  if (is_resource_name(s)) return {};
  return fail(s, where,
              "an Azure resource name (1-90 letters, digits, '_', '-', '.', '(' or ')', not "
              "ending in '.')");
}

Status check_email(std::string_view s, const Where& where) {
  if (is_email(s)) return {};
  return fail(s, where, "an e-mail address (name@example.com)");
}

std::string printable(std::string_view s, size_t max_chars) {
  std::string out;
  size_t shown = 0;
  for (char ch : s) {
    if (shown == max_chars) {
      out += "…";
      break;
    }
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f) {
      out += ch;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
    ++shown;
  }
  return out;
}

std::string shell_quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  out += '\'';
  return out;
}

std::string powershell_quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  out += '\'';
  return out;
}

}  // namespace gpuplan::names
