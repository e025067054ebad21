// The deadline scenario's runner: the job with its prices, the spot traces
// (files, or one trace drawn per run from the stochastic model), the start
// offsets drawn within each trace, every policy and the hindsight optimum on
// each run, and the rows that average them. Every policy sees the same
// offsets (common random numbers, so differences between policies are not
// sampling noise). The model and the policies are in deadline*.cc.
//
// Runs are independent. The random draws are made first, in run order, on
// one thread (an offset per run, or the generator's state before each drawn
// trace); then a pool of threads takes runs in order, each thread with its
// own policies, and every run's rows land in the run's own slot. The sums
// are taken afterwards in run order, so the report is byte-identical for any
// number of threads. A shard (--shard I/N) runs the I-th contiguous slice of
// the run list and returns the runs' rows unsummed; merge_partials sums the
// slices' rows in the same order, so the merged report is the single run's.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

#include "simulate/deadline.h"
#include "simulate/internal/runner.h"

namespace gpuplan::simulate::internal {

namespace {

// The job as the report states it.
void job_assumptions(const DeadlineJob& job, std::vector<Assumed>& a) {
  a.push_back({"work_hours", strings::fixed(job.work_hours, 2), "scenario file"});
  a.push_back({"deadline_hours", strings::fixed(job.deadline_hours, 2), "scenario file"});
  a.push_back({"changeover_hours", strings::fixed(job.changeover_hours, 3),
               "scenario file (restart cost of every launch)"});
  a.push_back({"eviction_notice_seconds", strings::fixed(job.eviction_notice_s, 0),
               "Azure Scheduled Events Preempt notice (30 s)"});
  a.push_back({"checkpoint_seconds", strings::fixed(job.checkpoint_s, 0),
               "scenario file (progress beyond the notice is lost)"});
}

// The trace files (the options' replace the scenario's); empty when the
// scenario's stochastic model draws the traces.
Result<std::vector<SpotTrace>> load_traces(const Scenario& s, const RunOptions& o) {
  const DeadlineSpec& spec = s.deadline();
  std::vector<SpotTrace> traces;
  const std::vector<std::string>& files = o.spot_traces.empty() ? spec.spot_traces : o.spot_traces;
  if (!files.empty() && (!o.spot_traces.empty() || !spec.spot_model)) {
    for (const auto& f : files) {
      GPUPLAN_TRY(SpotTrace t, load_spot_trace(f));
      traces.push_back(std::move(t));
    }
  }
  return traces;
}

// One run to make: where it starts, or the generator that draws its trace.
struct RunJob {
  int block = 0;
  int run = 0;
  int64_t offset = 0;
  Rng rng{0};  // the stochastic model: the state that draws this run's trace
};

// What a run produced: the rows, and for the first run of a block the event
// log and (block 0) the timeline.
struct RunOut {
  std::vector<PolicyRow> rows;  // policies, then optimal
  std::string log;
  std::vector<TimelineRow> timeline;
};

// Everything the runs share (read-only while the pool runs).
struct Sweep {
  const Scenario& s;
  const RunOptions& o;
  const DeadlineJob& job;
  const std::vector<std::string>& policies;
  const std::vector<SpotTrace>& traces;  // empty: the stochastic model
  const SpotModel& spot_model;           // the stochastic model (Azure's band applied)
  double gpus = 1;
  int runs = 1;
  uint64_t seed = 1;
  [[nodiscard]] bool model() const { return traces.empty(); }
  [[nodiscard]] int blocks() const { return model() ? 1 : static_cast<int>(traces.size()); }
  [[nodiscard]] double gap(int b) const {
    return model() ? spot_model.gap_seconds : traces[static_cast<size_t>(b)].gap_seconds;
  }
  [[nodiscard]] int64_t steps(int b) const {
    return static_cast<int64_t>(std::ceil(job.deadline_hours * 3600 / gap(b)));
  }
};

// The random draws of every run, in run order (as a single thread makes them).
std::vector<RunJob> draw_runs(const Sweep& sw) {
  std::vector<RunJob> jobs;
  jobs.reserve(static_cast<size_t>(sw.blocks()) * static_cast<size_t>(sw.runs));
  for (int b = 0; b < sw.blocks(); ++b) {
    Rng rng(sw.seed * 1000003ULL + static_cast<uint64_t>(b));
    const int64_t steps = sw.steps(b);
    for (int run = 0; run < sw.runs; ++run) {
      RunJob j;
      j.block = b;
      j.run = run;
      if (sw.model()) {
        j.rng = rng;  // then advance past this run's trace
        (void)generate_spot_trace(sw.spot_model,
                                  std::max(sw.s.deadline().spot_model_steps, steps + 1), rng);
      } else {
        const int64_t n = static_cast<int64_t>(sw.traces[static_cast<size_t>(b)].available.size());
        j.offset = n > steps + 1
                       ? static_cast<int64_t>(rng.below(static_cast<uint64_t>(n - steps - 1)))
                       : 0;
      }
      jobs.push_back(j);
    }
  }
  return jobs;
}

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

// Runs every policy (`pols`, made for the job's block) and the optimum.
RunOut run_one(const Sweep& sw, const RunJob& j,
               std::vector<std::unique_ptr<ScalingPolicy>>& pols) {
  SpotTrace drawn;
  const SpotTrace* trace = sw.model() ? nullptr : &sw.traces[static_cast<size_t>(j.block)];
  if (sw.model()) {
    Rng rng = j.rng;
    drawn = generate_spot_trace(
        sw.spot_model, std::max(sw.s.deadline().spot_model_steps, sw.steps(j.block) + 1), rng);
    trace = &drawn;
  }
  RunOut out;
  const double opt = hindsight_optimal_cost(sw.job, *trace, j.offset);
  const bool log = j.run == 0 && sw.o.event_log;
  if (log)
    out.log += "# trace " + (sw.model() ? std::string("stochastic") : trace->file) +
               " run 0 offset " + std::to_string(j.offset) + " optimal $" + strings::fixed(opt, 4) +
               "\n";
  for (size_t i = 0; i < pols.size(); ++i) {
    DeadlineRun r = run_deadline(sw.job, *trace, j.offset, *pols[i], log ? &out.log : nullptr,
                                 j.run == 0 && j.block == 0 && sw.o.timeline);
    out.rows.push_back(row_of(r, opt, sw.gpus));
    for (const DeadlineStep& st : r.timeline)
      out.timeline.push_back({sw.policies[i], st.t_hours, st.progress_hours,
                              st.capacity == Capacity::kNone ? 0.0 : 1.0,
                              std::string(to_string(st.capacity)), st.cost_usd});
  }
  PolicyRow best;
  best.cost_usd = opt;
  best.cost_vs_optimal = 1.0;
  best.deadline_met_fraction = 1.0;
  out.rows.push_back(best);
  return out;
}

// Runs jobs [from, to) on a pool of threads; results in job order. Each
// thread checks the deadline before it takes a run and stops once it passed.
Result<std::vector<RunOut>> run_pool(const Sweep& sw, const std::vector<RunJob>& jobs, size_t from,
                                     size_t to) {
  std::vector<RunOut> outs(to - from);
  std::atomic<size_t> next{from};
  std::atomic<bool> late{false};
  std::atomic<int64_t> done{0};
  std::mutex progress_mu;
  const auto worker = [&] {
    std::vector<std::unique_ptr<ScalingPolicy>> pols;
    int block = -1;
    for (size_t i; (i = next++) < to;) {
      if (late.load() || sw.o.deadline.expired()) {
        late = true;
        return;
      }
      const RunJob& j = jobs[i];
      if (j.block != block) {  // policies are made per trace step
        block = j.block;
        pols.clear();
        for (const auto& name : sw.policies)
          pols.push_back(make_deadline_policy(name, sw.job, sw.gap(block)));
      }
      outs[i - from] = run_one(sw, j, pols);
      const int64_t d = ++done;
      if (sw.o.progress) {
        const std::lock_guard<std::mutex> lock(progress_mu);
        sw.o.progress(d, static_cast<int64_t>(to - from));
      }
    }
  };
  const size_t hw = sw.o.threads > 0 ? static_cast<size_t>(sw.o.threads)
                                     : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  // A thread the system cannot start (threads or memory maps exhausted:
  // ~32,000 as root, fewer under a ulimit) throws std::system_error; the
  // threads already started and this one take the runs instead. Uncaught,
  // it unwound past the joinable threads of the pool: std::terminate.
  try {
    for (size_t k = 1; k < std::min(hw, to - from); ++k) pool.emplace_back(worker);
  } catch (const std::system_error&) {  // NOLINT(bugprone-empty-catch): fewer threads do
  }
  worker();
  for (std::thread& t : pool) t.join();
  if (late)
    return tl::unexpected(sw.o.deadline.error(std::to_string(done.load()) + " of " +
                                              std::to_string(to - from) + " runs done"));
  return outs;
}

}  // namespace

void finish_deadline_report(SimReport& rep, const std::vector<std::string>& names,
                            const std::vector<RunRecord>& records) {
  std::vector<PolicyRow> total(names.size());
  size_t r = 0;
  for (TraceRows& tr : rep.traces) {
    const int block = static_cast<int>(&tr - rep.traces.data());
    std::vector<PolicyRow> rows(names.size());
    for (; r < records.size() && records[r].trace == block; ++r)
      for (size_t i = 0; i < rows.size(); ++i) accumulate(rows[i], records[r].rows[i]);
    tr.policies.clear();
    for (size_t i = 0; i < rows.size(); ++i) {
      rows[i].policy = names[i];
      total[i].policy = names[i];
      accumulate(total[i], rows[i]);  // totals over all runs of all traces
      tr.policies.push_back(finish_row(rows[i], rows[i].runs));
    }
  }
  rep.policies.clear();
  for (auto& t : total) rep.policies.push_back(finish_row(t, t.runs));
}

Result<SimReport> run_deadline_scenario(const Scenario& s, const catalog::Catalog* cat,
                                        const RunOptions& o) {
  const DeadlineSpec& spec = s.deadline();
  SimReport rep;
  GPUPLAN_TRY(const auto policies, start_report(s, o, "deadline", deadline_policy_names(), rep));
  GPUPLAN_TRY(Prices prices, resolve_prices(s, cat, true, rep.assumptions));
  DeadlineJob job = spec.job;
  job.od_usd_per_hour = prices.od;
  job.spot_usd_per_hour = prices.spot;
  double gpus = 1;
  if (cat && !s.vm_size.empty())
    if (const catalog::VmSize* z = cat->find_size(s.vm_size)) gpus = z->gpu_count;
  job_assumptions(job, rep.assumptions);

  // The traces: files (options replace the scenario's) or the stochastic model.
  GPUPLAN_TRY(const std::vector<SpotTrace> traces, load_traces(s, o));
  SpotModel spot_model;
  if (traces.empty()) {
    std::string basis;
    spot_model = spot_model_for(*spec.spot_model, spec.spot_model_up_given,
                                cat ? cat->spot_eviction(s.vm_size, s.region) : nullptr, basis);
    rep.assumptions.push_back({"spot_model",
                               "mean up " + strings::fixed(spot_model.mean_up_hours, 2) +
                                   " h, mean down " +
                                   strings::fixed(spot_model.mean_down_hours, 2) + " h",
                               basis});
  }
  const Sweep sw{s, o, job, policies, traces, spot_model, gpus, rep.runs, rep.seed};
  for (int b = 0; b < sw.blocks(); ++b) {
    GPUPLAN_RETURN_IF_ERROR(
        validate(job, sw.gap(b)).map_error([&](Error e) { return s.located(std::move(e)); }));
    TraceRows tr;
    tr.file = sw.model() ? "stochastic-model" : traces[static_cast<size_t>(b)].file;
    tr.spot_availability = sw.model() ? -1 : traces[static_cast<size_t>(b)].availability();
    rep.traces.push_back(std::move(tr));
  }
  rep.notes.push_back(
      "optimal: the hindsight optimum of each run (sees the whole spot trace, pays the same "
      "changeovers); "
      "cost_vs_optimal is the mean over runs of cost / optimal");
  for (int b = 0; b < sw.blocks(); ++b) {
    const std::string note = hindsight_optimum_note(job, sw.gap(b));
    if (!note.empty() && std::find(rep.notes.begin(), rep.notes.end(), note) == rep.notes.end())
      rep.notes.push_back(note);
  }
  rep.notes.push_back("runs start at offsets drawn uniformly within each trace (seed " +
                      std::to_string(rep.seed) + "); every policy sees the same offsets");

  // The draws, the runs of this slice (all of them without --shard), the rows.
  const std::vector<RunJob> jobs = draw_runs(sw);
  const RunOptions::Shard shard = o.shard.value_or(RunOptions::Shard{});
  const size_t n = jobs.size();
  const size_t from = n * static_cast<size_t>(shard.index) / static_cast<size_t>(shard.count);
  const size_t to = n * static_cast<size_t>(shard.index + 1) / static_cast<size_t>(shard.count);
  GPUPLAN_TRY(std::vector<RunOut> outs, run_pool(sw, jobs, from, to));
  std::vector<RunRecord> records;
  records.reserve(outs.size());
  for (size_t i = 0; i < outs.size(); ++i) {
    rep.event_log += outs[i].log;
    for (TimelineRow& t : outs[i].timeline) rep.timeline.push_back(std::move(t));
    records.push_back({jobs[from + i].block, jobs[from + i].run, std::move(outs[i].rows)});
  }
  std::vector<std::string> names = policies;
  names.push_back("optimal");
  if (o.shard) {
    rep.partial =
        Partial{shard.index, shard.count, static_cast<int64_t>(n), names, std::move(records)};
    return rep;
  }
  finish_deadline_report(rep, names, records);
  return rep;
}

}  // namespace gpuplan::simulate::internal
