// The report's formats: JSON (stable key order, numbers at full precision),
// text tables of at most 100 columns (numbers rounded by core/format.h), the
// timeline as CSV or JSON, and a self-contained HTML page whose charts Chart.js draws (the
// library and the drawing code are copied in; nothing is loaded from
// elsewhere). Nothing here computes; it prints a SimReport.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "core/format.h"
#include "core/json_value.h"
#include "core/text_table.h"
#include "simulate/internal/runner.h"
#include "simulate/simulate.h"

namespace gpuplan::simulate {

// Beside the type's namespace, where argument-dependent lookup finds them.
GPUPLAN_JSON_FIELDS(PolicyRow, policy, cost_usd, cost_vs_optimal, slo_attainment, p50_ttft_ms,
                    p99_ttft_ms, deadline_met_fraction, evictions, scale_events, p99_tpot_ms,
                    p50_tpot_ms, vm_hours, rejected, evicted, missed_ttft, missed_tpot, hopeless,
                    gpu_hours)
// The serving latencies are written for serving timelines only (timeline_json).
GPUPLAN_JSON_FIELDS(TimelineRow, policy, t_hours, demand, replicas, capacity, cost_usd,
                    ttft_mean_ms, ttft_p99_ms, ttft_max_ms, tpot_mean_ms, tpot_p99_ms, missed)

namespace {

// A row's fields, then its split of the cost by pricing model and its run
// count; serving rows (those with VM-hours) alone carry p50_tpot_ms, vm_hours,
// rejected and the misses by cause.
// The deadline optimum is a least cost the programme finds, not a schedule
// the report keeps: its split by pricing, GPU-hours, evictions and launches
// are unknown. They were 0, and a consumer summing cost_by_pricing got $0
// for a schedule that ran at least the job's work.
bool deadline_bound(const PolicyRow& r) {
  return r.policy == "optimal" && r.deadline_met_fraction && !r.reserved_usd && !r.vm_hours;
}

nlohmann::ordered_json row_json(const PolicyRow& r) {
  nlohmann::ordered_json j = r;
  if (!r.vm_hours) {
    j.erase("p50_tpot_ms");
    j.erase("vm_hours");
    j.erase("rejected");
    j.erase("evicted");
    j.erase("missed_ttft");
    j.erase("missed_tpot");
    j.erase("hopeless");
  }
  if (r.reserved_usd) {
    j["cost_by_pricing"] = {{"payg", r.on_demand_usd},
                            {"reserved", *r.reserved_usd},
                            {"loss_after", r.loss_after_usd.value_or(0)}};
    j["committed_after_usd"] = r.committed_after_usd;
    j["loss_after_usd"] = r.loss_after_usd;
  } else {
    j["cost_by_pricing"] = {{"payg", r.on_demand_usd}, {"spot", r.spot_usd}};
  }
  if (deadline_bound(r)) {
    j["cost_by_pricing"] = nullptr;
    j["gpu_hours"] = nullptr;
    j["evictions"] = nullptr;
    j["scale_events"] = nullptr;
  }
  j["runs"] = r.runs;
  return j;
}

std::string opt_text(const std::optional<double>& v, int digits, double scale = 1) {
  return v ? strings::fixed(*v * scale, digits) : "-";
}

// Dollars in a column headed "$": money's rounding, no sign.
std::string dollars(double v) {
  return format::number(v, format::Kind::kMoney, format::Form::kCsv);
}
std::string opt_dollars(const std::optional<double>& v) { return v ? dollars(*v) : "-"; }

// The table of one set of rows, with the columns of the report's kind,
// within `width`: narrow terminals lose the least telling columns first (the
// counts, then the split of the cost); cost and the service figure stay.
std::string rows_table(const std::string& kind, const std::vector<PolicyRow>& rows, size_t width) {
  TextTable t;
  t.add_column("policy");
  t.add_column("cost $", TextTable::Align::kRight);
  t.add_column("vs opt", TextTable::Align::kRight);
  if (kind == "reserve") {
    t.add_column("payg $", TextTable::Align::kRight);
    t.add_column("reserved $", TextTable::Align::kRight);
    t.add_column("loss after $", TextTable::Align::kRight);
    t.add_column("owed after $", TextTable::Align::kRight);
  } else if (kind == "serving") {
    t.add_column("SLO %", TextTable::Align::kRight);
    t.add_column("p50 TTFT ms", TextTable::Align::kRight);
    t.add_column("p99 TTFT ms", TextTable::Align::kRight);
    t.add_column("p50 TPOT ms", TextTable::Align::kRight);
    t.add_column("p99 TPOT ms", TextTable::Align::kRight);
  } else {
    t.add_column("on time %", TextTable::Align::kRight);
    t.add_column("spot $", TextTable::Align::kRight);
    t.add_column("evictions", TextTable::Align::kRight);
  }
  t.add_column(kind == "reserve" ? "purchases" : "scale events", TextTable::Align::kRight);
  t.add_column("GPU-h", TextTable::Align::kRight);
  for (const auto& p : rows) {
    if (kind == "reserve")
      t.add_row({p.policy, dollars(p.cost_usd), opt_text(p.cost_vs_optimal, 3),
                 dollars(p.on_demand_usd), opt_dollars(p.reserved_usd),
                 opt_dollars(p.loss_after_usd), opt_dollars(p.committed_after_usd),
                 strings::fixed(p.scale_events, 1), strings::fixed(p.gpu_hours, 1)});
    else if (kind == "serving")
      t.add_row({p.policy, dollars(p.cost_usd), opt_text(p.cost_vs_optimal, 3),
                 opt_text(p.slo_attainment, 2, 100), opt_text(p.p50_ttft_ms, 0),
                 opt_text(p.p99_ttft_ms, 0), opt_text(p.p50_tpot_ms, 1), opt_text(p.p99_tpot_ms, 1),
                 strings::fixed(p.scale_events, 1), strings::fixed(p.gpu_hours, 2)});
    else if (deadline_bound(p))
      t.add_row({p.policy, dollars(p.cost_usd), opt_text(p.cost_vs_optimal, 3),
                 opt_text(p.deadline_met_fraction, 1, 100), "-", "-", "-", "-"});
    else
      t.add_row({p.policy, dollars(p.cost_usd), opt_text(p.cost_vs_optimal, 3),
                 opt_text(p.deadline_met_fraction, 1, 100), dollars(p.spot_usd),
                 strings::fixed(p.evictions, 1), strings::fixed(p.scale_events, 1),
                 strings::fixed(p.gpu_hours, 2)});
  }
  return t.render_fitting(
      width, {"scale events", "purchases", "p50 TPOT ms", "GPU-h", "p50 TTFT ms", "evictions",
              "owed after $", "p99 TPOT ms", "spot $", "loss after $", "payg $"});
}

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s)
    o += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
  return o;
}

// The plot's summary table: cost, vs optimal and the kind's service figure.
void plot_summary(const SimReport& r, std::ostringstream& o) {
  o << "<table border=\"1\" cellpadding=\"4\" "
       "style=\"border-collapse:collapse\"><tr><th>policy</th><th>cost $</th><th>vs optimal</th>"
    << (r.kind == "serving"   ? "<th>SLO %</th>"
        : r.kind == "reserve" ? "<th>reserved $</th>"
                              : "<th>on time %</th>")
    << "</tr>\n";
  for (const auto& p : r.policies)
    o << "<tr><td>" << esc(p.policy) << "</td><td>" << dollars(p.cost_usd) << "</td><td>"
      << opt_text(p.cost_vs_optimal, 3) << "</td><td>"
      << (r.kind == "serving"   ? opt_text(p.slo_attainment, 2, 100)
          : r.kind == "reserve" ? opt_dollars(p.reserved_usd)
                                : opt_text(p.deadline_met_fraction, 1, 100))
      << "</td></tr>\n";
  o << "</table>\n";
}

// `text` made safe inside an inline <script>: "</" could close the element
// early; "<\/" means the same in JavaScript strings, regexes and comments.
std::string inline_script(std::string_view text) {
  std::string o;
  o.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    o += text[i];
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') o += '\\';
  }
  return o;
}

}  // namespace

nlohmann::ordered_json to_json(const SimReport& r) {
  nlohmann::ordered_json j;
  GPUPLAN_JSON_WRITE_FIELDS(j, r, scenario, kind, runs, seed);
  j["policies"] = nlohmann::ordered_json::array();
  for (const auto& p : r.policies) j["policies"].push_back(row_json(p));
  j["traces"] = nlohmann::ordered_json::array();
  for (const auto& t : r.traces) {
    nlohmann::ordered_json tj;
    tj["file"] = t.file;
    tj["spot_availability"] = t.spot_availability >= 0 ? nlohmann::ordered_json(t.spot_availability)
                                                       : nlohmann::ordered_json(nullptr);
    tj["policies"] = nlohmann::ordered_json::array();
    for (const auto& p : t.policies) tj["policies"].push_back(row_json(p));
    j["traces"].push_back(tj);
  }
  GPUPLAN_JSON_WRITE_FIELDS(j, r, assumptions, notes);
  return j;
}

std::string to_text(const SimReport& r, size_t width, bool verbose) {
  std::ostringstream o;
  o << strings::wrap_text("Scenario " + r.scenario + " (" + r.kind + "), " +
                              std::to_string(r.runs) + (r.runs == 1 ? " run" : " runs") +
                              (r.kind == "deadline" ? " per trace" : "") + ", seed " +
                              std::to_string(r.seed),
                          width, 0, 2)
    << "\n";
  o << "All traces and runs (means):\n" << rows_table(r.kind, r.policies, width);
  if (r.traces.size() > 1) {
    for (const auto& t : r.traces) {
      o << "\n" << std::filesystem::path(t.file).filename().string();
      if (t.spot_availability >= 0)
        o << " (spot available " << strings::fixed(t.spot_availability * 100, 1) << " % of steps)";
      o << ":\n" << rows_table(r.kind, t.policies, width);
    }
  }
  o << "\nAssumptions:\n";
  // Two spaces before each item, four before its continuation.
  for (const auto& a : r.assumptions) {
    const std::string source = verbose ? a.source : strings::short_source(a.source);
    o << strings::wrap_text(a.name + " = " + a.value + "  [" + source + "]", width, 2, 4);
  }
  o << "Notes:\n";
  for (const auto& n : r.notes) o << strings::wrap_text(n, width, 2, 4);
  return o.str();
}

std::string timeline_csv(const SimReport& r) {
  std::string out = "policy,t_hours,demand,replicas,capacity,cost_usd\n";
  using format::Form;
  using format::Kind;
  for (const auto& t : r.timeline) {
    out += t.policy + "," + format::trimmed(t.t_hours, 4) + "," +
           format::number(t.demand, Kind::kRate, Form::kCsv) + "," + strings::fixed(t.replicas, 0) +
           "," + t.capacity + "," + format::number(t.cost_usd, Kind::kMoney, Form::kCsv) + "\n";
  }
  return out;
}

namespace {

// The timeline's header (scenario, unit) with an empty points array, and
// one point, as timeline_json holds them.
nlohmann::ordered_json timeline_header(const SimReport& r) {
  nlohmann::ordered_json j;
  j["scenario"] = r.scenario;
  j["demand_unit"] = r.kind == "serving"   ? "requests/s"
                     : r.kind == "reserve" ? "VMs in use"
                                           : "progress hours";
  j["points"] = nlohmann::ordered_json::array();
  return j;
}

nlohmann::ordered_json timeline_point(const SimReport& r, const TimelineRow& t) {
  nlohmann::ordered_json p = t;
  if (r.kind != "serving") {
    for (const char* key :
         {"ttft_mean_ms", "ttft_p99_ms", "ttft_max_ms", "tpot_mean_ms", "tpot_p99_ms", "missed"}) {
      p.erase(key);
    }
  }
  return p;
}

}  // namespace

nlohmann::ordered_json timeline_json(const SimReport& r) {
  nlohmann::ordered_json j = timeline_header(r);
  for (const auto& t : r.timeline) j["points"].push_back(timeline_point(r, t));
  return j;
}

std::string timeline_json_text(const SimReport& r, int indent) {
  // The header's dump ends with the points' "[]" (the last key); the points
  // go in there one at a time. A nested value's lines are its own dump's,
  // indented by its depth (two levels: the object, then the array), which
  // is how nlohmann writes them, so the text equals timeline_json's dump.
  std::string out = timeline_header(r).dump(indent);
  const size_t at = out.rfind("[]");
  std::string tail = out.substr(at + 2);
  out.resize(at);
  out += '[';
  const std::string pad(indent > 0 ? static_cast<size_t>(2 * indent) : 0, ' ');
  bool first = true;
  for (const auto& t : r.timeline) {
    const std::string p = timeline_point(r, t).dump(indent);
    out += first ? "" : ",";
    first = false;
    if (indent < 0) {
      out += p;
      continue;
    }
    out += '\n';
    out += pad;
    for (const char c : p) {
      out += c;
      if (c == '\n') out += pad;
    }
  }
  if (indent >= 0 && !first) out += "\n" + std::string(static_cast<size_t>(indent), ' ');
  out += ']';
  out += tail;
  return out;
}

std::string plot_html(const SimReport& r, const PlotScripts& scripts) {
  // The policy table, then charts drawn when the page is opened by the same
  // code as the server's simulation view (charts.js over Chart.js), both
  // copied in with the report and its timeline: the file needs nothing else.
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
       "<title>gpuplan simulate: "
    << esc(r.scenario)
    << "</title>\n<style>body{font-family:sans-serif;margin:16px;max-width:1100px}"
       ".chart{position:relative;width:100%;margin:12px 0}table{border-collapse:collapse}"
       "td,th{padding:4px 8px}</style>\n</head>\n<body>\n<h1>"
    << esc(r.scenario) << " (" << r.kind << ")</h1>\n";
  plot_summary(r, o);
  o << "<div id=\"charts\"></div>\n<script>" << inline_script(scripts.library)
    << "\n</script>\n<script>" << inline_script(scripts.charts) << "\n</script>\n<script>\n"
    << "const report = " << inline_script(to_json(r).dump()) << ";\n"
    << "const timeline = " << inline_script(timeline_json_text(r, -1)) << ";\n"
    << "window.gpuplanCharts.simulation(document.getElementById(\"charts\"), report, timeline);\n"
    << "</script>\n</body></html>\n";
  return o.str();
}

}  // namespace gpuplan::simulate
