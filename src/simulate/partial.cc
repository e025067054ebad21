// Partial reports of a sharded deadline sweep and their merge.
//
// `gpuplan simulate SCENARIO --shard I/N` runs the I-th of N contiguous
// slices of the sweep's run list (the list is fixed by the scenario, the
// traces, --runs and --seed, so every shard draws the same offsets) and
// writes a partial report: the report's header (scenario, kind, seed, runs,
// assumptions, notes, trace files) and, for each run of the slice, the row of
// every policy and of the optimum, unsummed, with every number written so
// that it reads back bit for bit. `gpuplan simulate merge PARTIAL...` checks
// that the partials belong to one sweep and cover it exactly once, and sums
// the rows in run order — the order a single process sums them in — so the
// merged report equals the single run's byte for byte. No scheduler of our
// own: the shards are independent processes (docs/simulate.md shows a Slurm
// and an Azure Batch array job).
#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "simulate/internal/runner.h"
#include "simulate/simulate.h"

namespace gpuplan::simulate {

namespace {

constexpr int kFormat = 1;  // version of the partial format

// A row's numbers, in this order (the optional ones are set on deadline rows).
nlohmann::ordered_json row_numbers(const PolicyRow& r) {
  return {r.cost_usd,
          r.cost_vs_optimal.value_or(0),
          r.deadline_met_fraction.value_or(0),
          r.evictions,
          r.scale_events,
          r.gpu_hours,
          r.on_demand_usd,
          r.spot_usd};
}

Result<PolicyRow> row_from(const nlohmann::json& j, const std::string& file) {
  if (!j.is_array() || j.size() != 8)
    return invalid_argument("expected a row of 8 numbers", Where{file, 0, 0, "records"});
  // What a run writes: amounts, counts and a fraction, none negative nor
  // past 1e15 (a shard edited to -100 USD once merged into a negative cost).
  for (size_t i = 0; i < j.size(); ++i) {
    const auto& v = j[i];
    const double hi = i == 2 ? 1 : 1e15;
    if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() <= hi))
      return invalid_argument("expected a row of 8 numbers from 0 to 1e15 (the met fraction to 1)",
                              Where{file, 0, 0, "records"});
  }
  PolicyRow r;
  r.cost_usd = j[0].get<double>();
  r.cost_vs_optimal = j[1].get<double>();
  r.deadline_met_fraction = j[2].get<double>();
  r.evictions = j[3].get<double>();
  r.scale_events = j[4].get<double>();
  r.gpu_hours = j[5].get<double>();
  r.on_demand_usd = j[6].get<double>();
  r.spot_usd = j[7].get<double>();
  return r;
}

// The header fields every partial of one sweep shares.
nlohmann::json sweep_key(const nlohmann::json& p) {
  nlohmann::json k;
  for (const char* f :
       {"scenario", "kind", "runs", "seed", "shards", "total_runs", "policies", "traces"})
    k[f] = p.contains(f) ? p[f] : nullptr;
  k["assumptions"] = p.contains("assumptions") ? p["assumptions"] : nullptr;
  return k;
}

Status check_shape(const nlohmann::json& p, const std::string& file) {
  auto bad = [&](const std::string& field, const std::string& msg) -> Status {
    return invalid_argument(msg, Where{file, 0, 0, field});
  };
  if (!p.is_object() || !p.contains("gpuplan_partial"))
    return bad("gpuplan_partial", "not a partial report (write one with simulate --shard I/N)");
  if (p["gpuplan_partial"] != kFormat)
    return bad("gpuplan_partial", "a partial of another format version");
  for (const char* f : {"shard", "shards", "total_runs", "runs", "seed"})
    if (!p.contains(f) || !p[f].is_number_integer()) return bad(f, "expected an integer");
  // Counts an int holds, before any is used: "shards": 1e12 wrapped to a
  // negative count, and 1e9 allocated 7.8 GB before the missing shards
  // were named.
  for (const char* f : {"shard", "shards", "total_runs", "runs"})
    if (p[f].get<int64_t>() < 0 || p[f].get<int64_t>() > std::numeric_limits<int32_t>::max())
      return bad(f, "expected a count from 0 to 2147483647");
  if (p["shards"].get<int64_t>() < 1) return bad("shards", "expected at least 1 shard");
  for (const char* f : {"policies", "traces", "assumptions", "notes", "records"})
    if (!p.contains(f) || !p[f].is_array()) return bad(f, "expected an array");
  if (!p.contains("scenario") || !p["scenario"].is_string())
    return bad("scenario", "expected a string");
  return {};
}

// The report's header from the first partial.
SimReport header_of(const nlohmann::json& p) {
  SimReport rep;
  rep.scenario = p["scenario"].get<std::string>();
  rep.kind = "deadline";
  rep.runs = p["runs"].get<int>();
  rep.seed = p["seed"].get<uint64_t>();
  for (const auto& a : p["assumptions"])
    rep.assumptions.push_back({a.value("name", ""), a.value("value", ""), a.value("source", "")});
  for (const auto& n : p["notes"]) rep.notes.push_back(n.is_string() ? n.get<std::string>() : "");
  for (const auto& t : p["traces"]) {
    TraceRows tr;
    tr.file = t.value("file", "");
    tr.spot_availability = t.value("spot_availability", -1.0);
    rep.traces.push_back(std::move(tr));
  }
  return rep;
}

}  // namespace

nlohmann::ordered_json partial_json(const SimReport& r) {
  nlohmann::ordered_json j;
  const Partial& p = *r.partial;
  j["gpuplan_partial"] = kFormat;
  GPUPLAN_JSON_WRITE_FIELDS(j, r, scenario, kind, runs, seed);
  j["shard"] = p.index;
  j["shards"] = p.count;
  j["total_runs"] = p.total_runs;
  j["policies"] = p.policies;
  j["traces"] = nlohmann::ordered_json::array();
  for (const TraceRows& t : r.traces)
    j["traces"].push_back({{"file", t.file}, {"spot_availability", t.spot_availability}});
  GPUPLAN_JSON_WRITE_FIELDS(j, r, assumptions, notes);
  j["records"] = nlohmann::ordered_json::array();
  for (const RunRecord& rec : p.records) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const PolicyRow& row : rec.rows) rows.push_back(row_numbers(row));
    j["records"].push_back({{"trace", rec.trace}, {"run", rec.run}, {"rows", rows}});
  }
  return j;
}

Result<SimReport> merge_partials(const std::vector<nlohmann::json>& partials,
                                 const std::vector<std::string>& files) {
  if (partials.empty())
    return invalid_argument("expected one or more partial reports", Where{"", 0, 0, "merge"});
  for (size_t i = 0; i < partials.size(); ++i)
    GPUPLAN_RETURN_IF_ERROR(check_shape(partials[i], files[i]));
  const nlohmann::json key = sweep_key(partials[0]);
  const int shards = partials[0]["shards"].get<int>();
  // Shards seen, by index: a map, since the count comes from the file.
  std::map<int, const nlohmann::json*> by_shard;
  for (size_t i = 0; i < partials.size(); ++i) {
    const nlohmann::json& p = partials[i];
    if (sweep_key(p) != key)
      return invalid_argument("belongs to another sweep than " + files[0] +
                                  " (scenario, runs, seed, policies, traces, prices or shard "
                                  "count differ)",
                              Where{files[i], 0, 0, "scenario"});
    const int s = p["shard"].get<int>();
    if (s < 0 || s >= shards || by_shard.count(s))
      return invalid_argument("shard " + std::to_string(s) + " of " + std::to_string(shards) +
                                  (s >= 0 && s < shards ? " given twice" : " is out of range"),
                              Where{files[i], 0, 0, "shard"});
    by_shard[s] = &p;
  }
  if (by_shard.size() < static_cast<size_t>(shards)) {
    // The first few missing, and how many in all.
    std::string missing;
    int named = 0;
    for (int s = 0; s < shards && named < 10; ++s)
      if (!by_shard.count(s)) missing += (named++ ? ", " : "") + std::to_string(s);
    const size_t absent = static_cast<size_t>(shards) - by_shard.size();
    if (absent > static_cast<size_t>(named))
      missing += ", ... (" + std::to_string(absent) + " in all)";
    return invalid_argument("missing shard(s) " + missing + " of " + std::to_string(shards),
                            Where{"", 0, 0, "merge"});
  }

  // The records in run order (shard 0's slice first), then the sums.
  SimReport rep = header_of(partials[0]);
  std::vector<std::string> names = partials[0]["policies"].get<std::vector<std::string>>();
  std::vector<RunRecord> records;
  for (int s = 0; s < shards; ++s) {
    const nlohmann::json& p = *by_shard.at(s);
    const std::string& file = files[static_cast<size_t>(&p - partials.data())];
    for (const auto& rec : p["records"]) {
      RunRecord r;
      r.trace = rec.value("trace", -1);
      r.run = rec.value("run", -1);
      if (r.trace < 0 || r.trace >= static_cast<int>(rep.traces.size()) || r.run < 0 ||
          r.run >= partials[0]["runs"].get<int64_t>() || !rec.contains("rows") ||
          !rec["rows"].is_array() || rec["rows"].size() != names.size())
        return invalid_argument("a record with a bad trace index, run index or row count",
                                Where{file, 0, 0, "records"});
      for (const auto& row : rec["rows"]) {
        GPUPLAN_TRY(PolicyRow pr, row_from(row, file));
        r.rows.push_back(pr);
      }
      records.push_back(std::move(r));
    }
  }
  if (static_cast<int64_t>(records.size()) != partials[0]["total_runs"].get<int64_t>())
    return invalid_argument("the partials hold " + std::to_string(records.size()) + " runs of " +
                                std::to_string(partials[0]["total_runs"].get<int64_t>()),
                            Where{files[0], 0, 0, "records"});
  internal::finish_deadline_report(rep, names, records);
  return rep;
}

}  // namespace gpuplan::simulate
