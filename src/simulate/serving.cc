// Serving simulation.
//
// Problem. Given a request trace, a per-replica serving model and a scaling
// policy, how much does the fleet cost and what share of requests meet the
// TTFT and TPOT targets? It must be exact enough to rank policies and fast
// enough to replay a week of traffic (~27 M requests) in seconds.
//
// Approach. A discrete-event simulation with integer-microsecond time. Events
// are request arrivals (streamed from the demand source, never queued ahead),
// request completions, replicas becoming ready after the start-up delay, and
// policy ticks; all but arrivals live in one 4-ary heap ordered by (time,
// scheduling order). A request takes 2 events (arrival, completion), so the
// heap holds one entry per running sequence.
//
// Units: the fleet is VMs (launched, billed, started up and scaled as one);
// a VM runs replicas_per_vm model replicas (GPUs per VM / tensor_parallel),
// which start, drain and stop with it. Requests are routed to model replicas.
//
// Each replica runs continuous batching (Orca, OSDI'22; vLLM). It admits a
// request while fewer than max_batch sequences (the KV-cache bound) run; the
// router sends each arrival to the ready replica with the fewest running
// sequences, and requests no replica can admit wait in one FIFO queue.
// Prefills run one at a time per replica (compute-bound): a request's first
// token comes at max(arrival, replica's prefill free time) + prefill time, so
// TTFT includes queueing. Decode is a fluid approximation at request level: a
// request decodes at the step time of the batch it joins, stretched by the
// share of the replica's time that went to prefills in the last interval
// (prefills stall decode steps): TPOT = step(B) / (1 - prefill share). This
// keeps 2 events per request instead of one per decode step (~200 per
// request), which is what makes a week replayable; it ignores that the batch
// changes during a request's life (documented in docs/simulate.md).
//
// Scale-out launches VMs that serve after startup_s and are billed from the
// launch; scale-in cancels starting VMs first, then drains the least-loaded
// ready replicas (no new admissions; billed until their last request ends).
// Billing is per second. Latencies go to fixed-size histograms (<= 1 %
// relative error), so memory is the fleet plus the running and queued
// requests, never the trace.
//
// Policies (their sources):
//   static-peak     — the peak interval's work at target utilization, all the
//                     time (capacity planning for the peak).
//   azure-autoscale — Azure Monitor autoscale: metric rules over a time window
//                     at a 1-minute time grain; scale out when any scale-out
//                     rule fires, scale in only when all scale-in rules agree
//                     and the projected metric after scale-in would not fire a
//                     scale-out rule (Azure's flapping check); a cooldown after
//                     every action (learn.microsoft.com, "Autoscale best
//                     practices", "Understand autoscale settings").
//   hpa             — Kubernetes HPA: desired = ceil(current × metric/target),
//                     no change while |metric/target - 1| <= 0.1, scale-down
//                     to the highest recommendation of the last 5 minutes
//                     (kubernetes.io, "Horizontal Pod Autoscaling": algorithm
//                     details, --horizontal-pod-autoscaler-tolerance=0.1,
//                     downscale stabilization window 300 s).
//   predictive      — forecasts the work rate start-up + 2 intervals ahead by
//                     Holt's linear exponential smoothing (Holt 1957; α 0.5,
//                     β 0.1 per interval), never below the last 5 minutes'
//                     peak, and provisions for it at target utilization ahead
//                     of the start-up delay (the idea of AWS predictive scaling
//                     and SkyServe, EuroSys'25); scale-down waits 5 minutes.
//   optimal         — not a policy: the lower bound of serving_bound.cc.
#include "simulate/serving.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>

#include "simulate/autoscale_export.h"
#include "simulate/event_queue.h"

namespace gpuplan::simulate {

int ReplicaCapacity::batch_at_slo(double tpot_s) const {
  if (step_per_seq_s <= 0) return std::max(1, max_batch);
  // Half the TPOT budget goes to the decode step; the other half is headroom
  // for prefills, which stall decode steps (TPOT = step / (1 - prefill share)).
  double b = std::floor((tpot_s * kDecodeShareOfTpot - step_base_s) / step_per_seq_s);
  // A step too slow for the half budget even at batch 1 would make every
  // request look like a whole replica's work: plan on the whole budget then.
  if (b < 1) b = std::floor((tpot_s - step_base_s) / step_per_seq_s);
  return static_cast<int>(std::clamp(b, 1.0, static_cast<double>(std::max(1, max_batch))));
}

double ReplicaCapacity::work_s(double input_tokens, double output_tokens, double tpot_s) const {
  const double b = batch_at_slo(tpot_s);
  return work_s_at(input_tokens, output_tokens, b, step_s(b));
}

int DemandProfile::peak_replicas(double target_utilization, int replicas_per_vm) const {
  double peak = 0;
  for (double w : work_s) peak = std::max(peak, w / interval_s);
  const double per_vm = std::max(1, replicas_per_vm);
  return std::max(1, static_cast<int>(std::ceil(peak / target_utilization / per_vm - 1e-9)));
}

Result<DemandProfile> profile_demand(DemandSource& source, const ServingConfig& config) {
  DemandProfile p;
  p.interval_s = config.timeline_s;
  const SimTime iv = seconds(config.timeline_s);
  Request r;
  double in_sum = 0, out_sum = 0;
  const double b = config.replica.batch_at_slo(config.tpot_slo_s);
  const double step_b = config.replica.step_s(b);
  const ReplicaCapacity& rc = config.replica;
  const double ttft = config.ttft_slo_s, step1 = rc.step_s(1);
  const bool decode_ok = step1 <= config.tpot_slo_s;
  p.bins.bin_s = std::min(1.0, ttft / 2);
  for (;;) {
    GPUPLAN_TRY(bool more, source.next(r));
    if (!more) break;
    const size_t i = static_cast<size_t>(r.arrival / iv);
    if (i >= p.work_s.size()) {
      p.work_s.resize(i + 1, 0);
      p.arrivals.resize(i + 1, 0);
    }
    p.work_s[i] += config.replica.work_s_at(r.input_tokens, r.output_tokens, b, step_b);
    p.arrivals[i] += 1;
    p.last_arrival_s = to_seconds(r.arrival);
    const double a = to_seconds(r.arrival), pf = rc.prefill_s(r.input_tokens);
    if (!decode_ok || pf > ttft + 1e-6) {
      ++p.hopeless;
    } else {
      p.bins.add(a, pf, a + ttft - pf,
                 a + pf + std::max(0.0, static_cast<double>(r.output_tokens) - 1) * step1);
    }
    in_sum += r.input_tokens;
    out_sum += r.output_tokens;
    ++p.requests;
  }
  if (p.requests) {
    p.mean_input = in_sum / static_cast<double>(p.requests);
    p.mean_output = out_sum / static_cast<double>(p.requests);
  }
  return p;
}

namespace {

enum EventKind : uint32_t { kComplete = 0, kReady = 1, kTick = 2, kTimeline = 3 };
enum class RState : uint8_t { kStarting, kReady, kDraining, kStopped };

// One model replica. VM v runs replicas [v * k, v * k + k), k = replicas_per_vm;
// `state` is its VM's, copied so that routing reads one array.
struct Replica {
  RState state = RState::kStopped;
  int active = 0;
  SimTime prefill_free = 0;
  SimTime prefill_busy = 0;  // in the current interval
  double prefill_share = 0;  // of the last interval
};

// The unit that is launched, billed, started and scaled.
struct Vm {
  RState state = RState::kStopped;
  int active = 0;  // running sequences over its replicas
  SimTime billed_from = 0;
  SimTime ready_at = 0;  // when a starting VM serves; tells its ready event apart
};

class Engine {
 public:
  Engine(const ServingConfig& c, DemandSource& src, ScalingPolicy& pol, std::string* log, bool tl)
      : c_(c), src_(src), pol_(pol), log_(log), want_timeline_(tl) {
    batch_slo_ = c.replica.batch_at_slo(c.tpot_slo_s);
    step_slo_ = c.replica.step_s(batch_slo_);
    per_vm_ = static_cast<uint32_t>(std::max(1, c.replicas_per_vm));
    iv_ = seconds(c.interval_s);
    tl_iv_ = seconds(c.timeline_s);
    q_.reserve(1024);
  }

  Result<ServingRun> run(const PolicyContext& ctx) {
    pol_.reset(ctx);
    for (int i = 0; i < std::max(c_.min_replicas, c_.initial_replicas); ++i)
      add_vm(0, /*ready_now=*/true);
    q_.push(iv_, kTick);
    q_.push(tl_iv_, kTimeline);
    Request next;
    GPUPLAN_TRY(bool have, src_.next(next));
    SimTime now = 0;
    for (;;) {
      const bool heap_first = !q_.empty() && (!have || q_.top().time <= next.arrival);
      if (!heap_first && !have) break;
      if (!heap_first) {
        now = next.arrival;
        ++out_.events;
        arrive(now, next);
        GPUPLAN_TRY(bool more, src_.next(next));
        have = more;
        continue;
      }
      // Ticks keep re-arming; stop when only ticks remain and demand is over.
      if (!have && in_flight_ == 0 && waiting_.empty() &&
          (q_.top().kind == kTick || q_.top().kind == kTimeline) &&
          q_.size() <= 2 + static_cast<size_t>(starting_)) {
        break;
      }
      const Event e = q_.pop();
      now = e.time;
      ++out_.events;
      switch (e.kind) {
        case kComplete:
          complete(now, e.a);
          break;
        case kReady:
          ready(now, e.a);
          break;
        case kTick:
          tick(now);
          q_.push(now + iv_, kTick);
          break;
        case kTimeline:
          timeline_point(now);
          q_.push(now + tl_iv_, kTimeline);
          break;
      }
    }
    // Close the books.
    out_.end_s = to_seconds(now);
    for (size_t v = 0; v < vms_.size(); ++v)
      if (vms_[v].state != RState::kStopped) stop(now, static_cast<uint32_t>(v));
    if (want_timeline_) timeline_point(now);
    out_.vm_hours = to_seconds(vm_us_) / 3600;
    out_.gpu_hours = out_.vm_hours * c_.gpus_per_vm;
    out_.cost_usd = out_.vm_hours * c_.usd_per_hour;
    return std::move(out_);
  }

 private:
  void emit(SimTime t, const char* fmt, int a, int b, double x) {
    if (!log_) return;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%.3fh %s ", to_seconds(t) / 3600,
                  std::string(pol_.name()).c_str());
    std::string line = buf;
    std::snprintf(buf, sizeof buf, fmt, a, b, x);
    *log_ += line + buf + "\n";
  }

  int billed() const { return ready_ + starting_ + draining_; }

  void set_state(uint32_t v, RState st) {
    vms_[v].state = st;
    for (uint32_t i = v * per_vm_; i < (v + 1) * per_vm_; ++i) {
      reps_[i].state = st;
      refresh(i);
    }
  }

  // load_[i]: the running sequences of replica i when it admits (ready, below
  // max_batch), else kFull — so routing scans one dense int array.
  static constexpr int kFull = std::numeric_limits<int>::max();
  void refresh(uint32_t i) {
    const Replica& r = reps_[i];
    load_[i] = r.state == RState::kReady && r.active < c_.replica.max_batch ? r.active : kFull;
  }

  void add_vm(SimTime now, bool ready_now) {
    uint32_t v = 0;
    for (; v < vms_.size(); ++v)
      if (vms_[v].state == RState::kStopped) break;
    if (v == vms_.size()) {
      vms_.emplace_back();
      reps_.resize(reps_.size() + per_vm_);
      load_.resize(reps_.size(), kFull);
      free_.resize(reps_.size(), 0);
    }
    vms_[v] = Vm{};
    vms_[v].billed_from = now;
    for (uint32_t i = v * per_vm_; i < (v + 1) * per_vm_; ++i) reps_[i] = Replica{}, free_[i] = 0;
    if (ready_now) {
      set_state(v, RState::kReady);
      ++ready_;
    } else {
      set_state(v, RState::kStarting);
      ++starting_;
      vms_[v].ready_at = now + seconds(c_.startup_s);
      q_.push(vms_[v].ready_at, kReady, v);
    }
    out_.peak_replicas = std::max(out_.peak_replicas, billed());
  }

  void stop(SimTime now, uint32_t v) {
    Vm& m = vms_[v];
    if (m.state == RState::kReady) --ready_;
    if (m.state == RState::kStarting) --starting_;
    if (m.state == RState::kDraining) --draining_;
    vm_us_ += now - m.billed_from;
    set_state(v, RState::kStopped);
  }

  void ready(SimTime now, uint32_t v) {
    // Cancelled while starting — and the slot perhaps reused by a VM launched
    // later, whose own ready event is still to come.
    if (vms_[v].state != RState::kStarting || vms_[v].ready_at != now) return;
    set_state(v, RState::kReady);
    --starting_;
    ++ready_;
    for (uint32_t i = v * per_vm_; i < (v + 1) * per_vm_; ++i)
      reps_[i].prefill_free = free_[i] = now;
    emit(now, "replica %d ready (%d ready)", static_cast<int>(v), ready_, 0);
    // The waiting queue goes to the new VM's replicas, least loaded first.
    while (!waiting_.empty()) {
      uint32_t best = v * per_vm_;
      for (uint32_t i = best + 1; i < (v + 1) * per_vm_; ++i)
        if (reps_[i].active < reps_[best].active) best = i;
      if (reps_[best].active >= c_.replica.max_batch) break;
      const Request req = waiting_.front();
      waiting_.pop_front();
      admit(now, best, req);
    }
  }

  // The admitting replica a request goes to; -1 when none admits.
  // kLeastSequences: the fewest running sequences (lowest index on ties).
  // kShortestQueue: the shortest prefill queue — the replica whose queued
  // prefills end first (an idle one at once), then the fewest sequences.
  int pick(SimTime now) const {
    int best = -1, best_load = kFull;
    const int n = static_cast<int>(load_.size());
    if (c_.routing == Routing::kLeastSequences) {
      for (int i = 0; i < n; ++i) {
        const int l = load_[static_cast<size_t>(i)];
        best = l < best_load ? i : best;
        best_load = l < best_load ? l : best_load;
      }
      return best;
    }
    // Dense arrays: free_ mirrors each replica's prefill_free.
    SimTime best_free = std::numeric_limits<SimTime>::max();
    for (int i = 0; i < n; ++i) {
      const int l = load_[static_cast<size_t>(i)];
      if (l == kFull) continue;
      const SimTime f = std::max(now, free_[static_cast<size_t>(i)]);
      if (f < best_free || (f == best_free && l < best_load))
        best = i, best_free = f, best_load = l;
    }
    return best;
  }

  void arrive(SimTime now, const Request& req) {
    ++arrivals_iv_;
    ++arrivals_tl_;
    work_iv_ += c_.replica.work_s_at(req.input_tokens, req.output_tokens, batch_slo_, step_slo_);
    observe_prefill(now, c_.replica.prefill_s(req.input_tokens));
    const int i = pick(now);
    if (i < 0 || !waiting_.empty()) {
      // Admission: when every replica is full and the queue holds max_queue
      // requests, the request is turned away (a 429): counted, never met.
      if (c_.max_queue > 0 && static_cast<int64_t>(waiting_.size()) >= c_.max_queue) {
        ++out_.requests;
        ++out_.rejected;
        ++rejected_iv_;
        return;
      }
      waiting_.push_back(req);
      if (i >= 0) drain_queue(now);
      return;
    }
    admit(now, static_cast<uint32_t>(i), req);
  }

  // Prefill seconds arriving per second: the policies see the interval's
  // peak second (the SLO's time scale), not only its mean.
  void observe_prefill(SimTime now, double prefill_s) {
    const int64_t sec = now / kMicrosPerSecond;
    if (sec != sec_) {
      peak_sec_iv_ = std::max(peak_sec_iv_, sec_sum_);
      sec_ = sec;
      sec_sum_ = 0;
    }
    sec_sum_ += prefill_s;
    prefill_iv_ += prefill_s;
    prefill_sq_iv_ += prefill_s * prefill_s;
  }

  void drain_queue(SimTime now) {
    while (!waiting_.empty()) {
      const int i = pick(now);
      if (i < 0) return;
      const Request req = waiting_.front();
      waiting_.pop_front();
      admit(now, static_cast<uint32_t>(i), req);
    }
  }

  void admit(SimTime now, uint32_t i, const Request& req) {
    Replica& r = reps_[i];
    ++r.active;
    refresh(i);
    ++vms_[i / per_vm_].active;
    ++in_flight_;
    const SimTime start = std::max(now, r.prefill_free);
    const SimTime pf = seconds(c_.replica.prefill_s(req.input_tokens));
    r.prefill_free = free_[i] = start + pf;
    r.prefill_busy += pf;
    const double ttft_s = to_seconds(r.prefill_free - req.arrival);
    const double share = std::min(r.prefill_share, 0.95);
    const double tpot_s = c_.replica.step_s(r.active) / (1 - share);
    const double decode_s = tpot_s * std::max(0.0, static_cast<double>(req.output_tokens) - 1);
    q_.push(r.prefill_free + seconds(decode_s), kComplete, i);
    const double ttft_ms = ttft_s * 1e3, tpot_ms = tpot_s * 1e3;
    out_.ttft_ms.add(ttft_ms);
    ++admitted_tl_;
    ttft_sum_tl_ += ttft_ms;
    ttft_max_tl_ = std::max(ttft_max_tl_, ttft_ms);
    out_.tpot_ms.add(tpot_ms);
    ++out_.requests;
    if (ttft_s <= c_.ttft_slo_s && tpot_s <= c_.tpot_slo_s)
      ++out_.slo_met;
    else
      ++missed_iv_;
  }

  void complete(SimTime now, uint32_t i) {
    Replica& r = reps_[i];
    const uint32_t v = i / per_vm_;
    --r.active;
    refresh(i);
    --vms_[v].active;
    --in_flight_;
    if (r.state == RState::kDraining) {
      if (vms_[v].active == 0) stop(now, v);
      return;
    }
    if (!waiting_.empty() && r.state == RState::kReady) {
      const Request req = waiting_.front();
      waiting_.pop_front();
      admit(now, i, req);
    }
  }

  void tick(SimTime now) {
    const double iv_s = to_seconds(iv_);
    for (Replica& r : reps_) {
      if (r.state == RState::kStopped) continue;
      r.prefill_share = std::min(1.0, to_seconds(r.prefill_busy) / iv_s);
      r.prefill_busy = 0;
    }
    PolicyInput in;
    in.now_s = to_seconds(now);
    in.ready = ready_;
    in.starting = starting_;
    in.arrival_rps = static_cast<double>(arrivals_iv_) / iv_s;
    const double work_rate = work_iv_ / iv_s;  // model replicas' worth of work
    const double per_vm = static_cast<double>(per_vm_);
    in.utilization = ready_ > 0 ? work_rate / (ready_ * per_vm) : (work_rate > 0 ? 10.0 : 0.0);
    // Per VM: the policies count VMs.
    in.capacity_rps_per_replica =
        work_iv_ > 0 ? static_cast<double>(arrivals_iv_) / work_iv_ * per_vm : 0;
    in.queued = static_cast<int>(waiting_.size());
    in.prefill_peak_s = std::max(peak_sec_iv_, sec_sum_);
    in.prefill_mean_s = prefill_iv_ / iv_s;
    in.prefill_sq_s = prefill_sq_iv_ / iv_s;
    in.sequences = static_cast<int>(in_flight_);
    in.missed = missed_iv_ + rejected_iv_;
    in.arrivals = arrivals_iv_;
    peak_sec_iv_ = 0;
    prefill_iv_ = prefill_sq_iv_ = 0;
    missed_iv_ = rejected_iv_ = 0;
    arrivals_iv_ = 0;
    work_iv_ = 0;
    const int current = ready_ + starting_;
    int target = pol_.decide(in).replicas;
    target = std::clamp(target, c_.min_replicas, std::max(c_.min_replicas, c_.max_replicas));
    if (target == current) return;
    ++out_.scale_events;
    emit(now, "scale %d -> %d replicas (utilization %.2f)", current, target, in.utilization);
    if (target > current) {
      for (int k = current; k < target; ++k) add_vm(now, false);
      return;
    }
    int remove = current - target;
    // Cancel starting VMs first (newest first), then drain the least loaded.
    for (size_t v = vms_.size(); v-- > 0 && remove > 0;)
      if (vms_[v].state == RState::kStarting) stop(now, static_cast<uint32_t>(v)), --remove;
    while (remove > 0) {
      int best = -1;
      for (size_t v = 0; v < vms_.size(); ++v)
        if (vms_[v].state == RState::kReady &&
            (best < 0 || vms_[v].active < vms_[static_cast<size_t>(best)].active))
          best = static_cast<int>(v);
      if (best < 0) break;
      const uint32_t v = static_cast<uint32_t>(best);
      if (vms_[v].active == 0) {
        stop(now, v);
      } else {
        set_state(v, RState::kDraining);
        --ready_;
        ++draining_;
      }
      --remove;
    }
  }

  void timeline_point(SimTime now) {
    if (!want_timeline_) {
      arrivals_tl_ = 0;
      return;
    }
    SimTime billed_us = vm_us_;
    for (const Vm& m : vms_)
      if (m.state != RState::kStopped) billed_us += now - m.billed_from;
    TimelinePoint p;
    p.t_hours = to_seconds(now) / 3600;
    p.demand_rps = static_cast<double>(arrivals_tl_) / c_.timeline_s;
    p.replicas = billed();
    p.cost_usd = to_seconds(billed_us) / 3600 * c_.usd_per_hour;
    if (admitted_tl_ > 0) {
      p.ttft_mean_ms = ttft_sum_tl_ / static_cast<double>(admitted_tl_);
      p.ttft_max_ms = ttft_max_tl_;
    }
    out_.timeline.push_back(p);
    arrivals_tl_ = admitted_tl_ = 0;
    ttft_sum_tl_ = ttft_max_tl_ = 0;
  }

  const ServingConfig& c_;
  DemandSource& src_;
  ScalingPolicy& pol_;
  std::string* log_;
  bool want_timeline_;
  int batch_slo_ = 1;
  double step_slo_ = 0;  // step_s(batch_slo_)
  SimTime iv_ = 0, tl_iv_ = 0, vm_us_ = 0;
  uint32_t per_vm_ = 1;
  EventQueue q_;
  std::vector<Vm> vms_;
  std::vector<Replica> reps_;
  std::vector<int> load_;      // per replica, see refresh()
  std::vector<SimTime> free_;  // per replica: prefill_free, for the shortest-queue router
  std::deque<Request> waiting_;
  int ready_ = 0, starting_ = 0, draining_ = 0;
  int64_t in_flight_ = 0, arrivals_iv_ = 0, arrivals_tl_ = 0;
  int64_t admitted_tl_ = 0;                   // this timeline interval: requests admitted,
  double ttft_sum_tl_ = 0, ttft_max_tl_ = 0;  // their TTFT's sum and maximum (ms)
  int64_t missed_iv_ = 0, rejected_iv_ = 0;   // this interval: admitted and missed, turned away
  double work_iv_ = 0;
  // Prefill seconds arriving: this interval, the current second, the
  // largest whole second of this interval.
  double prefill_iv_ = 0, prefill_sq_iv_ = 0, sec_sum_ = 0, peak_sec_iv_ = 0;
  int64_t sec_ = -1;
  ServingRun out_;
};

// ---- policies ---------------------------------------------------------------

class StaticPeakPolicy final : public ScalingPolicy {
 public:
  std::string_view name() const override { return "static-peak"; }
  void reset(const PolicyContext& ctx) override { n_ = ctx.peak_replicas; }
  PolicyDecision decide(const PolicyInput&) override { return {n_, Capacity::kOnDemand}; }

 private:
  int n_ = 1;
};

class AzureAutoscalePolicy final : public ScalingPolicy {
 public:
  explicit AzureAutoscalePolicy(AutoscaleSettings s, std::unique_ptr<ScalingPolicy> deficit = {},
                                std::string name = "azure-autoscale")
      : s_(std::move(s)), deficit_src_(std::move(deficit)), name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  void reset(const PolicyContext& ctx) override {
    if (deficit_src_) deficit_src_->reset(ctx);
    grain_util_.clear();
    grain_queue_.clear();
    grain_deficit_.clear();
    acc_deficit_ = -1e300;
    acc_util_ = acc_queue_ = 0;
    acc_n_ = 0;
    last_action_s_ = -1e18;
    target_ = -1;
    cooldown_s_ = 0;
  }
  PolicyDecision decide(const PolicyInput& in) override {
    const int current = in.ready + in.starting;
    if (target_ < 0) target_ = current;
    acc_util_ += in.utilization * 100;
    acc_queue_ += in.queued;
    ++acc_n_;
    // The custom metric SloGuardDeficitVms: what the router's slo-guard wants
    // minus the count, at its Maximum over the grain (autoscale_export.h).
    if (deficit_src_)
      acc_deficit_ =
          std::max(acc_deficit_, static_cast<double>(deficit_src_->decide(in).replicas - current));
    // Metrics are aggregated per time grain; rules run once per grain.
    const double grain_end = (std::floor(in.now_s / s_.time_grain_s + 1e-9)) * s_.time_grain_s;
    if (in.now_s + 1e-9 < grain_end || grain_end <= last_grain_)
      return {target_, Capacity::kOnDemand};
    last_grain_ = grain_end;
    grain_util_.push_back(acc_util_ / acc_n_);
    grain_queue_.push_back(acc_queue_ / acc_n_);
    grain_deficit_.push_back(acc_deficit_);
    acc_util_ = acc_queue_ = 0;
    acc_deficit_ = -1e300;
    acc_n_ = 0;
    const size_t keep = static_cast<size_t>(max_window_grains()) + 1;
    while (grain_util_.size() > keep)
      grain_util_.pop_front(), grain_queue_.pop_front(), grain_deficit_.pop_front();
    if (in.now_s - last_action_s_ < cooldown_s_) return {target_, Capacity::kOnDemand};
    target_ = current;
    // Scale out when any scale-out rule fires.
    for (const AutoscaleRule& r : s_.rules) {
      if (!r.scale_out) continue;
      double v;
      if (fires(r, 1.0, &v)) return act(in, current + r.change, r.cooldown_s);
    }
    // Scale in only when every scale-in rule fires, and the projected metric
    // after scale-in would not trigger a scale-out rule (flapping check).
    int change = 0;
    double cooldown = 0;
    bool any = false;
    for (const AutoscaleRule& r : s_.rules) {
      if (r.scale_out) continue;
      any = true;
      double v;
      if (!fires(r, 1.0, &v)) return {target_, Capacity::kOnDemand};
      change = std::max(change, r.change);
      cooldown = std::max(cooldown, r.cooldown_s);
    }
    if (!any || current - change < 1) return {target_, Capacity::kOnDemand};
    const double scale = static_cast<double>(current) / (current - change);
    for (const AutoscaleRule& r : s_.rules) {
      double v;
      if (r.scale_out && r.metric == "utilization" && fires(r, scale, &v))
        return {target_, Capacity::kOnDemand};
    }
    return act(in, current - change, cooldown);
  }

 private:
  int max_window_grains() const {
    double w = 0;
    for (const auto& r : s_.rules) w = std::max(w, r.window_s);
    return static_cast<int>(std::ceil(w / s_.time_grain_s));
  }
  bool fires(const AutoscaleRule& r, double scale, double* value) const {
    const auto& series = r.metric == "queue"     ? grain_queue_
                         : r.metric == "deficit" ? grain_deficit_
                                                 : grain_util_;
    const size_t n = static_cast<size_t>(std::ceil(r.window_s / s_.time_grain_s - 1e-9));
    if (series.size() < n || n == 0) return false;
    double agg = r.time_aggregation == "Maximum"   ? -1e300
                 : r.time_aggregation == "Minimum" ? 1e300
                                                   : 0;
    for (size_t i = series.size() - n; i < series.size(); ++i) {
      const double v = series[i];
      if (r.time_aggregation == "Maximum")
        agg = std::max(agg, v);
      else if (r.time_aggregation == "Minimum")
        agg = std::min(agg, v);
      else
        agg += v;
    }
    if (r.time_aggregation != "Maximum" && r.time_aggregation != "Minimum")
      agg /= static_cast<double>(n);
    agg *= scale;
    *value = agg;
    return r.op == "GreaterThan"          ? agg > r.threshold
           : r.op == "GreaterThanOrEqual" ? agg >= r.threshold
           : r.op == "LessThan"           ? agg < r.threshold
                                          : agg <= r.threshold;
  }
  PolicyDecision act(const PolicyInput& in, int target, double cooldown) {
    last_action_s_ = in.now_s;
    cooldown_s_ = cooldown;
    target_ = std::max(1, target);
    return {target_, Capacity::kOnDemand};
  }
  AutoscaleSettings s_;
  std::unique_ptr<ScalingPolicy> deficit_src_;  // slo-guard, for the "deficit" metric
  std::string name_;
  std::deque<double> grain_util_, grain_queue_, grain_deficit_;
  double acc_util_ = 0, acc_queue_ = 0, acc_deficit_ = -1e300;
  int acc_n_ = 0;
  double last_grain_ = -1, last_action_s_ = -1e18, cooldown_s_ = 0;
  int target_ = -1;
};

class HpaPolicy final : public ScalingPolicy {
 public:
  explicit HpaPolicy(HpaSettings s) : s_(s) {}
  std::string_view name() const override { return "hpa"; }
  void reset(const PolicyContext&) override { recs_.clear(); }
  PolicyDecision decide(const PolicyInput& in) override {
    const int current = std::max(1, in.ready + in.starting);
    // Not-ready replicas count as 0 % used (the HPA's conservative rule for
    // pods without metrics when scaling up).
    const double metric =
        in.ready > 0 ? in.utilization * in.ready / current : (in.utilization > 0 ? 10.0 : 0.0);
    const double ratio = metric / s_.target_utilization;
    int desired = current;
    if (std::abs(ratio - 1) > s_.tolerance)
      desired = static_cast<int>(std::ceil(current * ratio - 1e-9));
    desired = std::max(1, desired);
    recs_.push_back({in.now_s, desired});
    while (!recs_.empty() && recs_.front().first < in.now_s - s_.scale_down_stabilization_s)
      recs_.pop_front();
    int stabilized = desired;
    for (const auto& [t, d] : recs_) stabilized = std::max(stabilized, d);
    // Scale up at once; scale down only to the highest recent recommendation.
    return {desired > current ? desired : std::min(current, stabilized), Capacity::kOnDemand};
  }

 private:
  HpaSettings s_;
  std::deque<std::pair<double, int>> recs_;
};

class PredictivePolicy final : public ScalingPolicy {
 public:
  explicit PredictivePolicy(double target) : target_util_(target) {}
  std::string_view name() const override { return "predictive"; }
  void reset(const PolicyContext& ctx) override {
    startup_s_ = ctx.startup_s;
    level_ = trend_ = 0;
    n_ = 0;
    recent_.clear();
    recs_.clear();
  }
  PolicyDecision decide(const PolicyInput& in) override {
    // Work rate in replicas at full utilization.
    const double w =
        in.capacity_rps_per_replica > 0 ? in.arrival_rps / in.capacity_rps_per_replica : 0;
    if (interval_s_ <= 0 && n_ > 0) interval_s_ = in.now_s - last_t_;
    last_t_ = in.now_s;
    if (n_ == 0) {
      level_ = w;
    } else {
      const double prev = level_;
      level_ = kAlpha * w + (1 - kAlpha) * (level_ + trend_);
      trend_ = kBeta * (level_ - prev) + (1 - kBeta) * trend_;
    }
    ++n_;
    recent_.push_back({in.now_s, w});
    while (recent_.front().first < in.now_s - 300) recent_.pop_front();
    double peak = 0;
    for (const auto& [t, v] : recent_) peak = std::max(peak, v);
    const double steps = interval_s_ > 0 ? (startup_s_ + 2 * interval_s_) / interval_s_ : 0;
    const double forecast = std::max(level_ + trend_ * steps, peak);
    int desired = std::max(1, static_cast<int>(std::ceil(forecast / target_util_ - 1e-9)));
    recs_.push_back({in.now_s, desired});
    while (recs_.front().first < in.now_s - 300) recs_.pop_front();
    int hold = desired;
    for (const auto& [t, d] : recs_) hold = std::max(hold, d);
    const int current = in.ready + in.starting;
    return {desired >= current ? desired : std::min(current, hold), Capacity::kOnDemand};
  }

 private:
  static constexpr double kAlpha = 0.5, kBeta = 0.1;
  double target_util_;
  double startup_s_ = 0, level_ = 0, trend_ = 0, interval_s_ = 0, last_t_ = 0;
  int64_t n_ = 0;
  std::deque<std::pair<double, double>> recent_;
  std::deque<std::pair<double, int>> recs_;
};

}  // namespace

Result<ServingRun> run_serving(const ServingConfig& config, DemandSource& source,
                               ScalingPolicy& policy, const PolicyContext& context,
                               std::string* log, bool timeline) {
  Engine engine(config, source, policy, log, timeline);
  return engine.run(context);
}

AutoscaleSettings default_autoscale_settings() {
  AutoscaleSettings s;
  s.time_grain_s = 60;
  AutoscaleRule out_util{"utilization", "GreaterThan", 70, 300, "Average", "Average", true, 1, 300};
  AutoscaleRule out_queue{"queue", "GreaterThan", 10, 300, "Average", "Average", true, 1, 300};
  AutoscaleRule in_util{"utilization", "LessThan", 35, 600, "Average", "Average", false, 1, 600};
  AutoscaleRule in_queue{"queue", "LessThan", 1, 600, "Average", "Average", false, 1, 600};
  s.rules = {out_util, out_queue, in_util, in_queue};
  return s;
}

std::unique_ptr<ScalingPolicy> make_azure_autoscale_policy(const AutoscaleSettings& s) {
  return std::make_unique<AzureAutoscalePolicy>(s);
}
std::unique_ptr<ScalingPolicy> make_slo_guard_autoscale_policy(const AutoscaleSettings& rules,
                                                               const SloGuardSettings& guard) {
  return std::make_unique<AzureAutoscalePolicy>(rules, make_slo_guard_policy(guard),
                                                "slo-guard-autoscale");
}
std::unique_ptr<ScalingPolicy> make_hpa_policy(const HpaSettings& s) {
  return std::make_unique<HpaPolicy>(s);
}

std::unique_ptr<ScalingPolicy> make_serving_policy(const std::string& name,
                                                   const ServingConfig& config) {
  if (name == "static-peak") return std::make_unique<StaticPeakPolicy>();
  if (name == "azure-autoscale") return make_azure_autoscale_policy(default_autoscale_settings());
  if (name == "hpa") return make_hpa_policy(HpaSettings{});
  if (name == "predictive") return std::make_unique<PredictivePolicy>(config.target_utilization);
  if (name == "slo-guard") return make_slo_guard_policy(SloGuardSettings{});
  if (name == "slo-guard-autoscale")
    return make_slo_guard_autoscale_policy(
        slo_guard_autoscale_settings(SloGuardSettings{}, config.startup_s, config.interval_s,
                                     AutoscaleTarget{})
            .rules,
        SloGuardSettings{});
  return nullptr;
}

const std::vector<std::string>& serving_policy_names() {
  static const std::vector<std::string> kNames = {
      "static-peak", "azure-autoscale", "hpa", "predictive", "slo-guard", "slo-guard-autoscale"};
  return kNames;
}

}  // namespace gpuplan::simulate
