// `gpuplan estimate WORKLOAD.yaml [--size S [--count N]] [--json]` and
// `gpuplan estimate --validate FILE.csv [--json]`.
// Parses flags, calls the estimate library, formats. No arithmetic here.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/lookup.h"
#include "catalog/store.h"
#include "cli/choices.h"
#include "cli/command.h"
#include "core/csv.h"
#include "core/format.h"
#include "core/strings.h"
#include "core/text_table.h"
#include "estimate/estimate.h"
#include "plan/plan.h"
#include "workload/workload.h"

namespace gpuplan::cli {
namespace {

using estimate::Estimate;
using strings::fixed;

struct EstimateFlags {
  std::string workload;
  std::string size;
  std::optional<int> count;
  std::string validate;
  bool json = false;
};

std::string short_size(const std::string& name) {
  return strings::starts_with_icase(name, "Standard_") ? name.substr(9) : name;
}

std::string layout_text(const Estimate& e) {
  return "tp" + std::to_string(e.layout.tp) + " pp" + std::to_string(e.layout.pp) +
         (e.layout.vpp > 1 ? " v" + std::to_string(e.layout.vpp) : "") + " dp" +
         std::to_string(e.layout.dp);
}

std::string unit_header(const workload::Workload& w) {
  switch (w.kind) {
    case workload::Kind::kInfer:
      return "REQ/S";
    case workload::Kind::kBatch:
      return "ITEMS/H";
    default:
      return "TOKENS/S";
  }
}

// How text is laid out: the terminal's width, and whether sources are cited
// in full (--verbose) or by their short form.
struct Layout {
  size_t width = kDefaultWidth;
  bool verbose = false;
};

void print_header(std::ostream& out, const workload::Workload& w, const Layout& lay) {
  std::string h = "Workload " + w.name + ": " + std::string(workload::to_string(w.kind));
  if (w.kind != workload::Kind::kBatch) {
    h += ", " + w.model.name + " (" + format::trimmed(w.model.params_b, 2) + " B params), " +
         std::string(workload::to_string(w.precision));
  }
  switch (w.kind) {
    case workload::Kind::kTrain:
    case workload::Kind::kFinetune:
      h += ", " + format::trimmed(w.total_tokens() / 1e9, 3) + " B tokens";
      break;
    case workload::Kind::kInfer:
      h += ", " + format::trimmed(w.serving.request_rate, 2) + " req/s";
      break;
    case workload::Kind::kBatch:
      h += ", " + format::trimmed(w.data.items.value_or(0), 0) + " items";
      break;
  }
  if (w.constraints.deadline_hours)
    h += ", deadline " + format::trimmed(*w.constraints.deadline_hours, 1) + " h";
  out << wrap_text(h, lay.width, 0, 2) << "\n";
}

void print_assumptions(std::ostream& out, const Estimate& e, const Layout& lay) {
  out << "Assumptions (" << short_size(e.size) << " x" << e.count << "):\n";
  for (const auto& a : e.assumptions) {
    const std::string source = lay.verbose ? a.source : short_source(a.source);
    out << wrap_text(a.name + ": " + a.value + "  [" + source + "]", lay.width, 2, 4);
  }
}

void print_one(std::ostream& out, const workload::Workload& w, const Estimate& e,
               const Layout& lay) {
  print_header(out, w, lay);
  // "Label:       text", the text wrapped under itself.
  auto field = [&](const std::string& label, const std::string& text) {
    out << wrap_text(label + std::string(13 - label.size(), ' ') + text, lay.width, 0, 13);
  };
  field("Size:",
        e.size + " x" + std::to_string(e.count) + " (" + format::trimmed(e.gpus, 4) + " GPUs)");
  field("Fits:", e.fits ? "yes" : "no: " + e.reason);
  field("Layout:", layout_text(e));
  field("Memory/GPU:",
        fixed(e.memory_needed_gib, 1) + " GiB needed of " + fixed(e.memory_available_gib, 1) +
            " usable (weights " + fixed(e.memory.weights, 1) + ", gradients " +
            fixed(e.memory.gradients, 1) + ", optimizer " + fixed(e.memory.optimizer, 1) +
            ", activations " + fixed(e.memory.activations, 1) + ", KV cache " +
            fixed(e.memory.kv_cache, 1) + ", overhead " + fixed(e.memory.overhead, 1) + ")");
  std::string tput = format::rate(e.throughput) + " " + e.throughput_unit;
  if (e.mfu > 0) tput += " (MFU " + fixed(e.mfu * 100, 1) + " %)";
  // A serving estimate without serving figures is one no layout holds.
  const bool no_layout = w.kind == workload::Kind::kInfer && !e.serving;
  field("Throughput:", no_layout ? "none (no layout holds the model; see Fits)" : tput);
  if (e.serving) {
    const auto& sv = *e.serving;
    field("Serving:",
          std::to_string(sv.replicas) + " replica(s) of " + std::to_string(sv.gpus_per_replica) +
              " GPU(s); needs " + std::to_string(sv.replicas_needed) + " replica(s) = " +
              std::to_string(sv.vms_needed) + " VM(s); " + fixed(sv.capacity_rps_per_replica, 2) +
              " req/s per replica at batch " + format::trimmed(sv.batch_at_slo, 0) + " (at most " +
              format::trimmed(sv.max_batch, 0) + " in flight: KV cache, serving_max_seqs); TTFT " +
              fixed(sv.ttft_ms, 0) + " ms, TPOT " + fixed(sv.tpot_ms, 1) + " ms");
  }
  field("Hours:", fixed(e.hours, 1) + (e.serving ? " (serving duration)" : ""));
  out << "\n";
  print_assumptions(out, e, lay);
}

// The estimates, fitting ones first (fewest GPUs for serving, else fastest).
std::vector<Estimate> ranked(std::vector<Estimate> all) {
  std::stable_sort(all.begin(), all.end(), [](const Estimate& a, const Estimate& b) {
    if (a.fits != b.fits) return a.fits;
    if (a.gpus != b.gpus && a.serving) return a.gpus < b.gpus;
    return a.hours < b.hours;
  });
  return all;
}

void print_all(std::ostream& out, const workload::Workload& w, const std::vector<Estimate>& all,
               const Layout& lay) {
  print_header(out, w, lay);
  TextTable t;
  t.add_column("SIZE");
  t.add_column("N", TextTable::Align::kRight);
  t.add_column("GPUS", TextTable::Align::kRight);
  t.add_column("LAYOUT");
  t.add_column("GiB/GPU", TextTable::Align::kRight);
  t.add_column(unit_header(w), TextTable::Align::kRight);
  t.add_column("HOURS", TextTable::Align::kRight);
  size_t fits = 0;
  for (const Estimate& e : all) {
    if (!e.fits) continue;
    ++fits;
    t.add_row({short_size(e.size), std::to_string(e.count), format::trimmed(e.gpus, 2),
               layout_text(e),
               fixed(e.memory_needed_gib, 1) + "/" + fixed(e.memory_available_gib, 0),
               format::rate(e.throughput), fixed(e.hours, 1)});
  }
  if (fits) {
    out << wrap_text("Fits (" + std::to_string(fits) + " sizes, smallest VM count" +
                         (w.kind == workload::Kind::kInfer ? " meeting the SLOs" : "") +
                         (w.constraints.deadline_hours && w.kind != workload::Kind::kInfer
                              ? " meeting the deadline where one does"
                              : "") +
                         "):",
                     lay.width, 0, 2);
    // Narrow terminals lose the layout, then the memory, then the GPU count
    // (the assumptions below and --json keep them).
    std::vector<std::string> dropped;
    out << t.render_fitting(lay.width, {"LAYOUT", "GiB/GPU", "GPUS"}, &dropped);
    if (!dropped.empty()) {
      std::string names;
      for (const std::string& d : dropped) names += (names.empty() ? "" : ", ") + d;
      out << wrap_text(
          "(" + names + " left out to fit " + std::to_string(lay.width) + " columns; see --json)",
          lay.width, 0, 1);
    }
    out << "\n";
  }
  if (fits < all.size()) {
    out << "Does not fit (" << all.size() - fits << " sizes):\n";
    for (const Estimate& e : all) {
      if (e.fits) continue;
      out << wrap_text(short_size(e.size) + ": " + e.reason, lay.width, 2, 4);
    }
    out << "\n";
  }
  if (fits) print_assumptions(out, all.front(), lay);
}

// --quiet: the headline figure, one line: the first option's hours (its
// serving size for an inference workload) on its size and count.
void print_quiet(std::ostream& out, const std::vector<Estimate>& all) {
  if (all.empty()) return;
  const Estimate& e = all.front();
  if (!e.fits) {
    // The reason of a size the workload could run on with more of
    // something, not the first in name order: "GPU RTX-PRO-6000 has no
    // known bf16 rate" was printed for a rate no size serves.
    auto it =
        std::find_if(all.begin(), all.end(), [](const Estimate& x) { return !x.unsupported; });
    out << "does not fit: " << (it != all.end() ? it->size + ": " + it->reason : e.reason) << "\n";
    return;
  }
  out << fixed(e.hours, 1) << " h on " << e.size << " x" << e.count << " ("
      << format::rate(e.throughput) << " " << e.throughput_unit << ")\n";
}

int run_estimate(Context& ctx, const EstimateFlags& f) {
  auto w = workload::parse_file(f.workload);
  if (!w) return report(ctx, w.error());
  auto cat = load_catalog(ctx);
  if (!cat) return report(ctx, cat.error());
  if (auto bad = check_workload_names(**cat, *w); !bad) return report(ctx, bad.error());
  if (auto bad = rate_from_trace(*w); !bad) return report(ctx, bad.error());
  std::vector<Estimate> results;
  if (!f.size.empty()) {
    auto found = catalog::lookup_size(**cat, f.size, Where{"", 0, 0, "--size"});
    if (!found) return report(ctx, found.error());
    const catalog::VmSize* size = *found;
    const catalog::Gpu* gpu = (*cat)->find_gpu(size->gpu_model);
    if (!gpu) {
      return report(
          ctx, Error{ErrorCode::kNotFound,
                     "GPU '" + size->gpu_model + "' of " + size->name + " is not in the catalog",
                     Where{"", 0, 0, "--size"}});
    }
    results.push_back(f.count ? estimate::estimate(*w, *size, *gpu, *f.count)
                              : estimate::estimate_smallest(*w, *size, *gpu));
  } else {
    results = estimate::estimate_all(*w, **cat);
  }
  // The bound make_plan applies (plan::kMaxPlanFigure): an estimate past it
  // would be a plan that deploy and report refuse.
  if (auto ok = plan::estimates_within_bounds(*w, results); !ok)
    return report(ctx, located_in(*w, ok.error()));
  const bool any =
      std::any_of(results.begin(), results.end(), [](const Estimate& e) { return e.fits; });
  const Layout lay{ctx.width, ctx.verbosity == Verbosity::kVerbose};
  if (f.json) {
    ctx.out << estimate::to_json(*w, results).dump(2) << "\n";
  } else if (ctx.verbosity == Verbosity::kQuiet) {
    print_quiet(ctx.out, ranked(results));
  } else if (!f.size.empty()) {
    print_one(ctx.out, *w, results.front(), lay);
  } else {
    print_all(ctx.out, *w, ranked(results), lay);
  }
  if (!any) {
    ctx.err << (ctx.verbosity == Verbosity::kQuiet && f.size.empty()
                    ? "gpuplan: no option fits (without -q, estimate gives every size's reason)\n"
                    : "gpuplan: no option fits (reasons above)\n");
    return 1;
  }
  return 0;
}

int run_validate(Context& ctx, const EstimateFlags& f) {
  auto table = csv::read_file(f.validate);
  if (!table) return report(ctx, table.error());
  auto cat = load_catalog(ctx);
  if (!cat) return report(ctx, cat.error());
  auto v = estimate::validate(*table, **cat);
  if (!v) return report(ctx, v.error());
  if (f.json) {
    nlohmann::ordered_json j;
    j["rows"] = nlohmann::ordered_json::array();
    for (const auto& r : v->rows) {
      nlohmann::ordered_json row = {{"id", r.id},
                                    {"metric", r.metric},
                                    {"predicted", r.predicted},
                                    {"published", r.published},
                                    {"error_percent", r.error_percent}};
      if (r.concurrency > 0) {  // max-load rows: the operating point used
        row["concurrency"] = r.concurrency;
        row["memory_limit"] = r.memory_limit;
      }
      if (r.tp > 0) row["tp"] = r.tp;
      j["rows"].push_back(std::move(row));
    }
    j["skipped"] = nlohmann::ordered_json::array();
    for (const auto& s : v->skipped) j["skipped"].push_back({{"id", s.id}, {"reason", s.reason}});
    j["notes"] = v->notes;
    j["summary"] = nlohmann::ordered_json::array();
    for (const auto& s : v->summary) {
      j["summary"].push_back({{"metric", s.metric},
                              {"n", s.n},
                              {"median_abs_error_percent", s.median_abs_error_percent}});
    }
    j["groups"] = nlohmann::ordered_json::array();
    for (const auto& s : v->groups) {
      j["groups"].push_back({{"group", s.metric},
                             {"n", s.n},
                             {"median_abs_error_percent", s.median_abs_error_percent}});
    }
    ctx.out << j.dump(2) << "\n";
    return 0;
  }
  for (const auto& s : v->summary) {
    TextTable t;
    t.add_column("ID");
    t.add_column("PREDICTED", TextTable::Align::kRight);
    t.add_column("PUBLISHED", TextTable::Align::kRight);
    t.add_column("ERROR %", TextTable::Align::kRight);
    for (const auto& r : v->rows) {
      if (r.metric != s.metric) continue;
      t.add_row({r.id, format::rate(r.predicted), format::rate(r.published),
                 (r.error_percent >= 0 ? "+" : "") + fixed(r.error_percent, 1)});
    }
    ctx.out << s.metric << ":\n" << t.render() << "\n";
  }
  TextTable sum;
  sum.add_column("METRIC");
  sum.add_column("ROWS", TextTable::Align::kRight);
  sum.add_column("MEDIAN |ERROR| %", TextTable::Align::kRight);
  for (const auto& s : v->summary) {
    sum.add_row({s.metric, std::to_string(s.n), fixed(s.median_abs_error_percent, 1)});
  }
  ctx.out << "Summary (" << v->rows.size() << " rows predicted, " << v->skipped.size()
          << " skipped):\n"
          << sum.render();
  TextTable groups;
  groups.add_column("GROUP");
  groups.add_column("ROWS", TextTable::Align::kRight);
  groups.add_column("MEDIAN |ERROR| %", TextTable::Align::kRight);
  for (const auto& s : v->groups) {
    groups.add_row({s.metric, std::to_string(s.n), fixed(s.median_abs_error_percent, 1)});
  }
  ctx.out << "\nBy group and source:\n" << groups.render();
  if (!v->notes.empty()) {
    ctx.out << "\nNotes:\n";
    for (const std::string& n : v->notes) ctx.out << "  " << strings::wrap(n, 88, 4) << "\n";
  }
  if (!v->skipped.empty()) {
    ctx.out << "\nSkipped:\n";
    for (const auto& s : v->skipped) {
      ctx.out << "  " << s.id << ": " << strings::wrap(s.reason, 90 - s.id.size(), 4) << "\n";
    }
  }
  return 0;
}

}  // namespace

void add_estimate_command(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<EstimateFlags>();
  CLI::App* cmd = app.add_subcommand(
      "estimate",
      "Will a workload fit, in which parallel layout, how fast and how long — on one VM size\n"
      "or on every GPU size of the catalog. Every figure comes with its assumptions.\n"
      "Examples:\n"
      "  gpuplan estimate examples/finetune-llama3-8b.yaml\n"
      "  gpuplan estimate examples/serve-llama3-8b.yaml --size NC40ads_H100_v5 --count 2 --json\n"
      "  gpuplan estimate --validate tests/data/published_measurements.csv");
  cmd->add_option("workload", flags->workload, "Workload YAML (docs/workload.md)");
  cmd->add_option("--size", flags->size, "One VM size, e.g. Standard_ND96isr_H100_v5");
  // At most one scale set's VMs, plan's limit (kMaxVmsPerOption): 268,435,456
  // ND H100 VMs made 2^31 GPUs and an answer of "needs 0.0 GiB, does not fit".
  cmd->add_option("--count", flags->count,
                  "Number of VMs (with --size; default: the smallest that fits)")
      ->check(CLI::Range(1, plan::kMaxVmsPerOption));
  cmd->add_option("--validate", flags->validate,
                  "Predict a CSV of published measurements and report the errors");
  cmd->add_flag("--json", flags->json, "Print JSON");
  cmd->callback([flags, &ctx] {
    ctx.action = [flags, &ctx]() -> int {
      const EstimateFlags& f = *flags;
      if (!f.validate.empty()) {
        if (!f.workload.empty() || !f.size.empty() || f.count) {
          return report(ctx, Error{ErrorCode::kInvalidArgument,
                                   "--validate takes no workload, --size or --count",
                                   Where{"", 0, 0, "--validate"}});
        }
        return run_validate(ctx, f);
      }
      if (f.workload.empty()) {
        return report(
            ctx, Error{ErrorCode::kInvalidArgument, "give a workload file (or --validate FILE.csv)",
                       Where{"", 0, 0, "workload"}});
      }
      if (f.count && f.size.empty()) {
        return report(ctx, Error{ErrorCode::kInvalidArgument, "--count needs --size",
                                 Where{"", 0, 0, "--count"}});
      }
      return run_estimate(ctx, f);
    };
  });
}

}  // namespace gpuplan::cli
