// The deadline scenario's runner: the job with its prices, the spot traces
// (files, or one trace drawn per run from the stochastic model), the start
// offsets drawn within each trace, every policy and the hindsight optimum on
// each run, and the rows that average them. Every policy sees the same
// offsets (common random numbers, so differences between policies are not
// sampling noise). The model and the policies are in deadline.cc.
#include <algorithm>
#include <cmath>
#include <memory>

#include "simulate/deadline.h"
#include "simulate/internal/runner.h"

namespace gpuplan::simulate::internal {

namespace {

// The job as the report states it.
void job_assumptions(const DeadlineJob& job, std::vector<Assumed>& a) {
  a.push_back({"work_hours", num(job.work_hours, 2), "scenario file"});
  a.push_back({"deadline_hours", num(job.deadline_hours, 2), "scenario file"});
  a.push_back({"changeover_hours", num(job.changeover_hours, 3),
               "scenario file (restart cost of every launch)"});
  a.push_back({"eviction_notice_seconds", num(job.eviction_notice_s, 0),
               "Azure Scheduled Events Preempt notice (30 s)"});
  a.push_back({"checkpoint_seconds", num(job.checkpoint_s, 0),
               "scenario file (progress beyond the notice is lost)"});
}

// The trace files (the options' replace the scenario's); empty when the
// scenario's stochastic model draws the traces.
Result<std::vector<SpotTrace>> load_traces(const Scenario& s, const RunOptions& o) {
  std::vector<SpotTrace> traces;
  const std::vector<std::string>& files = o.spot_traces.empty() ? s.spot_traces : o.spot_traces;
  if (!files.empty() && (!o.spot_traces.empty() || !s.spot_model)) {
    for (const auto& f : files) {
      GPUPLAN_TRY(SpotTrace t, load_spot_trace(f));
      traces.push_back(std::move(t));
    }
  }
  return traces;
}

// What a block of runs (one trace, or the stochastic model) shares.
struct Block {
  const Scenario& s;
  const RunOptions& o;
  const DeadlineJob& job;
  const std::vector<std::string>& policies;
  double gpus = 1;
  const SpotTrace* trace = nullptr;  // null: the stochastic model
  size_t index = 0;                  // of the block in the report
};

// One policy's run as a report row.
PolicyRow row_of(const DeadlineRun& r, double opt, double gpus) {
  PolicyRow one;
  one.cost_usd = r.cost_usd;
  one.cost_vs_optimal = r.cost_usd / opt;
  one.deadline_met_fraction = r.deadline_met ? 1.0 : 0.0;
  one.evictions = r.evictions;
  one.scale_events = r.scale_events;
  one.gpu_hours = (r.od_hours + r.spot_hours) * gpus;
  one.on_demand_usd = r.od_usd;
  one.spot_usd = r.spot_usd;
  return one;
}

// Runs every policy and the optimum on every run of a block; adds each run
// to `rows` (the policies, then optimal) and the first run's log and
// timeline to `rep`.
void run_block(const Block& bl, std::vector<PolicyRow>& rows, SimReport& rep, int64_t blocks) {
  const bool model = bl.trace == nullptr;
  const double gap = model ? bl.s.spot_model->gap_seconds : bl.trace->gap_seconds;
  std::vector<std::unique_ptr<ScalingPolicy>> pols;
  for (const auto& name : bl.policies) pols.push_back(make_deadline_policy(name, bl.job, gap));
  Rng rng(rep.seed * 1000003ULL + bl.index);
  const int64_t steps = static_cast<int64_t>(std::ceil(bl.job.deadline_hours * 3600 / gap));
  for (int run = 0; run < rep.runs; ++run) {
    SpotTrace drawn;
    const SpotTrace* trace;
    int64_t offset = 0;
    if (model) {
      drawn =
          generate_spot_trace(*bl.s.spot_model, std::max(bl.s.spot_model_steps, steps + 1), rng);
      trace = &drawn;
    } else {
      trace = bl.trace;
      const int64_t n = static_cast<int64_t>(trace->available.size());
      offset =
          n > steps + 1 ? static_cast<int64_t>(rng.below(static_cast<uint64_t>(n - steps - 1))) : 0;
    }
    const double opt = hindsight_optimal_cost(bl.job, *trace, offset);
    const bool first = run == 0;
    if (first && bl.o.event_log) {
      rep.event_log += "# trace " + (model ? std::string("stochastic") : trace->file) +
                       " run 0 offset " + std::to_string(offset) + " optimal $" + num(opt, 4) +
                       "\n";
    }
    for (size_t i = 0; i < pols.size(); ++i) {
      DeadlineRun r = run_deadline(bl.job, *trace, offset, *pols[i],
                                   first && bl.o.event_log ? &rep.event_log : nullptr,
                                   first && bl.index == 0 && bl.o.timeline);
      accumulate(rows[i], row_of(r, opt, bl.gpus));
      for (const DeadlineStep& st : r.timeline)
        rep.timeline.push_back({bl.policies[i], st.t_hours, st.progress_hours,
                                st.capacity == Capacity::kNone ? 0.0 : 1.0,
                                std::string(to_string(st.capacity)), st.cost_usd});
    }
    PolicyRow best;
    best.cost_usd = opt;
    best.cost_vs_optimal = 1.0;
    best.deadline_met_fraction = 1.0;
    accumulate(rows.back(), best);
    if (bl.o.progress)
      bl.o.progress(static_cast<int64_t>(bl.index) * rep.runs + run + 1, blocks * rep.runs);
  }
}

}  // namespace

Result<SimReport> run_deadline_scenario(const Scenario& s, const catalog::Catalog* cat,
                                        const RunOptions& o) {
  SimReport rep;
  GPUPLAN_TRY(const auto policies, start_report(s, o, "deadline", deadline_policy_names(), rep));
  GPUPLAN_TRY(Prices prices, resolve_prices(s, cat, true, rep.assumptions));
  DeadlineJob job = s.job;
  job.od_usd_per_hour = prices.od;
  job.spot_usd_per_hour = prices.spot;
  double gpus = 1;
  if (cat && !s.vm_size.empty())
    if (const catalog::VmSize* z = cat->find_size(s.vm_size)) gpus = z->gpu_count;
  job_assumptions(job, rep.assumptions);

  // The traces: files (options replace the scenario's) or the stochastic model.
  GPUPLAN_TRY(const std::vector<SpotTrace> traces, load_traces(s, o));
  const bool model = traces.empty();
  if (model) {
    rep.assumptions.push_back({"spot_model",
                               "mean up " + num(s.spot_model->mean_up_hours, 2) + " h, mean down " +
                                   num(s.spot_model->mean_down_hours, 2) + " h",
                               "scenario file (two-state Markov model, one trace drawn per run)"});
  }
  const size_t n_blocks = model ? 1 : traces.size();
  std::vector<PolicyRow> total(policies.size() + 1);
  for (size_t b = 0; b < n_blocks; ++b) {
    const double gap = model ? s.spot_model->gap_seconds : traces[b].gap_seconds;
    GPUPLAN_RETURN_IF_ERROR(validate(job, gap).map_error([&](Error e) {
      e.where.file = s.file;
      return e;
    }));
    const Block bl{s, o, job, policies, gpus, model ? nullptr : &traces[b], b};
    std::vector<PolicyRow> rows(policies.size() + 1);
    run_block(bl, rows, rep, static_cast<int64_t>(n_blocks));
    TraceRows tr;
    for (size_t i = 0; i < rows.size(); ++i) {
      rows[i].policy = i < policies.size() ? policies[i] : "optimal";
      const PolicyRow& sum = rows[i];
      total[i].policy = sum.policy;
      accumulate(total[i], sum);  // totals over all runs of all traces
      tr.policies.push_back(finish_row(sum, sum.runs));
    }
    tr.file = model ? "stochastic-model" : traces[b].file;
    tr.spot_availability = model ? -1 : traces[b].availability();
    rep.traces.push_back(std::move(tr));
  }
  for (auto& t : total) rep.policies.push_back(finish_row(t, t.runs));
  rep.notes.push_back(
      "optimal: the hindsight optimum of each run (sees the whole spot trace, pays the same "
      "changeovers); "
      "cost_vs_optimal is the mean over runs of cost / optimal");
  rep.notes.push_back("runs start at offsets drawn uniformly within each trace (seed " +
                      std::to_string(rep.seed) + "); every policy sees the same offsets");
  return rep;
}

}  // namespace gpuplan::simulate::internal
