// Scenario runner and report formats: resolves prices (scenario or catalog),
// the replica model (scenario or estimator) and the start-up delay, runs every
// policy over every trace and run with the same random offsets (common random
// numbers, so differences between policies are not sampling noise), adds the
// `optimal` row and aggregates. See deadline.cc and serving.cc for the models.
#include "simulate/simulate.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <future>
#include <sstream>
#include <thread>

#include "catalog/lookup.h"
#include "core/strings.h"
#include "core/text_table.h"
#include "estimate/estimate.h"
#include "workload/models.h"

namespace gpuplan::simulate {

namespace {

std::string num(double v, int digits) { return strings::fixed(v, digits); }

struct Prices {
  double od = 0;
  double spot = 0;
};

// A Linux price of the scenario's size and region from the catalog, recorded
// with its source and date (and its rule when estimated).
Result<double> catalog_price(const Scenario& s, const catalog::Catalog* cat, catalog::Pricing pr,
                             const std::string& what, std::vector<Assumed>& assumed) {
  if (!cat)
    return not_found("no catalog to look up the " + what + " price; give prices: in the scenario",
                     Where{s.file, 0, 0, "prices"});
  const catalog::Offer* o = cat->offer(s.vm_size, s.region, catalog::Os::kLinux, pr);
  if (!o || !o->usd_per_hour)
    return not_found("the catalog has no " + what + " price for " + s.vm_size + " in " +
                         (s.region.empty() ? "(no region)" : s.region) +
                         "; give prices: in the scenario",
                     Where{s.file, 0, 0, "vm.size"});
  assumed.push_back({what + "_usd_per_hour", num(*o->usd_per_hour, 4),
                     "catalog: " + o->source + " as of " + o->as_of +
                         (o->estimated ? " (estimated: " + o->rule.text() + ")" : "")});
  return *o->usd_per_hour;
}

// Where explicit prices come from.
std::string price_source(const Scenario& s) {
  return s.price_source.empty()
             ? "scenario file"
             : s.price_source + (s.price_as_of.empty() ? "" : " as of " + s.price_as_of);
}

// On-demand (payg) and spot prices with their provenance.
Result<Prices> resolve_prices(const Scenario& s, const catalog::Catalog* cat, bool need_spot,
                              std::vector<Assumed>& assumed) {
  Prices p;
  auto from_catalog = [&](catalog::Pricing pr, const char* what) {
    return catalog_price(s, cat, pr, what, assumed);
  };
  const std::string src = price_source(s);
  if (s.od_usd_per_hour) {
    p.od = *s.od_usd_per_hour;
    assumed.push_back({"on_demand_usd_per_hour", num(p.od, 4), src});
  } else {
    GPUPLAN_TRY(p.od, from_catalog(catalog::Pricing::kPayg, "on_demand"));
  }
  if (!need_spot) return p;
  if (s.spot_usd_per_hour) {
    p.spot = *s.spot_usd_per_hour;
    assumed.push_back({"spot_usd_per_hour", num(p.spot, 4), src});
  } else if (s.spot_ratio) {
    p.spot = p.od * *s.spot_ratio;
    assumed.push_back({"spot_usd_per_hour", num(p.spot, 4),
                       "on-demand x spot_ratio " + num(*s.spot_ratio, 4) + " (" + src + ")"});
  } else {
    GPUPLAN_TRY(p.spot, from_catalog(catalog::Pricing::kSpot, "spot"));
  }
  assumed.push_back({"spot_to_on_demand_ratio", num(p.spot / p.od, 4), "derived"});
  return p;
}

PolicyRow finish_row(PolicyRow r, double n) {
  if (n <= 0) return r;
  r.cost_usd /= n;
  if (r.cost_vs_optimal) *r.cost_vs_optimal /= n;
  if (r.deadline_met_fraction) *r.deadline_met_fraction /= n;
  r.evictions /= n;
  r.scale_events /= n;
  r.gpu_hours /= n;
  r.on_demand_usd /= n;
  r.spot_usd /= n;
  if (r.reserved_usd) *r.reserved_usd /= n;
  if (r.committed_after_usd) *r.committed_after_usd /= n;
  return r;
}

// Adds a run's row (runs 0: one run) or a sum of rows (runs: how many).
void accumulate(PolicyRow& into, const PolicyRow& one) {
  into.cost_usd += one.cost_usd;
  if (one.cost_vs_optimal)
    into.cost_vs_optimal = into.cost_vs_optimal.value_or(0) + *one.cost_vs_optimal;
  if (one.deadline_met_fraction)
    into.deadline_met_fraction =
        into.deadline_met_fraction.value_or(0) + *one.deadline_met_fraction;
  into.evictions += one.evictions;
  into.scale_events += one.scale_events;
  into.gpu_hours += one.gpu_hours;
  into.on_demand_usd += one.on_demand_usd;
  into.spot_usd += one.spot_usd;
  if (one.reserved_usd) into.reserved_usd = into.reserved_usd.value_or(0) + *one.reserved_usd;
  if (one.committed_after_usd)
    into.committed_after_usd = into.committed_after_usd.value_or(0) + *one.committed_after_usd;
  into.runs += std::max(one.runs, 1);
}

// A report's header (scenario, kind, seed, runs) and the policies to run:
// the options', else the scenario's, else every policy of the kind; a name
// the kind does not know is kInvalidArgument at --policy.
Result<std::vector<std::string>> start_report(const Scenario& s, const RunOptions& o,
                                              const std::string& kind,
                                              const std::vector<std::string>& all,
                                              SimReport& rep) {
  rep.scenario = s.name;
  rep.kind = kind;
  rep.runs = o.runs.value_or(s.runs);
  rep.seed = o.seed.value_or(s.seed);
  std::vector<std::string> chosen = o.policies.empty() ? s.policies : o.policies;
  if (chosen.empty() || (chosen.size() == 1 && chosen[0] == "all")) return all;
  for (const auto& p : chosen) {
    if (std::find(all.begin(), all.end(), p) != all.end()) continue;
    std::string msg = "unknown policy '" + p + "' for a " + kind + " scenario";
    if (auto c = strings::closest(p, all))
      msg += "; did you mean '" + *c + "'?";
    else {
      msg += "; expected all or one of:";
      for (const auto& a : all) msg += " " + a;
    }
    return invalid_argument(msg, Where{"", 0, 0, "--policy"});
  }
  return chosen;
}

// ---- deadline ---------------------------------------------------------------

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
  rep.assumptions.push_back({"work_hours", num(job.work_hours, 2), "scenario file"});
  rep.assumptions.push_back({"deadline_hours", num(job.deadline_hours, 2), "scenario file"});
  rep.assumptions.push_back({"changeover_hours", num(job.changeover_hours, 3),
                             "scenario file (restart cost of every launch)"});
  rep.assumptions.push_back({"eviction_notice_seconds", num(job.eviction_notice_s, 0),
                             "Azure Scheduled Events Preempt notice (30 s)"});
  rep.assumptions.push_back({"checkpoint_seconds", num(job.checkpoint_s, 0),
                             "scenario file (progress beyond the notice is lost)"});

  // The traces: files (options replace the scenario's) or the stochastic model.
  std::vector<SpotTrace> traces;
  const std::vector<std::string>& files = o.spot_traces.empty() ? s.spot_traces : o.spot_traces;
  if (!files.empty() && (!o.spot_traces.empty() || !s.spot_model)) {
    for (const auto& f : files) {
      GPUPLAN_TRY(SpotTrace t, load_spot_trace(f));
      traces.push_back(std::move(t));
    }
  }
  const bool model = traces.empty();
  SpotModel spot_model;
  if (model) {
    std::string basis;
    spot_model = spot_model_for(*s.spot_model, s.spot_model_up_given,
                                cat ? cat->spot_eviction(s.vm_size, s.region) : nullptr, basis);
    rep.assumptions.push_back({"spot_model",
                               "mean up " + num(spot_model.mean_up_hours, 2) + " h, mean down " +
                                   num(spot_model.mean_down_hours, 2) + " h",
                               basis});
  }
  const size_t n_blocks = model ? 1 : traces.size();
  std::vector<PolicyRow> total(policies.size() + 1);
  for (size_t b = 0; b < n_blocks; ++b) {
    const double gap = model ? spot_model.gap_seconds : traces[b].gap_seconds;
    GPUPLAN_RETURN_IF_ERROR(validate(job, gap).map_error([&](Error e) {
      e.where.file = s.file;
      return e;
    }));
    std::vector<std::unique_ptr<ScalingPolicy>> pols;
    for (const auto& name : policies) pols.push_back(make_deadline_policy(name, job, gap));
    std::vector<PolicyRow> rows(policies.size() + 1);
    Rng rng(rep.seed * 1000003ULL + b);
    const int64_t steps = static_cast<int64_t>(std::ceil(job.deadline_hours * 3600 / gap));
    TraceRows tr;
    for (int run = 0; run < rep.runs; ++run) {
      SpotTrace drawn;
      const SpotTrace* trace;
      int64_t offset = 0;
      if (model) {
        drawn = generate_spot_trace(spot_model, std::max(s.spot_model_steps, steps + 1), rng);
        trace = &drawn;
      } else {
        trace = &traces[b];
        const int64_t n = static_cast<int64_t>(trace->available.size());
        offset = n > steps + 1
                     ? static_cast<int64_t>(rng.below(static_cast<uint64_t>(n - steps - 1)))
                     : 0;
      }
      const double opt = hindsight_optimal_cost(job, *trace, offset);
      const bool first = run == 0;
      if (first && o.event_log) {
        rep.event_log += "# trace " + (model ? std::string("stochastic") : trace->file) +
                         " run 0 offset " + std::to_string(offset) + " optimal $" + num(opt, 4) +
                         "\n";
      }
      for (size_t i = 0; i < pols.size(); ++i) {
        DeadlineRun r = run_deadline(job, *trace, offset, *pols[i],
                                     first && o.event_log ? &rep.event_log : nullptr,
                                     first && b == 0 && o.timeline);
        PolicyRow one;
        one.cost_usd = r.cost_usd;
        one.cost_vs_optimal = r.cost_usd / opt;
        one.deadline_met_fraction = r.deadline_met ? 1.0 : 0.0;
        one.evictions = r.evictions;
        one.scale_events = r.scale_events;
        one.gpu_hours = (r.od_hours + r.spot_hours) * gpus;
        one.on_demand_usd = r.od_usd;
        one.spot_usd = r.spot_usd;
        accumulate(rows[i], one);
        for (const DeadlineStep& st : r.timeline)
          rep.timeline.push_back({policies[i], st.t_hours, st.progress_hours,
                                  st.capacity == Capacity::kNone ? 0.0 : 1.0,
                                  std::string(to_string(st.capacity)), st.cost_usd});
      }
      PolicyRow best;
      best.cost_usd = opt;
      best.cost_vs_optimal = 1.0;
      best.deadline_met_fraction = 1.0;
      accumulate(rows.back(), best);
      if (o.progress)
        o.progress(static_cast<int64_t>(b) * rep.runs + run + 1,
                   static_cast<int64_t>(n_blocks) * rep.runs);
    }
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

// ---- reserve ----------------------------------------------------------------

Result<SimReport> run_reserve_scenario(const Scenario& s, const catalog::Catalog* cat,
                                       const RunOptions& o) {
  SimReport rep;
  GPUPLAN_TRY(const auto policies, start_report(s, o, "reserve", reserve_policy_names(), rep));
  GPUPLAN_TRY(Prices payg, resolve_prices(s, cat, false, rep.assumptions));
  ReservePrices prices;
  prices.payg_usd_per_hour = payg.od;
  prices.term_hours = s.term_years * 8760.0;
  const std::string term = s.term_years == 3 ? "reserved-3y" : "reserved-1y";
  if (s.reserved_usd_per_hour) {
    prices.reserved_usd_per_hour = *s.reserved_usd_per_hour;
    rep.assumptions.push_back(
        {"reserved_usd_per_hour", num(prices.reserved_usd_per_hour, 4), price_source(s)});
  } else {
    GPUPLAN_TRY(prices.reserved_usd_per_hour,
                catalog_price(s, cat,
                              s.term_years == 3 ? catalog::Pricing::kReserved3y
                                                : catalog::Pricing::kReserved1y,
                              "reserved", rep.assumptions));
  }
  if (!(prices.reserved_usd_per_hour < prices.payg_usd_per_hour))
    return invalid_argument("the reservation costs as much as pay-as-you-go: nothing to decide",
                            Where{s.file, 0, 0, "prices.reserved_usd_per_hour"});
  rep.assumptions.push_back({"term", term + " (" + num(prices.term_hours, 0) + " h)",
                             "reservation.term (default 1y)"});
  rep.assumptions.push_back({"break_even_utilization",
                             num(prices.reserved_usd_per_hour / prices.payg_usd_per_hour, 4),
                             "derived: reserved / payg price"});
  rep.assumptions.push_back({"review_hours", num(s.reserve.review_hours, 0),
                             "advisor and forecast-reserve look this often"});
  rep.assumptions.push_back({"lookback_hours", num(s.reserve.lookback_hours, 0),
                             "Azure reservation recommendations' Last30Days look-back"});
  rep.assumptions.push_back({"projection_hours", num(s.reserve.projection_hours, 0),
                             "forecast-reserve projects this far ahead"});
  rep.assumptions.push_back({"accounting",
                             "amortized: each hour pays its share of the reservations held",
                             "Azure Cost Management amortized cost view"});

  // The demand: the job trace (--trace replaces it) or synthetic runs.
  const bool synthetic = s.demand_format == "synthetic-vms" && !o.trace;
  if (!synthetic) rep.runs = 1;  // a job trace is replayed once
  double gpus = 1;
  if (cat && !s.vm_size.empty())
    if (const catalog::VmSize* z = cat->find_size(s.vm_size)) gpus = z->gpu_count;
  VmDemand jobs_demand;
  if (!synthetic) {
    const std::string file = o.trace.value_or(s.demand_trace);
    GPUPLAN_TRY(PodJobs pods, read_pod_jobs(file));
    const double per_vm = s.gpus_per_vm.value_or(gpus);
    GPUPLAN_TRY(jobs_demand, vms_from_jobs(pods, per_vm, s.time_scale).map_error([&](Error e) {
      e.where.file = file;
      return e;
    }));
    jobs_demand.describe = "alibaba-pods: " + file;
    if (static_cast<double>(jobs_demand.vms.size()) > prices.term_hours)
      return invalid_argument("the trace spans " + num(jobs_demand.vms.size() / 24.0, 0) +
                                  " days, longer than the reservation term (renewals are not "
                                  "modelled); use demand.time_scale or a 3y term",
                              Where{s.file, 0, 0, "demand.time_scale"});
    rep.assumptions.push_back({"gpus_per_vm", num(per_vm, 2),
                               s.gpus_per_vm ? "scenario file" : "catalog (VM size)"});
    for (const DropNote& d : jobs_demand.drops)
      rep.notes.push_back("trace: dropped " + std::to_string(d.count) + " " + d.what);
  }

  std::vector<std::unique_ptr<ScalingPolicy>> pols;
  for (const auto& name : policies) pols.push_back(make_reserve_policy(name, s.reserve));
  std::vector<PolicyRow> rows(policies.size() + 1);
  for (int run = 0; run < rep.runs; ++run) {
    const VmDemand demand =
        synthetic ? synthetic_vms(s.synthetic_vms, rep.seed * 1000003ULL + run) : jobs_demand;
    if (demand.vms.empty())
      return invalid_argument("the demand has no hours", Where{s.file, 0, 0, "demand"});
    const ReserveRun best_run = reserve_optimal(demand, prices);
    const double opt = best_run.cost_usd;
    const bool first = run == 0;
    if (first && o.event_log)
      rep.event_log += "# " + demand.describe + " run 0, " + std::to_string(demand.vms.size()) +
                       " hours, optimal $" + num(opt, 4) + "\n";
    double vm_hours = 0;
    for (int32_t v : demand.vms) vm_hours += v;
    for (size_t i = 0; i < pols.size(); ++i) {
      ReserveRun r = run_reserve(demand, prices, *pols[i], first && o.event_log ? &rep.event_log
                                                                                : nullptr,
                                 first && o.timeline ? 24 : 0);
      PolicyRow one;
      one.cost_usd = r.cost_usd;
      one.cost_vs_optimal = opt > 0 ? r.cost_usd / opt : 1.0;
      one.scale_events = r.purchases;
      one.gpu_hours = vm_hours * gpus;
      one.on_demand_usd = r.payg_usd;
      one.reserved_usd = r.reserved_usd;
      one.committed_after_usd = r.committed_after_usd;
      accumulate(rows[i], one);
      for (const ReserveStep& st : r.timeline)
        rep.timeline.push_back(
            {policies[i], st.t_hours, static_cast<double>(st.demand_vms),
             static_cast<double>(st.reserved), "reserved", st.cost_usd});
    }
    PolicyRow best;
    best.cost_usd = opt;
    best.cost_vs_optimal = 1.0;
    best.scale_events = best_run.purchases;
    best.gpu_hours = vm_hours * gpus;
    best.on_demand_usd = best_run.payg_usd;
    best.reserved_usd = best_run.reserved_usd;
    best.committed_after_usd = best_run.committed_after_usd;
    accumulate(rows.back(), best);
    if (o.progress) o.progress(run + 1, rep.runs);
  }
  TraceRows tr;
  tr.file = synthetic ? "synthetic" : o.trace.value_or(s.demand_trace);
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].policy = i < policies.size() ? policies[i] : "optimal";
    rep.policies.push_back(finish_row(rows[i], rows[i].runs));
  }
  tr.policies = rep.policies;
  rep.traces.push_back(std::move(tr));
  rep.notes.push_back(
      "optimal: the hindsight optimum of each run (knows the whole demand, buys at the same "
      "instants); cost_vs_optimal is the mean over runs of cost / optimal");
  rep.notes.push_back(
      "cost is amortized over the window; committed_after_usd is what the reservations still "
      "owe after it (the work is assumed to continue)");
  return rep;
}

// ---- serving ----------------------------------------------------------------

Result<std::unique_ptr<DemandSource>> open_demand(const Scenario& s, const std::string& trace,
                                                  uint64_t seed) {
  if (s.demand_format == "azure-llm") return open_azure_llm_trace(trace, s.time_scale);
  if (s.demand_format == "alibaba-qps")
    return open_alibaba_qps(trace, s.time_scale, s.qps_bucket_s, s.qps_input, s.qps_output, seed);
  return make_synthetic(s.synthetic, s.time_scale, seed);
}

// The model replica and its tensor-parallel size `*tp` (GPUs per replica).
// Without tensor_parallel: an explicit replica: takes all GPUs of the VM; the
// estimator's replica takes the layout a deployment would choose, as the
// estimator does (estimate.cc): among tp = 1, 2, 4, ... dividing the VM's
// GPUs and the model's heads whose weights fit, the one that serves the most
// requests per VM — the least GPU-seconds of work per request at the
// planning batch — preferring layouts whose batch-1 step meets the TPOT.
Result<ReplicaCapacity> resolve_replica(const Scenario& s, const catalog::Catalog* cat,
                                        double mean_context, double mean_in, double mean_out,
                                        double tpot_s, int* tp, std::vector<Assumed>& assumed) {
  const catalog::VmSize* vm = cat && !s.vm_size.empty() ? cat->find_size(s.vm_size) : nullptr;
  // Without a catalog size (explicit prices and replica), a VM is one replica.
  const int vm_gpus = vm ? std::max(1, static_cast<int>(std::floor(vm->gpu_count)))
                         : std::max(1, s.tensor_parallel);
  if (s.tensor_parallel > vm_gpus)
    return invalid_argument("tensor_parallel " + std::to_string(s.tensor_parallel) +
                                " exceeds the " + std::to_string(vm_gpus) + " GPU(s) of " +
                                (vm ? s.vm_size : std::string("the VM")),
                            Where{s.file, 0, 0, "tensor_parallel"});
  if (s.replica) {
    *tp = s.tensor_parallel > 0 ? s.tensor_parallel : vm_gpus;
    assumed.push_back({"replica",
                       "prefill " + num(s.replica->prefill_tokens_per_s, 0) + " tok/s, step " +
                           num(s.replica->step_base_s * 1e3, 2) + " ms + " +
                           num(s.replica->step_per_seq_s * 1e3, 4) + " ms/seq, max batch " +
                           std::to_string(s.replica->max_batch),
                       s.replica->source});
    return *s.replica;
  }
  if (!cat)
    return not_found("no catalog to size the replica; give replica: in the scenario",
                     Where{s.file, 0, 0, "replica"});
  GPUPLAN_TRY(const catalog::VmSize* size,
              catalog::lookup_size(*cat, s.vm_size, Where{s.file, 0, 0, "vm.size"}));
  const catalog::Gpu* gpu = cat->find_gpu(size->gpu_model);
  if (!gpu)
    return not_found("the catalog has no GPU '" + size->gpu_model + "'",
                     Where{s.file, 0, 0, "vm.size"});
  const workload::Model* m = workload::find_model(s.model);
  if (!m) return not_found("unknown model '" + s.model + "'", Where{s.file, 0, 0, "model"});
  workload::Workload w;
  w.kind = workload::Kind::kInfer;
  w.model = *m;
  bool prec_ok = false;
  for (auto p :
       {workload::Precision::kFp32, workload::Precision::kFp16, workload::Precision::kBf16,
        workload::Precision::kFp8, workload::Precision::kInt8, workload::Precision::kInt4}) {
    if (workload::to_string(p) == s.precision) w.precision = p, prec_ok = true;
  }
  if (!prec_ok)
    return invalid_argument("unknown precision '" + s.precision + "'",
                            Where{s.file, 0, 0, "precision"});
  // The estimator's replica model reduced to the simulator's four numbers.
  const auto fit = [&](const estimate::ReplicaModel& rm) {
    ReplicaCapacity c;
    const double mb = std::max(1.0, std::floor(rm.max_batch(mean_context)));
    const double b2 = std::min(mb, 64.0);
    const double s1 = rm.decode_step_seconds(1, mean_context);
    const double s2 = rm.decode_step_seconds(b2, mean_context);
    c.step_per_seq_s = b2 > 1 ? std::max(0.0, (s2 - s1) / (b2 - 1)) : 0;
    c.step_base_s = std::max(1e-6, s1 - c.step_per_seq_s);
    const double p1 = rm.prefill_seconds(1000), p2 = rm.prefill_seconds(2000);
    c.prefill_tokens_per_s = p2 > p1 ? 1000 / (p2 - p1) : 1000 / std::max(p1, 1e-9);
    c.prefill_fixed_s = std::max(0.0, p1 - 1000 / c.prefill_tokens_per_s);
    c.max_batch = static_cast<int>(mb);
    return c;
  };
  ReplicaCapacity c;
  if (s.tensor_parallel > 0) {
    *tp = s.tensor_parallel;
    GPUPLAN_TRY(estimate::ReplicaModel rm, estimate::replica_model(w, *gpu, size->nvlink, *tp));
    c = fit(rm);
  } else {
    *tp = 0;
    double best_key = 0;
    bool best_meets = false;
    Error last =
        invalid_argument("no tensor-parallel layout", Where{s.file, 0, 0, "vm.size"}).value();
    for (int t = 1; t <= vm_gpus; t *= 2) {
      if (vm_gpus % t != 0 || (m->heads > 0 && m->heads % t != 0)) continue;
      auto rm = estimate::replica_model(w, *gpu, size->nvlink, t);
      if (!rm) {
        last = rm.error();
        continue;
      }
      const ReplicaCapacity cand = fit(*rm);
      const bool meets = cand.step_s(1) <= tpot_s;
      const double key = cand.work_s(mean_in, mean_out, tpot_s) * t;  // GPU-s per request
      if (*tp == 0 || (meets && !best_meets) || (meets == best_meets && key < best_key)) {
        *tp = t;
        c = cand;
        best_key = key;
        best_meets = meets;
      }
    }
    if (*tp == 0) return tl::unexpected<Error>(last);
  }
  const int tp_used = *tp;
  c.source = "estimator: " + std::string(m->name) + " " + s.precision + " on " +
             std::to_string(tp_used) + "x " + gpu->model + " at mean context " +
             num(mean_context, 0) + " tokens (linear fit of the decode step at batch 1 and " +
             num(std::min(c.max_batch, 64), 0) + ")";
  assumed.push_back({"replica",
                     "prefill " + num(c.prefill_tokens_per_s, 0) + " tok/s, step " +
                         num(c.step_base_s * 1e3, 2) + " ms + " + num(c.step_per_seq_s * 1e3, 4) +
                         " ms/seq, max batch " + std::to_string(c.max_batch),
                     c.source});
  return c;
}

Result<SimReport> run_serving_scenario(const Scenario& s, const catalog::Catalog* cat,
                                       const RunOptions& o) {
  SimReport rep;
  GPUPLAN_TRY(const auto policies, start_report(s, o, "serving", serving_policy_names(), rep));
  rep.runs = 1;  // a demand trace is replayed once
  GPUPLAN_TRY(Prices prices, resolve_prices(s, cat, false, rep.assumptions));
  const std::string trace = o.trace.value_or(s.demand_trace);
  if (o.trace && s.demand_format == "synthetic")
    return invalid_argument(
        "--trace replaces a trace file, but this scenario's demand is synthetic",
        Where{s.file, 0, 0, "demand"});

  // Mean tokens of the demand (the estimator's context length), then the
  // replica model, then the demand profile for static-peak and the bound.
  double mean_ctx = 0, mean_in = 0, mean_out = 0;
  if (!s.replica) {
    GPUPLAN_TRY(auto src, open_demand(s, trace, rep.seed));
    Request r;
    double in = 0, out = 0;
    int64_t n = 0;
    for (;;) {
      GPUPLAN_TRY(bool more, src->next(r));
      if (!more) break;
      in += r.input_tokens;
      out += r.output_tokens;
      ++n;
    }
    if (n == 0) return invalid_argument("the demand has no requests", Where{trace, 0, 0, ""});
    mean_ctx = (in + out / 2) / static_cast<double>(n);
    mean_in = in / static_cast<double>(n);
    mean_out = out / static_cast<double>(n);
  }
  ServingConfig c;
  c.ttft_slo_s = s.ttft_ms / 1e3;
  c.tpot_slo_s = s.tpot_ms / 1e3;
  int tp = 1;
  GPUPLAN_TRY(c.replica, resolve_replica(s, cat, mean_ctx, mean_in, mean_out, c.tpot_slo_s, &tp,
                                         rep.assumptions));
  c.usd_per_hour = prices.od;
  // A VM is the unit launched, billed and scaled; it runs floor(GPUs / tp)
  // model replicas (serving.h, "Units").
  const catalog::VmSize* size = cat && !s.vm_size.empty() ? cat->find_size(s.vm_size) : nullptr;
  c.gpus_per_vm = size ? size->gpu_count : tp;
  c.replicas_per_vm =
      size ? std::max(1, static_cast<int>(std::floor(size->gpu_count + 1e-9)) / tp) : 1;
  if (size)
    rep.assumptions.push_back(
        {"replicas_per_vm",
         std::to_string(c.replicas_per_vm) + " (tensor_parallel " + std::to_string(tp) + " on " +
             num(size->gpu_count, size->gpu_count == std::floor(size->gpu_count) ? 0 : 4) +
             " GPU(s) per VM; fleet counts, scale events and static-peak are VMs)",
         s.tensor_parallel > 0 ? "scenario file"
                               : "the layout serving the most requests per VM (estimator)"});
  if (s.startup_s) {
    c.startup_s = *s.startup_s;
    rep.assumptions.push_back({"startup_seconds", num(c.startup_s, 0), "scenario file"});
  } else {
    Assumed a = default_startup(s.vm_size);
    c.startup_s = std::stod(a.value);
    rep.assumptions.push_back(a);
  }
  c.min_replicas = s.min_replicas;
  c.initial_replicas = s.initial_replicas;
  c.max_replicas = s.max_replicas;
  if (s.quota_vcpus && size && size->vcpus > 0) {
    const int cap = static_cast<int>(std::floor(*s.quota_vcpus / size->vcpus));
    rep.assumptions.push_back({"quota_cap_replicas", std::to_string(cap),
                               "fleet.quota_vcpus " + num(*s.quota_vcpus, 0) + " / " +
                                   std::to_string(size->vcpus) + " vCPUs per VM"});
    c.max_replicas = std::max(1, std::min(c.max_replicas, cap));
  }
  c.interval_s = s.interval_s;
  c.timeline_s = s.timeline_s;
  c.target_utilization = s.target_utilization;
  rep.assumptions.push_back(
      {"slo", "TTFT <= " + num(s.ttft_ms, 0) + " ms and TPOT <= " + num(s.tpot_ms, 0) + " ms",
       "scenario file"});
  rep.assumptions.push_back({"planning_batch", std::to_string(c.replica.batch_at_slo(c.tpot_slo_s)),
                             "largest batch whose decode step is <= half the TPOT target"});
  rep.assumptions.push_back({"replicas",
                             "min " + std::to_string(c.min_replicas) + ", initial " +
                                 std::to_string(c.initial_replicas) + ", max " +
                                 std::to_string(c.max_replicas),
                             "scenario file"});

  // The profile pass (static-peak's size and the bound) and each policy's
  // run are independent replays of the same demand: they run on up to
  // hardware_concurrency threads. Only static-peak waits for the profile.
  // Results, logs and errors are gathered in policy order, so the report
  // does not depend on the schedule.
  struct ProfileOut {
    DemandProfile profile;
    std::vector<std::string> notes;
  };
  const std::shared_future<Result<ProfileOut>> profile_f =
      std::async(std::launch::async, [&]() -> Result<ProfileOut> {
        ProfileOut out;
        GPUPLAN_TRY(auto psrc, open_demand(s, trace, rep.seed));
        GPUPLAN_TRY(out.profile, profile_demand(*psrc, c));
        if (out.profile.requests == 0)
          return invalid_argument("the demand has no requests", Where{trace, 0, 0, ""});
        for (const DropNote& d : psrc->drops())
          out.notes.push_back(psrc->describe() + ": " + std::to_string(d.count) + " " + d.what);
        return out;
      }).share();
  PolicyContext ctx;
  ctx.od_usd_per_hour = prices.od;
  ctx.startup_s = c.startup_s;
  ctx.min_replicas = c.min_replicas;
  ctx.max_replicas = c.max_replicas;
  const auto peak_of = [&](const DemandProfile& p) {
    return std::min(c.max_replicas, p.peak_replicas(c.target_utilization, c.replicas_per_vm));
  };
  std::vector<Result<ServingRun>> runs(policies.size(), ServingRun{});
  std::vector<std::string> logs(policies.size());
  std::atomic<size_t> next_job{0};
  const auto worker = [&] {
    for (size_t i; (i = next_job++) < policies.size();) {
      const std::string& name = policies[i];
      PolicyContext pc = ctx;
      if (name == "static-peak") {  // the only policy that reads peak_replicas
        const Result<ProfileOut>& pr = profile_f.get();
        if (!pr) {
          runs[i] = tl::unexpected(pr.error());
          continue;
        }
        pc.peak_replicas = peak_of(pr->profile);
      }
      std::unique_ptr<ScalingPolicy> pol;
      if (name == "azure-autoscale")
        pol = make_azure_autoscale_policy(s.autoscale);
      else if (name == "hpa")
        pol = make_hpa_policy(s.hpa);
      else
        pol = make_serving_policy(name, c);
      auto src = open_demand(s, trace, rep.seed);
      if (!src) {
        runs[i] = tl::unexpected(src.error());
        continue;
      }
      runs[i] = run_serving(c, **src, *pol, pc, o.event_log ? &logs[i] : nullptr, o.timeline);
    }
  };
  {
    const size_t hw = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> pool;
    for (size_t k = 1; k < std::min(hw, policies.size()); ++k) pool.emplace_back(worker);
    worker();
    for (std::thread& t : pool) t.join();
  }
  GPUPLAN_TRY(ProfileOut prof, profile_f.get());
  const DemandProfile& profile = prof.profile;
  for (std::string& n : prof.notes) rep.notes.push_back(std::move(n));
  const ServingBound bound = serving_lower_bound(profile, c);
  ctx.peak_replicas = peak_of(profile);

  TraceRows tr;
  tr.file = s.demand_format == "synthetic" ? "synthetic" : trace;
  for (size_t i = 0; i < policies.size(); ++i) {
    const std::string& name = policies[i];
    GPUPLAN_TRY(ServingRun r, std::move(runs[i]));
    rep.event_log += logs[i];
    rep.events += r.events;
    PolicyRow row;
    row.policy = name;
    row.cost_usd = r.cost_usd;
    row.cost_vs_optimal =
        bound.cost_usd > 0 ? std::optional<double>(r.cost_usd / bound.cost_usd) : std::nullopt;
    row.slo_attainment = r.slo_attainment();
    row.p50_ttft_ms = r.ttft_ms.quantile(0.5);
    row.p99_ttft_ms = r.ttft_ms.quantile(0.99);
    row.p99_tpot_ms = r.tpot_ms.quantile(0.99);
    row.scale_events = r.scale_events;
    row.gpu_hours = r.gpu_hours;
    row.on_demand_usd = r.cost_usd;
    row.runs = 1;
    tr.policies.push_back(row);
    for (const TimelinePoint& p : r.timeline)
      rep.timeline.push_back({name, p.t_hours, p.demand_rps, p.replicas, "payg", p.cost_usd});
  }
  PolicyRow opt;
  opt.policy = "optimal";
  opt.cost_usd = bound.cost_usd;
  opt.cost_vs_optimal = 1.0;
  opt.gpu_hours = bound.vm_hours * c.gpus_per_vm;
  opt.on_demand_usd = bound.cost_usd;
  opt.runs = 1;
  tr.policies.push_back(opt);
  rep.policies = tr.policies;
  rep.traces.push_back(std::move(tr));
  rep.notes.push_back(
      "optimal: a lower bound — every " + num(c.timeline_s, 0) +
      " s exactly the VMs whose replicas carry that interval's work at full utilization (at "
      "least min_replicas, at most max_replicas), each paying the start-up delay when first used "
      "and min(gap, start-up) after an idle gap, billed up to the last arrival; it serves no "
      "requests, so its latency fields are null");
  rep.notes.push_back("requests " + std::to_string(profile.requests) + ", mean " +
                      num(profile.mean_input, 0) + " input / " + num(profile.mean_output, 0) +
                      " output tokens; static-peak holds " + std::to_string(ctx.peak_replicas) +
                      (c.replicas_per_vm > 1 ? " VMs" : " replicas"));
  return rep;
}

nlohmann::ordered_json opt_json(const std::optional<double>& v, int digits) {
  if (!v) return nullptr;
  const double scale = std::pow(10.0, digits);
  return std::round(*v * scale) / scale;
}

double rounded(double v, int digits) {
  const double scale = std::pow(10.0, digits);
  return std::round(v * scale) / scale;
}

nlohmann::ordered_json row_json(const PolicyRow& r) {
  nlohmann::ordered_json j;
  j["policy"] = r.policy;
  j["cost_usd"] = rounded(r.cost_usd, 4);
  j["cost_vs_optimal"] = opt_json(r.cost_vs_optimal, 4);
  j["slo_attainment"] = opt_json(r.slo_attainment, 5);
  j["p50_ttft_ms"] = opt_json(r.p50_ttft_ms, 2);
  j["p99_ttft_ms"] = opt_json(r.p99_ttft_ms, 2);
  j["deadline_met_fraction"] = opt_json(r.deadline_met_fraction, 4);
  j["evictions"] = rounded(r.evictions, 3);
  j["scale_events"] = rounded(r.scale_events, 3);
  j["p99_tpot_ms"] = opt_json(r.p99_tpot_ms, 2);
  j["gpu_hours"] = rounded(r.gpu_hours, 4);
  if (r.reserved_usd) {
    j["cost_by_pricing"] = {{"payg", rounded(r.on_demand_usd, 4)},
                            {"reserved", rounded(*r.reserved_usd, 4)}};
    j["committed_after_usd"] = opt_json(r.committed_after_usd, 4);
  } else {
    j["cost_by_pricing"] = {{"payg", rounded(r.on_demand_usd, 4)},
                            {"spot", rounded(r.spot_usd, 4)}};
  }
  j["runs"] = r.runs;
  return j;
}

std::string opt_text(const std::optional<double>& v, int digits, double scale = 1) {
  return v ? num(*v * scale, digits) : "-";
}

}  // namespace

Result<SimReport> run_scenario(const Scenario& scenario, const catalog::Catalog* catalog,
                               const RunOptions& options) {
  if (options.runs && *options.runs < 1)
    return invalid_argument("expected --runs >= 1", Where{"", 0, 0, "--runs"});
  if (scenario.kind == ScenarioKind::kDeadline) {
    if (options.trace)
      return invalid_argument(
          "--trace replaces a demand trace; a deadline scenario has spot traces (--spot-trace)",
          Where{"", 0, 0, "--trace"});
    return run_deadline_scenario(scenario, catalog, options);
  }
  if (!options.spot_traces.empty())
    return invalid_argument("--spot-trace applies to deadline scenarios; this one is " +
                                std::string(scenario.kind == ScenarioKind::kReserve ? "reserve"
                                                                                    : "serving"),
                            Where{"", 0, 0, "--spot-trace"});
  if (scenario.kind == ScenarioKind::kReserve)
    return run_reserve_scenario(scenario, catalog, options);
  return run_serving_scenario(scenario, catalog, options);
}

nlohmann::ordered_json to_json(const SimReport& r) {
  nlohmann::ordered_json j;
  j["scenario"] = r.scenario;
  j["kind"] = r.kind;
  j["runs"] = r.runs;
  j["seed"] = r.seed;
  j["policies"] = nlohmann::ordered_json::array();
  for (const auto& p : r.policies) j["policies"].push_back(row_json(p));
  j["traces"] = nlohmann::ordered_json::array();
  for (const auto& t : r.traces) {
    nlohmann::ordered_json tj;
    tj["file"] = t.file;
    tj["spot_availability"] = t.spot_availability >= 0
                                  ? nlohmann::ordered_json(rounded(t.spot_availability, 4))
                                  : nlohmann::ordered_json(nullptr);
    tj["policies"] = nlohmann::ordered_json::array();
    for (const auto& p : t.policies) tj["policies"].push_back(row_json(p));
    j["traces"].push_back(tj);
  }
  j["assumptions"] = nlohmann::ordered_json::array();
  for (const auto& a : r.assumptions)
    j["assumptions"].push_back({{"name", a.name}, {"value", a.value}, {"source", a.source}});
  j["notes"] = r.notes;
  return j;
}

std::string to_text(const SimReport& r) {
  std::ostringstream o;
  o << "Scenario " << r.scenario << " (" << r.kind << "), " << r.runs
    << (r.runs == 1 ? " run" : " runs") << (r.kind == "deadline" ? " per trace" : "") << ", seed "
    << r.seed << "\n\n";
  auto table = [&](const std::vector<PolicyRow>& rows) {
    TextTable t;
    t.add_column("policy");
    t.add_column("cost $", TextTable::Align::kRight);
    t.add_column("vs opt", TextTable::Align::kRight);
    if (r.kind == "reserve") {
      t.add_column("payg $", TextTable::Align::kRight);
      t.add_column("reserved $", TextTable::Align::kRight);
      t.add_column("owed after $", TextTable::Align::kRight);
    } else if (r.kind == "serving") {
      t.add_column("SLO %", TextTable::Align::kRight);
      t.add_column("p50 TTFT ms", TextTable::Align::kRight);
      t.add_column("p99 TTFT ms", TextTable::Align::kRight);
      t.add_column("p99 TPOT ms", TextTable::Align::kRight);
    } else {
      t.add_column("on time %", TextTable::Align::kRight);
      t.add_column("spot $", TextTable::Align::kRight);
      t.add_column("evictions", TextTable::Align::kRight);
    }
    t.add_column(r.kind == "reserve" ? "purchases" : "scale events", TextTable::Align::kRight);
    t.add_column("GPU-h", TextTable::Align::kRight);
    for (const auto& p : rows) {
      if (r.kind == "reserve")
        t.add_row({p.policy, num(p.cost_usd, 2), opt_text(p.cost_vs_optimal, 3),
                   num(p.on_demand_usd, 2), opt_text(p.reserved_usd, 2),
                   opt_text(p.committed_after_usd, 2), num(p.scale_events, 1),
                   num(p.gpu_hours, 1)});
      else if (r.kind == "serving")
        t.add_row({p.policy, num(p.cost_usd, 2), opt_text(p.cost_vs_optimal, 3),
                   opt_text(p.slo_attainment, 2, 100), opt_text(p.p50_ttft_ms, 0),
                   opt_text(p.p99_ttft_ms, 0), opt_text(p.p99_tpot_ms, 1), num(p.scale_events, 1),
                   num(p.gpu_hours, 2)});
      else
        t.add_row({p.policy, num(p.cost_usd, 2), opt_text(p.cost_vs_optimal, 3),
                   opt_text(p.deadline_met_fraction, 1, 100), num(p.spot_usd, 2),
                   num(p.evictions, 1), num(p.scale_events, 1), num(p.gpu_hours, 2)});
    }
    return t.render();
  };
  o << "All traces and runs (means):\n" << table(r.policies);
  if (r.traces.size() > 1) {
    for (const auto& t : r.traces) {
      o << "\n" << std::filesystem::path(t.file).filename().string();
      if (t.spot_availability >= 0)
        o << " (spot available " << num(t.spot_availability * 100, 1) << " % of steps)";
      o << ":\n" << table(t.policies);
    }
  }
  o << "\nAssumptions:\n";
  // 100 columns: two spaces before each item, four before its continuation.
  for (const auto& a : r.assumptions)
    o << "  " << strings::wrap(a.name + " = " + a.value + "  [" + a.source + "]", 96, 4, 98)
      << "\n";
  o << "Notes:\n";
  for (const auto& n : r.notes) o << "  " << strings::wrap(n, 96, 4, 98) << "\n";
  return o.str();
}

std::string timeline_csv(const SimReport& r) {
  std::string out = "policy,t_hours,demand,replicas,capacity,cost_usd\n";
  char buf[256];
  for (const auto& t : r.timeline) {
    std::snprintf(buf, sizeof buf, "%s,%.4f,%.4f,%.0f,%s,%.4f\n", t.policy.c_str(), t.t_hours,
                  t.demand, t.replicas, t.capacity.c_str(), t.cost_usd);
    out += buf;
  }
  return out;
}

nlohmann::ordered_json timeline_json(const SimReport& r) {
  nlohmann::ordered_json j;
  j["scenario"] = r.scenario;
  j["demand_unit"] = r.kind == "serving"   ? "requests/s"
                     : r.kind == "reserve" ? "VMs in use"
                                           : "progress hours";
  j["points"] = nlohmann::ordered_json::array();
  for (const auto& t : r.timeline)
    j["points"].push_back({{"policy", t.policy},
                           {"t_hours", rounded(t.t_hours, 4)},
                           {"demand", rounded(t.demand, 4)},
                           {"replicas", t.replicas},
                           {"capacity", t.capacity},
                           {"cost_usd", rounded(t.cost_usd, 4)}});
  return j;
}

std::string plot_html(const SimReport& r) {
  // Three stacked inline-SVG charts (demand, replicas, cumulative cost), one
  // line per policy. No external scripts or styles.
  std::vector<std::string> names;
  for (const auto& t : r.timeline)
    if (std::find(names.begin(), names.end(), t.policy) == names.end()) names.push_back(t.policy);
  static const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};
  auto esc = [](const std::string& s) {
    std::string o;
    for (char c : s)
      o += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
    return o;
  };
  double tmax = 0;
  for (const auto& t : r.timeline) tmax = std::max(tmax, t.t_hours);
  if (tmax <= 0) tmax = 1;
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gpuplan simulate: "
    << esc(r.scenario) << "</title></head>\n<body style=\"font-family:sans-serif\">\n<h1>"
    << esc(r.scenario) << " (" << r.kind << ")</h1>\n";
  o << "<table border=\"1\" cellpadding=\"4\" "
       "style=\"border-collapse:collapse\"><tr><th>policy</th><th>cost $</th><th>vs optimal</th>"
    << (r.kind == "serving"   ? "<th>SLO %</th>"
        : r.kind == "reserve" ? "<th>reserved $</th>"
                              : "<th>on time %</th>")
    << "</tr>\n";
  for (const auto& p : r.policies)
    o << "<tr><td>" << esc(p.policy) << "</td><td>" << num(p.cost_usd, 2) << "</td><td>"
      << opt_text(p.cost_vs_optimal, 3) << "</td><td>"
      << (r.kind == "serving"   ? opt_text(p.slo_attainment, 2, 100)
          : r.kind == "reserve" ? opt_text(p.reserved_usd, 2)
                                : opt_text(p.deadline_met_fraction, 1, 100))
      << "</td></tr>\n";
  o << "</table>\n";
  struct Panel {
    const char* title;
    int which;
  };
  const bool serving = r.kind == "serving", reserve = r.kind == "reserve";
  const Panel panels[] = {{serving   ? "demand (requests/s)"
                           : reserve ? "VMs in use"
                                     : "progress (hours)",
                           0},
                          {serving   ? "replicas"
                           : reserve ? "reservations held"
                                     : "VM running (1) or not (0)",
                           1},
                          {"cumulative cost ($)", 2}};
  const int W = 900, H = 220, L = 60, B = 30;
  for (const Panel& p : panels) {
    double vmax = 0;
    for (const auto& t : r.timeline)
      vmax = std::max(vmax, p.which == 0 ? t.demand : p.which == 1 ? t.replicas : t.cost_usd);
    if (vmax <= 0) vmax = 1;
    o << "<h3>" << p.title << "</h3>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W
      << "\" height=\"" << H + B << "\" style=\"background:#fafafa\">\n";
    o << "<line x1=\"" << L << "\" y1=\"" << H << "\" x2=\"" << W << "\" y2=\"" << H
      << "\" stroke=\"#999\"/>\n";
    o << "<line x1=\"" << L << "\" y1=\"0\" x2=\"" << L << "\" y2=\"" << H
      << "\" stroke=\"#999\"/>\n";
    o << "<text x=\"5\" y=\"12\" font-size=\"11\">" << num(vmax, 2) << "</text><text x=\"5\" y=\""
      << H << "\" font-size=\"11\">0</text>\n";
    o << "<text x=\"" << W - 80 << "\" y=\"" << H + 20 << "\" font-size=\"11\">" << num(tmax, 2)
      << " h</text>\n";
    for (size_t n = 0; n < names.size(); ++n) {
      if (p.which == 0 && r.kind == "serving" && n > 0)
        break;  // demand is the same for every policy
      o << "<polyline fill=\"none\" stroke=\"" << kColors[n % 6]
        << "\" stroke-width=\"1.5\" points=\"";
      for (const auto& t : r.timeline) {
        if (t.policy != names[n]) continue;
        const double v = p.which == 0 ? t.demand : p.which == 1 ? t.replicas : t.cost_usd;
        o << num(L + (W - L) * t.t_hours / tmax, 1) << "," << num(H - H * v / vmax, 1) << " ";
      }
      o << "\"/>\n";
      o << "<text x=\"" << L + 10 + 150 * n << "\" y=\"" << H + 20 << "\" font-size=\"12\" fill=\""
        << kColors[n % 6] << "\">" << esc(names[n]) << "</text>\n";
    }
    o << "</svg>\n";
  }
  o << "</body></html>\n";
  return o.str();
}

}  // namespace gpuplan::simulate
