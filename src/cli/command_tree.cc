#include "cli/command_tree.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace gpuplan::cli {

namespace {

// The values an IsMember validator accepts: CLI11 describes one as "{a,b,c}".
// CLI11 2.1 has no validator count: get_validator(i) throws past the last.
std::vector<std::string> member_values(CLI::Option& opt) {
  for (int i = 0;; ++i) {
    CLI::Validator* v = nullptr;
    try {
      v = opt.get_validator(i);
    } catch (const CLI::OptionNotFound&) {
      return {};
    }
    const std::string d = v->get_description();
    if (d.size() < 2 || d.front() != '{' || d.back() != '}') continue;
    std::vector<std::string> out;
    for (const std::string& s : CLI::detail::split(d.substr(1, d.size() - 2), ',')) {
      if (!s.empty()) out.push_back(s);
    }
    return out;
  }
}

// Name lists the catalog holds, by the flag (or positional) that takes them.
// The flags' own checks use the same catalog (Catalog::check_region_name,
// find_size, find_gpu), so completion offers what they accept.
std::vector<std::string> catalog_values(const catalog::Catalog& cat, std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  });
  if (name.rfind("--", 0) == 0) name = name.substr(2);
  std::set<std::string> out;
  if (name == "region") return cat.regions();
  if (name == "gpu") {
    for (const catalog::Gpu& g : cat.gpus()) out.insert(g.model);
  } else if (name == "series") {
    for (const catalog::VmSize& s : cat.sizes()) out.insert(s.series);
  } else if (name == "size") {
    for (const catalog::VmSize& s : cat.sizes()) out.insert(s.name);
  }
  return {out.begin(), out.end()};
}

OptionSpec describe_option(CLI::Option& opt, const catalog::Catalog* cat) {
  OptionSpec o;
  o.positional = opt.get_positional() && opt.get_lnames().empty() && opt.get_snames().empty();
  if (o.positional) {
    o.names.push_back(opt.get_name(true, false));
  } else {
    for (const std::string& l : opt.get_lnames()) o.names.push_back("--" + l);
    for (const std::string& s : opt.get_snames()) o.names.push_back("-" + s);
  }
  o.description = opt.get_description();
  o.takes_value = opt.get_expected_max() > 0 && opt.get_type_size_max() > 0;  // flags expect 0
  o.type_name = o.takes_value ? opt.get_type_name() : "";
  o.default_value = opt.get_default_str();
  o.repeatable = opt.get_expected_max() > 1 ||
                 opt.get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll;
  o.required = opt.get_required();
  if (o.takes_value) {
    o.values = member_values(opt);
    if (o.values.empty() && cat != nullptr && !o.names.empty()) {
      o.values = catalog_values(*cat, o.names.front());
    }
  }
  return o;
}

CommandSpec describe(CLI::App& app, const catalog::Catalog* cat,
                     const std::vector<std::string>& path) {
  CommandSpec c;
  c.name = app.get_name();
  c.path = path;
  c.description = app.get_description();
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_group().empty()) continue;  // hidden
    OptionSpec o = describe_option(*opt, cat);
    (o.positional ? c.positionals : c.options).push_back(std::move(o));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_group().empty() || sub->get_disabled()) continue;  // hidden
    std::vector<std::string> p = path;
    p.push_back(sub->get_name());
    c.subcommands.push_back(describe(*sub, cat, p));
  }
  return c;
}

}  // namespace

CommandSpec describe_commands(CLI::App& app, const catalog::Catalog* catalog) {
  return describe(app, catalog, {});
}

std::string command_line_name(const CommandSpec& cmd) {
  std::string s = "gpuplan";
  for (const std::string& p : cmd.path) s += " " + p;
  return s;
}

std::string summary(const std::string& description) {
  std::string text;
  for (const std::string& line : CLI::detail::split(description, '\n')) {
    const std::string t = CLI::detail::trim_copy(line);
    if (t.empty() || t.rfind("Example", 0) == 0 || t.rfind("Default:", 0) == 0) break;
    text += (text.empty() ? "" : " ") + t;
  }
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i + 1] != ' ') continue;
    if (text[i] == '.') return text.substr(0, i + 1);
    if (text[i] == ':') return text.substr(0, i);
  }
  return text;
}

}  // namespace gpuplan::cli
