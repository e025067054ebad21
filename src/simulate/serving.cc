// Serving simulation: the engine.
//
// Problem. Given a request trace, a per-replica serving model and a scaling
// policy, how much does the fleet cost and what share of requests meet the
// TTFT and TPOT targets? It must be exact enough to rank policies and fast
// enough to replay a week of traffic (~27 M requests) in seconds.
//
// Approach. A discrete-event simulation with integer-microsecond time. Events
// are request arrivals (streamed from the demand source, never queued ahead),
// request completions, replicas becoming ready after the start-up delay, and
// policy ticks; all but arrivals live in one event queue (a radix heap,
// event_queue.h) ordered by (time, scheduling order). A request takes 2
// events (arrival, completion), so the queue holds one entry per running
// sequence.
//
// Units: the fleet is VMs (launched, billed, started up and scaled as one);
// a VM runs replicas_per_vm model replicas (GPUs per VM / tensor_parallel),
// which start, drain and stop with it. Requests are routed to model replicas.
//
// Each replica runs continuous batching (Orca, OSDI'22; vLLM). It admits a
// request while fewer than max_batch sequences (the KV-cache bound) run; the
// router sends each arrival to the ready replica with the fewest running
// sequences, and requests no replica can admit wait in one FIFO queue
// (Admission::kQueue; under kShed the router turns away, at arrival, a
// request that no ready replica would serve within both targets, using the
// same arithmetic admit() uses — see Admission in serving.h).
// Prefills run one at a time per replica (compute-bound): a request's first
// token comes at max(arrival, replica's prefill free time) + prefill time, so
// TTFT includes queueing. Decode is a fluid approximation at request level: a
// request decodes at the step time of the batch it joins, stretched by the
// share of the replica's time that goes to prefills while it decodes
// (prefills stall decode steps): TPOT = step(B) / (1 - prefill share). That
// share is measured at the request's own time scale — over the window as
// long as its decode, (output - 1) x TPOT, that ends where its prefill
// starts (the prefills queued ahead of it included; its own left out) — a
// sample of the share its decode sees, from the same replica and traffic.
// (It was the share of the last policy interval, so the physics moved with
// a policy setting: one fixed 2-VM fleet on the same traffic met 97.2 % of
// requests at a 5-s interval, 98.9 % at 15 s and 100 % at 120 s.) This
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
// This file owns the engine (class Engine and run_serving). The scaling
// policies it consults every interval are in serving_policies.cc; the
// demand profile and the replica's capacity at the SLO, which the policies
// and the lower bound share, in serving_profile.cc; the lower bound itself
// (the report's `optimal` row) in serving_bound.cc.
#include "simulate/serving.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <deque>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "core/strings.h"
#include "simulate/event_queue.h"
#include "simulate/rng.h"

namespace gpuplan::simulate {

namespace {

// A completion says whether its request met the SLO (kCompleteMet), so that
// an eviction can take back what it lost.
enum EventKind : uint32_t {
  kComplete = 0,
  kReady = 1,
  kTick = 2,
  kTimeline = 3,
  kNotice = 4,  // a spot VM's Preempt notice
  kEvict = 5,   // its eviction
  kCompleteMet = 6,
};
enum class RState : uint8_t { kStarting, kReady, kDraining, kStopped };

// One model replica. VM v runs replicas [v * k, v * k + k), k = replicas_per_vm;
// `state` is its VM's, copied so that routing reads one array.
// A prefill's run on its replica: [start, end), after `before` seconds of
// the replica's prefill work; it does `phi` seconds of prefill work a second
// (the rest of each chunked step decodes). Prefills are serial: in order.
struct PrefillSpan {
  SimTime start, end;
  double before, phi;
};

struct Replica {
  RState state = RState::kStopped;
  int active = 0;
  SimTime prefill_free = 0;
  SimTime serving_from = 0;  // when it became ready
  double prefill_total = 0;  // seconds of prefill work
  // Spans [first_span, end) ended within kShareHorizon (older ones are
  // dropped in bulk, so a push is amortized O(1)).
  std::vector<PrefillSpan> spans;
  size_t first_span = 0;
};

// The longest window a prefill share is measured over (serving.h). It bounds
// the spans a replica keeps (~600 x its requests a second).
constexpr SimTime kShareHorizon = seconds(kPrefillShareHorizonS);

// The unit that is launched, billed, started and scaled.
struct Vm {
  RState state = RState::kStopped;
  int active = 0;  // running sequences over its replicas
  SimTime billed_from = 0;
  SimTime ready_at = 0;  // when a starting VM serves; tells its ready event apart
  bool spot = false;
  bool noticed = false;                   // its Preempt notice came
  SimTime notice_at = -1, evict_at = -1;  // tell its spot events apart
};

class Engine {
 public:
  Engine(const ServingConfig& c, DemandSource& src, ScalingPolicy& pol, std::string* log, bool tl)
      : c_(c), src_(src), pol_(pol), log_(log), want_timeline_(tl) {
    batch_slo_ = c.replica.batch_at_slo(c.tpot_slo_s);
    step_slo_ = c.replica.step_s(batch_slo_);
    step1_s_ = c.replica.step_s(1);
    chunk_s_ = c.replica.chunk_s();
    per_vm_ = static_cast<uint32_t>(std::max(1, c.replicas_per_vm));
    iv_ = seconds(c.interval_s);
    tl_iv_ = seconds(c.timeline_s);
    // Beyond ~30,000 years the clock would wrap: no limit there.
    if (c.max_simulated_s > 0 && c.max_simulated_s < 1e12) limit_ = seconds(c.max_simulated_s);
    q_.reserve(1024);
  }

  Result<ServingRun> run(const PolicyContext& ctx) {
    pol_.reset(ctx);
    rng_ = Rng(c_.spot.seed);
    for (int i = 0; i < std::max(c_.min_replicas, c_.initial_replicas); ++i)
      add_vm(0, /*ready_now=*/true);
    q_.push(iv_, kTick);
    q_.push(tl_iv_, kTimeline);
    Request next;
    GPUPLAN_TRY(bool have, src_.next(next));
    SimTime now = 0;
    DeadlinePoll poll(c_.deadline);
    for (;;) {
      if (poll.expired()) return out_of_time(now);
      const bool heap_first = !q_.empty() && (!have || q_.top().time <= next.arrival);
      if (!heap_first && !have) break;
      if (!heap_first) {
        now = last_arrival_ = next.arrival;
        ++out_.events;
        arrive(now, next);
        GPUPLAN_TRY(bool more, src_.next(next));
        have = more;
        continue;
      }
      // Demand is over once the last request has left: the run ends there
      // and so does billing; VMs still starting are cancelled with the rest.
      // (Waiting for the start-ups billed them past the last request — a
      // cancelled start-up's stale ready event held a 1-hour trace open for
      // 11 h at a 10-h start-up — and with spot evictions during start-up
      // relaunched for ever: 28 M evictions, $2 M, for 89 requests.)
      if (!have && in_flight_ == 0 && waiting_.empty()) break;
      const Event e = q_.pop();
      now = e.time;
      ++out_.events;
      if (limit_ > 0 && now > limit_) return past_limit(have);
      if (!have && limit_ == 0 && now - last_arrival_ > drain_allowance()) return past_drain();
      switch (e.kind) {
        case kComplete:
        case kCompleteMet:
          complete(now, e.a);
          break;
        case kNotice:
          --spot_events_;
          notice(now, e.a);
          break;
        case kEvict:
          --spot_events_;
          evict(now, e.a);
          break;
        case kReady:
          ready(now, e.a);
          break;
        case kTick:
          tick(now);
          q_.push(now + iv_, kTick);
          break;
        case kTimeline:
          if (want_timeline_ && c_.max_timeline_points > 0 &&
              static_cast<double>(out_.timeline.size()) >= c_.max_timeline_points)
            return too_many_points(now);
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
    out_.spot_vm_hours = to_seconds(spot_us_) / 3600;
    out_.gpu_hours = out_.vm_hours * c_.gpus_per_vm;
    out_.cost_usd = cost_of(vm_us_, spot_us_);
    out_.spot_usd = to_seconds(spot_us_) / 3600 * c_.spot.usd_per_hour;
    return std::move(out_);
  }

 private:
  // The error of a replay that ran past ServingConfig::deadline.
  tl::unexpected<Error> out_of_time(SimTime now) const {
    return tl::unexpected(c_.deadline.error(
        "replaying the demand under " + std::string(pol_.name()) + " (" +
        strings::fixed(to_seconds(now) / 3600, 2) + " h of simulated time done)"));
  }

  // The error of a replay whose timeline outgrew max_timeline_points.
  tl::unexpected<Error> too_many_points(SimTime now) const {
    return invalid_argument(
        "the timeline under " + std::string(pol_.name()) + " reached " +
            strings::fixed(c_.max_timeline_points, 0) + " points at " +
            strings::fixed(to_seconds(now) / 3600, 2) +
            " h of simulated time, the most this run may keep; raise timeline_seconds (now " +
            strings::general(c_.timeline_s) + " s) or write no --timeline or --plot",
        Where{"", 0, 0, "fleet.timeline_seconds"});
  }

  // The error of a replay that ran past max_simulated_s.
  tl::unexpected<Error> past_limit(bool demand_left) const {
    const double limit_h = to_seconds(limit_) / 3600;
    std::string why;
    if (!demand_left) {
      why = ", " + strings::fixed(limit_h - to_seconds(last_arrival_) / 3600, 2) +
            " h after the last arrival, with " + std::to_string(waiting_.size()) +
            " requests still queued and " + std::to_string(in_flight_) + " running";
      why += c_.queue_timeout_s > 0 ? "" : " (queue_timeout_seconds 0: clients wait for ever)";
    }
    return invalid_argument(
        "the replay under " + std::string(pol_.name()) + " was still serving past " +
            strings::fixed(limit_h, 2) + " h of simulated time, the most this run may simulate" +
            why,
        Where{"", 0, 0,
              !demand_left && c_.queue_timeout_s <= 0 ? "fleet.queue_timeout_seconds" : "demand"});
  }

  // How long a backlog may drain after the last arrival when no
  // max_simulated_s is set (the CLI): kDrainSpans times the demand's span,
  // at least kMinDrainS. A choice, not a measurement: a fleet that needs
  // longer has not served the demand, and with clients that wait for ever
  // and VMs that never outlive their start-up (all spot, evicted ten times
  // an hour, a day's start-up) the replay never ended at all.
  static constexpr int64_t kDrainSpans = 10;
  static constexpr double kMinDrainS = 7 * 86400.0;
  [[nodiscard]] SimTime drain_allowance() const {
    // Demand stretched past ~29,000 years would wrap the product: no limit.
    if (last_arrival_ > std::numeric_limits<SimTime>::max() / (2 * kDrainSpans))
      return std::numeric_limits<SimTime>::max() / 2;
    return std::max(seconds(kMinDrainS), kDrainSpans * last_arrival_);
  }
  // The error of a backlog that did not drain within drain_allowance().
  tl::unexpected<Error> past_drain() const {
    return invalid_argument(
        "the replay under " + std::string(pol_.name()) + " was still serving " +
            strings::fixed(to_seconds(drain_allowance()) / 3600, 2) +
            " h after the last arrival (" + std::to_string(kDrainSpans) +
            " times the demand's span, at least a week), with " + std::to_string(waiting_.size()) +
            " requests still queued and " + std::to_string(in_flight_) +
            " running: the fleet cannot drain its backlog" +
            (c_.queue_timeout_s > 0 ? "" : " (queue_timeout_seconds 0: clients wait for ever)"),
        Where{"", 0, 0, c_.queue_timeout_s <= 0 ? "fleet.queue_timeout_seconds" : "fleet"});
  }

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
  double cost_of(SimTime all_us, SimTime spot_us) const {
    return to_seconds(all_us - spot_us) / 3600 * c_.usd_per_hour +
           to_seconds(spot_us) / 3600 * c_.spot.usd_per_hour;
  }
  // Pay-as-you-go VMs among those ready or starting (the scale set's count).
  int regular_live() const { return regular_live_; }

  // Every VM's state changes here, and so do the fleet's counts (ready,
  // starting, draining, pay-as-you-go up, billed time, stopped VMs):
  // kept, not counted by walking the VMs, which at a 100,000-VM fleet made
  // each scale step O(VMs) and a scale-out of n VMs O(n x VMs).
  void set_state(uint32_t v, RState st) {
    Vm& m = vms_[v];
    const auto regular = [&m] {
      return !m.spot && (m.state == RState::kReady || m.state == RState::kStarting);
    };
    const auto count = [this](RState s) -> int* {
      return s == RState::kReady      ? &ready_
             : s == RState::kStarting ? &starting_
             : s == RState::kDraining ? &draining_
                                      : nullptr;
    };
    const bool was_live = m.state != RState::kStopped;
    regular_live_ -= regular();
    if (int* n = count(m.state)) --*n;
    m.state = st;
    if (int* n = count(m.state)) ++*n;
    regular_live_ += regular();
    const bool live = st != RState::kStopped;
    if (was_live != live) {
      const int sign = live ? 1 : -1;
      live_ += sign;
      live_from_ += sign * m.billed_from;
      if (m.spot) {
        spot_live_ += sign;
        spot_live_from_ += sign * m.billed_from;
      }
      if (!live) stopped_.push(v);
    }
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
    // The lowest-numbered stopped VM is reused, else a new one.
    auto v = static_cast<uint32_t>(vms_.size());
    if (!stopped_.empty()) {
      v = stopped_.top();
      stopped_.pop();
    }
    if (v == vms_.size()) {
      vms_.emplace_back();
      reps_.resize(reps_.size() + per_vm_);
      load_.resize(reps_.size(), kFull);
      free_.resize(reps_.size(), 0);
    }
    // The mix's priority for the VM that makes the fleet ready_ + starting_ + 1.
    const bool spot =
        c_.spot.share > 0 && regular_live() >= c_.spot.regular_of(ready_ + starting_ + 1);
    vms_[v] = Vm{};
    vms_[v].billed_from = now;
    vms_[v].spot = spot;
    if (spot && c_.spot.evictions_per_hour > 0) {
      const double life_s = rng_.exponential(3600 / c_.spot.evictions_per_hour);
      vms_[v].notice_at = now + seconds(std::max(0.0, life_s - c_.spot.notice_s));
      vms_[v].evict_at = now + seconds(life_s);
      q_.push(vms_[v].notice_at, kNotice, v);
      ++spot_events_;
    }
    for (uint32_t i = v * per_vm_; i < (v + 1) * per_vm_; ++i) reps_[i] = Replica{}, free_[i] = 0;
    if (ready_now) {
      for (uint32_t i = v * per_vm_; i < (v + 1) * per_vm_; ++i) reps_[i].serving_from = now;
      set_state(v, RState::kReady);
    } else {
      set_state(v, RState::kStarting);
      vms_[v].ready_at = now + seconds(c_.startup_s);
      q_.push(vms_[v].ready_at, kReady, v);
    }
    out_.peak_replicas = std::max(out_.peak_replicas, billed());
  }

  void stop(SimTime now, uint32_t v) {
    Vm& m = vms_[v];
    vm_us_ += now - m.billed_from;
    if (m.spot) spot_us_ += now - m.billed_from;
    set_state(v, RState::kStopped);
  }

  // The Preempt notice: the router stops sending the VM requests (a
  // starting VM just waits for its end); the eviction follows.
  void notice(SimTime now, uint32_t v) {
    Vm& m = vms_[v];
    if (m.state == RState::kStopped || m.notice_at != now) return;
    ++out_.evictions;  // a drained VM stops before; it is evicted all the same
    m.noticed = true;  // a starting one will not serve
    if (m.state == RState::kReady) set_state(v, RState::kDraining);
    q_.push(m.evict_at, kEvict, v);
    ++spot_events_;
    emit(now, "spot replica %d preempt notice (%d ready)", static_cast<int>(v), ready_, 0);
  }

  // The eviction: the VM stops, and its running requests are lost — their
  // completions leave the queue, and those that met the SLO at admission
  // leave slo_met.
  void evict(SimTime now, uint32_t v) {
    Vm& m = vms_[v];
    if (m.state == RState::kStopped || m.evict_at != now) return;
    const uint32_t lo = v * per_vm_, hi = lo + per_vm_;
    int64_t lost = 0, lost_met = 0;
    // Only a VM with running requests has completions queued: the scan of
    // every queued event is skipped for the rest (spot VMs evicted while
    // they start, as at a day's start-up and 10 evictions an hour, scanned
    // the queue 2.4 M times in a replay). The queue's order is (time,
    // sequence), so what it pops does not depend on the scan.
    if (m.active > 0)  // its replicas' running requests
      q_.erase_if([&](const Event& e) {
        const bool mine = (e.kind == kComplete || e.kind == kCompleteMet) && e.a >= lo && e.a < hi;
        lost += mine;
        lost_met += mine && e.kind == kCompleteMet;
        return mine;
      });
    out_.slo_met -= lost_met;
    lost_met_iv_ += lost_met;
    out_.evicted += lost;
    in_flight_ -= lost;
    for (uint32_t i = lo; i < hi; ++i) reps_[i].active = 0;
    m.active = 0;
    emit(now, "spot replica %d evicted (%d ready)", static_cast<int>(v), ready_, 0);
    stop(now, v);
    // Requests waiting for a replica go to those still ready.
    drain_queue(now);
  }

  void ready(SimTime now, uint32_t v) {
    // Cancelled while starting — and the slot perhaps reused by a VM launched
    // later, whose own ready event is still to come.
    if (vms_[v].state != RState::kStarting || vms_[v].ready_at != now) return;
    if (vms_[v].noticed) {  // up, but under notice: it waits for its eviction
      set_state(v, RState::kDraining);
      return;
    }
    set_state(v, RState::kReady);
    for (uint32_t i = v * per_vm_; i < (v + 1) * per_vm_; ++i)
      reps_[i].prefill_free = reps_[i].serving_from = free_[i] = now;
    emit(now, "replica %d ready (%d ready)", static_cast<int>(v), ready_, 0);
    // The waiting queue goes to the new VM's replicas, least loaded first.
    expire_queue(now);
    while (!waiting_.empty()) {
      uint32_t best = v * per_vm_;
      for (uint32_t i = best + 1; i < (v + 1) * per_vm_; ++i)
        if (reps_[i].active < reps_[best].active) best = i;
      if (reps_[best].active >= c_.replica.max_batch) break;
      admit(now, best, pop_waiting());
    }
  }

  // The admitting replica a request goes to; -1 when none admits.
  // kLeastSequences: the fewest running sequences (lowest index on ties).
  // kShortestQueue: the shortest prefill queue — the replica whose queued
  // prefills end first (an idle one at once), then the fewest sequences.
  int pick(SimTime now) const {
    return pick(now, [](uint32_t) { return true; });
  }
  // The same among the replicas `ok(i)` accepts (the router's ranking
  // restricted, e.g. to those a request meets its targets on). The
  // comparisons are bitwise and the pick a conditional move: written with
  // short-circuit || and a branch, the ranking branched on random loads and
  // was a fifth of a replay's time. `ok` runs only for a replica the ranking
  // prefers.
  template <typename Ok>
  int pick(SimTime now, Ok ok) const {
    int best = -1, best_load = kFull;
    const int n = static_cast<int>(load_.size());
    if (c_.routing == Routing::kLeastSequences) {
      for (int i = 0; i < n; ++i) {
        const int l = load_[static_cast<size_t>(i)];
        const bool take = l < best_load && ok(static_cast<uint32_t>(i));
        best = take ? i : best;
        best_load = take ? l : best_load;
      }
      return best;
    }
    // Dense arrays: free_ mirrors each replica's prefill_free. A full
    // replica (kFull) never ranks.
    SimTime best_free = std::numeric_limits<SimTime>::max();
    for (int i = 0; i < n; ++i) {
      const int l = load_[static_cast<size_t>(i)];
      const SimTime f = std::max(now, free_[static_cast<size_t>(i)]);
      const bool better = (l != kFull) & ((f < best_free) | ((f == best_free) & (l < best_load)));
      const bool take = better && ok(static_cast<uint32_t>(i));
      best = take ? i : best;
      best_free = take ? f : best_free;
      best_load = take ? l : best_load;
    }
    return best;
  }

  void arrive(SimTime now, const Request& req) {
    ++arrivals_iv_;
    ++arrivals_tl_;
    if (c_.over_context(req)) {
      // Refused before it holds anything (500,000-token prompts on a
      // 131,072-token model were served as 5-minute prefills).
      ++out_.requests;
      ++out_.rejected;
      ++rejected_iv_;
      ++out_.hopeless;
      ++hopeless_iv_;
      return;
    }
    work_iv_ +=
        c_.replica.work_s_at(req.prefill_tokens(), req.output_tokens, batch_slo_, step_slo_);
    const double pf_s = c_.replica.prefill_s(req.prefill_tokens());
    observe_arrival(now, pf_s, req.output_tokens);
    if (c_.admission == Admission::kShed) {
      shed_or_admit(now, req, pf_s);
      return;
    }
    const int i = pick(now);
    if (i < 0 || !waiting_.empty()) {
      expire_queue(now);
      // Admission: when every replica is full and the queue holds max_queue
      // requests (or the engine's kMaxWaiting), the request is turned away
      // (a 429): counted, never met.
      const auto waiting = static_cast<int64_t>(waiting_.size());
      if ((c_.max_queue > 0 && waiting >= c_.max_queue) || waiting >= kMaxWaiting) {
        ++out_.requests;
        ++out_.rejected;
        ++rejected_iv_;
        return;
      }
      waiting_.push_back(req);
      waiting_load_ += load_of(req);
      if (i >= 0) drain_queue(now);
      return;
    }
    admit(now, static_cast<uint32_t>(i), req);
  }

  // Whether `req`, admitted now to replica i, meets both targets: the same
  // arithmetic as admit(), so an admitted request is one that meets them.
  bool meets(SimTime now, uint32_t i, const Request& req, double pf_s) const {
    const Replica& r = reps_[i];
    const SimTime start = std::max(now, r.prefill_free);
    if (to_seconds(start + seconds(prefill_wall_s(pf_s, req.prefill_tokens(), r.active)) -
                   req.arrival) > c_.ttft_slo_s)
      return false;
    if (req.output_tokens <= 1) return true;  // no second token: no TPOT
    return tpot_s(r, now, r.active + 1, req.output_tokens) <= c_.tpot_slo_s;
  }

  // The first kept span of replica r that starts after `t`, searched
  // backward from `hi` (a span index; every span from it on starts after
  // t): windows end about now and are short, so a linear scan of the
  // newest kLinearSpans, then galloping, then bisection. The windows of one
  // request nest, so each search starts where the last one ended.
  static size_t span_after(const Replica& r, SimTime t, size_t hi) {
    const size_t first = r.first_span;
    // Most windows hold a few spans (a 3-s decode at a few requests a
    // second): a short linear scan first, whose loop branch predicts well,
    // where galloping and bisection branch on random times at every step.
    for (int k = 0; k < kLinearSpans; ++k, --hi)
      if (hi == first || r.spans[hi - 1].start <= t) return hi;
    size_t lo = hi;
    for (size_t step = 1; lo != first && r.spans[lo - 1].start > t; step *= 2) {
      hi = lo;
      lo -= std::min(step, lo - first);
    }
    const auto base = r.spans.begin();
    return static_cast<size_t>(
        std::upper_bound(base + static_cast<std::ptrdiff_t>(lo),
                         base + static_cast<std::ptrdiff_t>(hi), t,
                         [](SimTime x, const PrefillSpan& p) { return x < p.start; }) -
        base);
  }

  static constexpr int kLinearSpans = 16;

  // Seconds of prefill work replica r did before `t` (within kShareHorizon
  // of now), `after` = span_after(r, t, ...): before the first kept span,
  // every span the replica ran had ended (they are dropped after the
  // horizon).
  static double work_before(const Replica& r, SimTime t, size_t after) {
    if (after == r.first_span)
      return after == r.spans.size() ? r.prefill_total : r.spans[after].before;
    const PrefillSpan& p = r.spans[after - 1];
    return p.before + to_seconds(std::min(t, p.end) - p.start) * p.phi;
  }

  // The share of replica r's time that went to prefill work over the
  // `window_s` before `t`, whose work_before is `work_t`, searching back
  // from span index `*hint` (updated to the window start's span_after): a
  // replica idles before it served.
  static double share_before(const Replica& r, SimTime t, double work_t, double window_s,
                             size_t* hint) {
    const SimTime from = std::max({t - seconds(window_s), t - kShareHorizon, r.serving_from});
    if (from >= t) return 0;
    *hint = span_after(r, from, *hint);
    return (work_t - work_before(r, from, *hint)) / to_seconds(t - from);
  }

  // TPOT of a request admitted at `now` to replica r, joining a batch of
  // `batch`. Its decode of n tokens takes n step(batch) plus the prefill
  // work that runs beside it, so TPOT = step / (1 - s), s the prefill share
  // of its decode's time, measured over a window of that length ending now
  // (arrivals see time averages; ending at its own prefill's start, which
  // follows the queued ones, would see a busy replica by construction). The
  // window's length depends on s: first the decode without stalls, then
  // with that share's (at most a chunk more a token). A chunked step stalls
  // a token by one chunk at most: TPOT <= step + chunk.
  double tpot_s(const Replica& r, SimTime now, int batch, double output_tokens) const {
    const double step = c_.replica.step_s(batch);
    const double tokens = std::max(0.0, output_tokens - 1);
    size_t hint = span_after(r, now, r.spans.size());
    const double work_now = work_before(r, now, hint);
    double share = std::min(share_before(r, now, work_now, tokens * step, &hint), 0.95);
    // The decode takes at most a chunk more a token, whatever the share
    // (a window at least as long: its search starts where this one ended).
    share = std::min(share_before(r, now, work_now,
                                  tokens * std::min(step / (1 - share), step + chunk_s_), &hint),
                     0.95);
    return std::min(step / (1 - share), step + chunk_s_);
  }

  // Prefill wall time of a prompt of `tokens` (`pf_s` seconds of work)
  // beside `batch` decoding sequences: every chunk's worth of prompt tokens
  // shares a step with their decode — prompts shorter than a chunk share
  // one step, as the engine packs them into its token budget. The fixed
  // part of a prefill is no chunk. At most kMaxWallS (the engine's clock
  // holds 292,000 years; a 200-s step per 16-token chunk once ran past it
  // as a stretch of the whole prefill).
  [[nodiscard]] double prefill_wall_s(double pf_s, double tokens, int batch) const {
    if (batch <= 0) return pf_s;
    return std::min(pf_s + tokens / c_.replica.chunk_tokens * c_.replica.step_s(batch), kMaxWallS);
  }
  static constexpr double kMaxWallS = 1e9;

  // Admission::kShed: the router's pick when the request meets its targets
  // there, else the replica the router ranks next among those on which it
  // does; none: turned away. Requests no fleet serves go to the router's
  // pick (and, with no replica admitting, are turned away too).
  void shed_or_admit(SimTime now, const Request& req, double pf_s) {
    int i = pick(now);
    const bool hopeless = this->hopeless(req, pf_s);
    if (i >= 0 && !hopeless && !meets(now, static_cast<uint32_t>(i), req, pf_s))
      i = pick(now, [&](uint32_t k) { return meets(now, k, req, pf_s); });
    if (i < 0) {
      ++out_.requests;
      ++out_.rejected;
      ++rejected_iv_;
      return;
    }
    admit(now, static_cast<uint32_t>(i), req);
  }

  // Prefill seconds arriving per second: the policies see the interval's
  // busiest windows of seconds (the SLO's time scale), not only its mean;
  // and the TPOT load (prefill plus step_per_seq x the decode steps) it
  // brings.
  void observe_arrival(SimTime now, double prefill_s, double output_tokens) {
    advance_second(now / kMicrosPerSecond);
    sec_sum_ += prefill_s;
    prefill_iv_ += prefill_s;
    prefill_sq_iv_ += prefill_s * prefill_s;
    const double tpot_load = this->tpot_load(prefill_s, output_tokens);
    tpot_iv_ += tpot_load;
    tpot_sq_iv_ += tpot_load * tpot_load;
  }

  // Closes the current second when `sec` is a later one (seconds skipped
  // had no arrivals): its prefill joins the windows that end with it. At
  // each arrival and each tick, so that a quiet interval does not see the
  // last busy second again.
  void advance_second(int64_t sec) {
    if (sec == sec_) return;
    if (sec_sum_ > 0) window_need_iv_ = std::max(window_need_iv_, busiest_window());
    if (sec_ >= 0) {
      sec_ring_[static_cast<size_t>(sec_) % kRing] = sec_sum_;
      for (int64_t k = sec_ + 1; k < std::min(sec, sec_ + 1 + kRing); ++k)
        sec_ring_[static_cast<size_t>(k) % kRing] = 0;
    }
    sec_ = sec;
    sec_sum_ = 0;
  }

  // Replicas of serial prefill the busiest window of arrivals ending at the
  // current second needs. Prefills are serial per replica, so arrivals of P
  // prefill seconds within w seconds that all meet the TTFT need P / (w +
  // TTFT) replicas (the bound's window constraint, serving_bound.cc); over
  // windows of 1, 2, 4, ... 64 whole seconds, since a crowd that overloads a
  // replica for ten seconds shows in none of its single seconds. Asked only
  // of a second with arrivals: a window ending in a quiet one holds an
  // earlier interval's.
  [[nodiscard]] double busiest_window() const {
    if (sec_ < 0) return 0;
    double sum = sec_sum_, best = sum / (1 + c_.ttft_slo_s);
    int64_t back = 1;
    for (int64_t w = 2; w <= kRing; w *= 2) {
      for (; back < w && back <= sec_; ++back)
        sum += sec_ring_[static_cast<size_t>(sec_ - back) % kRing];
      best = std::max(best, sum / (static_cast<double>(w) + c_.ttft_slo_s));
    }
    return best;
  }
  static constexpr int64_t kRing = 64;  // seconds: the longest window

  // Requests whose client gave up (queue_timeout_s in the queue) leave it:
  // counted as turned away. The queue is in arrival order, so they are at
  // its front. (Without it an overload that never ended queued every later
  // request, and a replica of 1,000-s prefills with 4.7 M requests queued
  // simulated their service for centuries of ticks.)
  void expire_queue(SimTime now) {
    if (c_.queue_timeout_s <= 0) return;
    const SimTime limit = seconds(c_.queue_timeout_s);
    while (!waiting_.empty() && now - waiting_.front().arrival > limit) {
      pop_waiting();
      ++out_.requests;
      ++out_.rejected;
      ++rejected_iv_;
    }
  }

  // What a request costs a replica's decode steps (PolicyInput::tpot_load_s):
  // its prefill seconds plus step_per_seq for every decode step it joins.
  [[nodiscard]] double tpot_load(double prefill_s, double output_tokens) const {
    return prefill_s + c_.replica.step_per_seq_s * std::max(0.0, output_tokens - 1);
  }
  [[nodiscard]] double load_of(const Request& req) const {
    return tpot_load(c_.replica.prefill_s(req.prefill_tokens()), req.output_tokens);
  }
  // The waiting queue's front, out of the queue and its load.
  Request pop_waiting() {
    const Request req = waiting_.front();
    waiting_.pop_front();
    // Exactly 0 when empty: a running sum must not drift over a week.
    waiting_load_ = waiting_.empty() ? 0 : waiting_load_ - load_of(req);
    return req;
  }

  void drain_queue(SimTime now) {
    expire_queue(now);
    while (!waiting_.empty()) {
      const int i = pick(now);
      if (i < 0) return;
      admit(now, static_cast<uint32_t>(i), pop_waiting());
    }
  }

  void admit(SimTime now, uint32_t i, const Request& req) {
    Replica& r = reps_[i];
    ++r.active;
    refresh(i);
    ++vms_[i / per_vm_].active;
    ++in_flight_;
    const SimTime start = std::max(now, r.prefill_free);
    const double pf_s = c_.replica.prefill_s(req.prefill_tokens());
    // The sequences running beside it (this one counted in active already).
    const double wall_s = prefill_wall_s(pf_s, req.prefill_tokens(), r.active - 1);
    const SimTime pf = std::max<SimTime>(1, seconds(wall_s));
    const double tpot_s = this->tpot_s(r, now, r.active, req.output_tokens);
    while (r.first_span < r.spans.size() && r.spans[r.first_span].end < now - kShareHorizon)
      ++r.first_span;
    if (r.first_span > 64 && 2 * r.first_span > r.spans.size()) {
      r.spans.erase(r.spans.begin(), r.spans.begin() + static_cast<std::ptrdiff_t>(r.first_span));
      r.first_span = 0;
    }
    r.spans.push_back({start, start + pf, r.prefill_total, pf_s / to_seconds(pf)});
    r.prefill_total += pf_s;
    r.prefill_free = free_[i] = start + pf;
    const double ttft_s = to_seconds(r.prefill_free - req.arrival);
    const double decode_s = tpot_s * std::max(0.0, static_cast<double>(req.output_tokens) - 1);
    // TPOT is the time between output tokens: an answer of one token has
    // none (vLLM's benchmarks leave such requests out of TPOT), and met or
    // missed its SLO by the TTFT alone; it was counted as a TPOT miss.
    const bool decodes = req.output_tokens > 1;
    const bool met = ttft_s <= c_.ttft_slo_s && (!decodes || tpot_s <= c_.tpot_slo_s);
    q_.push(r.prefill_free + seconds(decode_s), met ? kCompleteMet : kComplete, i);
    const double ttft_ms = ttft_s * 1e3, tpot_ms = tpot_s * 1e3;
    out_.ttft_ms.add(ttft_ms);
    if (want_timeline_) {
      ttft_tl_.push_back(static_cast<float>(ttft_ms));
      tpot_tl_.push_back(static_cast<float>(tpot_ms));
    }
    if (decodes) out_.tpot_ms.add(tpot_ms);
    ++out_.requests;
    if (met) {
      ++out_.slo_met;
    } else {
      const bool hopeless = this->hopeless(req, pf_s);
      ++missed_iv_;
      hopeless_iv_ += hopeless;
      out_.hopeless += hopeless;
      out_.missed_ttft += ttft_s > c_.ttft_slo_s;
      out_.missed_tpot += decodes && tpot_s > c_.tpot_slo_s;
    }
  }

  // A request no fleet serves within the SLO: its prefill alone is over
  // the TTFT, or it decodes and one step at batch 1 is over the TPOT.
  [[nodiscard]] bool hopeless(const Request& req, double pf_s) const {
    return pf_s > c_.ttft_slo_s || (req.output_tokens > 1 && step1_s_ > c_.tpot_slo_s);
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
    expire_queue(now);
    if (!waiting_.empty() && r.state == RState::kReady) admit(now, i, pop_waiting());
  }

  void tick(SimTime now) {
    expire_queue(now);  // also with no replica to take them
    const double iv_s = to_seconds(iv_);
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
    // The backlog: prefill the ready replicas have taken on beyond now (a
    // draining VM finishes its own; a stopped one's is lost), and the
    // waiting requests' load.
    double committed = 0;
    for (size_t i = 0; i < free_.size(); ++i)
      if (vms_[i / per_vm_].state == RState::kReady)
        committed += to_seconds(std::max<SimTime>(0, free_[i] - now));
    in.backlog_s = committed + waiting_load_;
    advance_second(now / kMicrosPerSecond);
    in.prefill_window_need = std::max(window_need_iv_, sec_sum_ > 0 ? busiest_window() : 0.0);
    in.prefill_mean_s = prefill_iv_ / iv_s;
    in.prefill_sq_s = prefill_sq_iv_ / iv_s;
    in.tpot_load_s = tpot_iv_ / iv_s;
    in.tpot_load_sq_s = tpot_sq_iv_ / iv_s;
    in.sequences = static_cast<int>(in_flight_);
    in.missed = missed_iv_ + rejected_iv_ + lost_met_iv_;
    in.hopeless = hopeless_iv_;
    in.arrivals = arrivals_iv_;
    window_need_iv_ = 0;
    prefill_iv_ = prefill_sq_iv_ = tpot_iv_ = tpot_sq_iv_ = 0;
    missed_iv_ = rejected_iv_ = hopeless_iv_ = lost_met_iv_ = 0;
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
    // With a spot mix, the priority the smaller fleet has too many of goes
    // first (the scale set keeps its mix when it scales in).
    const auto first_out = [&](int after) {
      return c_.spot.share > 0 && regular_live() <= c_.spot.regular_of(after);  // true: spot
    };
    // Cancel starting VMs first (newest first), then drain the least loaded.
    for (int pass = 0; pass < 2 && remove > 0; ++pass)
      for (size_t v = vms_.size(); v-- > 0 && remove > 0;)
        if (vms_[v].state == RState::kStarting &&
            (pass == 1 || vms_[v].spot == first_out(ready_ + starting_ - 1)))
          stop(now, static_cast<uint32_t>(v)), --remove;
    if (remove <= 0) return;
    // Each VM out is the least loaded ready VM of the priority that goes
    // first (lowest number among equals), else of the other. Loads do not
    // change while VMs leave, so each priority's candidates are ordered
    // once: the `remove` least loaded of each, O(VMs log remove), where a
    // scan per VM out was O(remove x VMs).
    std::vector<uint32_t> ready[2];  // [0] pay-as-you-go, [1] spot
    for (uint32_t v = 0; v < vms_.size(); ++v)
      if (vms_[v].state == RState::kReady) ready[vms_[v].spot ? 1 : 0].push_back(v);
    const auto lighter = [this](uint32_t a, uint32_t b) {
      return vms_[a].active != vms_[b].active ? vms_[a].active < vms_[b].active : a < b;
    };
    for (auto& list : ready) {
      const auto k = std::min(list.size(), static_cast<size_t>(remove));
      std::partial_sort(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(k), list.end(),
                        lighter);
      list.resize(k);
    }
    size_t taken[2] = {0, 0};
    while (remove > 0) {
      const int want = first_out(ready_ + starting_ - 1) ? 1 : 0;
      const int from = taken[want] < ready[want].size() ? want : 1 - want;
      if (taken[from] >= ready[from].size()) break;
      const uint32_t v = ready[from][taken[from]++];
      if (vms_[v].active == 0) {
        stop(now, v);
      } else {
        set_state(v, RState::kDraining);
      }
      --remove;
    }
  }

  void timeline_point(SimTime now) {
    if (!want_timeline_) {
      arrivals_tl_ = 0;
      return;
    }
    // Every request is counted once admitted or turned away, and leaves
    // slo_met if it met and was then lost: requests - slo_met have missed.
    const int64_t missed = out_.requests - out_.slo_met;
    const SimTime billed_us = vm_us_ + live_ * now - live_from_;
    TimelinePoint p;
    p.t_hours = to_seconds(now) / 3600;
    p.demand_rps = static_cast<double>(arrivals_tl_) / c_.timeline_s;
    p.replicas = billed();
    const SimTime spot_us = spot_us_ + spot_live_ * now - spot_live_from_;
    p.spot_replicas = static_cast<double>(spot_live_);
    p.cost_usd = cost_of(billed_us, spot_us);
    if (!ttft_tl_.empty()) {
      p.ttft_mean_ms = mean_of(ttft_tl_);
      p.ttft_max_ms = *std::max_element(ttft_tl_.begin(), ttft_tl_.end());
      p.ttft_p99_ms = p99_of(ttft_tl_);
      p.tpot_mean_ms = mean_of(tpot_tl_);
      p.tpot_p99_ms = p99_of(tpot_tl_);
    }
    p.missed = missed - missed_tl_;
    missed_tl_ = missed;
    out_.timeline.push_back(p);
    arrivals_tl_ = 0;
    ttft_tl_.clear();
    tpot_tl_.clear();
  }

  static double mean_of(const std::vector<float>& v) {
    double sum = 0;
    for (const float x : v) sum += x;
    return sum / static_cast<double>(v.size());
  }
  // The ceil(0.99 n)-th smallest (the report's quantile rule), exact.
  static double p99_of(std::vector<float>& v) {
    const size_t k = static_cast<size_t>(std::ceil(0.99 * static_cast<double>(v.size()))) - 1;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return v[k];
  }

  const ServingConfig& c_;
  DemandSource& src_;
  ScalingPolicy& pol_;
  std::string* log_;
  bool want_timeline_;
  int batch_slo_ = 1;
  double step_slo_ = 0;  // step_s(batch_slo_)
  double step1_s_ = 0;   // step_s(1)
  double chunk_s_ = 1;   // one prefill chunk's compute (ReplicaCapacity::chunk_s)
  SimTime iv_ = 0, tl_iv_ = 0, vm_us_ = 0, spot_us_ = 0;
  SimTime limit_ = 0, last_arrival_ = 0;  // max_simulated_s (0: none); the last arrival
  Rng rng_{1};                            // spot lifetimes
  size_t spot_events_ = 0;                // notices and evictions queued
  int64_t lost_met_iv_ = 0;               // this interval: requests that had met the SLO, lost
  uint32_t per_vm_ = 1;
  EventQueue q_;
  std::vector<Vm> vms_;
  std::vector<Replica> reps_;
  std::vector<int> load_;      // per replica, see refresh()
  std::vector<SimTime> free_;  // per replica: prefill_free, for the shortest-queue router
  std::deque<Request> waiting_;
  double waiting_load_ = 0;                      // the waiting requests' tpot_load, summed
  int ready_ = 0, starting_ = 0, draining_ = 0;  // kept by set_state, as the rest
  int regular_live_ = 0;                         // pay-as-you-go VMs ready or starting
  // VMs not stopped, and the sum of their billed_from (all, and spot): the
  // billed time at t is live x t - that sum.
  int64_t live_ = 0, spot_live_ = 0;
  SimTime live_from_ = 0, spot_live_from_ = 0;
  // Stopped VMs, lowest number first: add_vm reuses the lowest.
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> stopped_;
  int64_t in_flight_ = 0, arrivals_iv_ = 0, arrivals_tl_ = 0;
  int64_t missed_tl_ = 0;  // requests - slo_met at the last timeline point
  // This timeline interval: the TTFT and TPOT (ms) of each request admitted
  // (only when the timeline is asked for: memory is one interval's requests).
  std::vector<float> ttft_tl_, tpot_tl_;
  int64_t missed_iv_ = 0, rejected_iv_ = 0;  // this interval: admitted and missed, turned away
  int64_t hopeless_iv_ = 0;  // of the missed: no fleet serves them (prefill or step over the SLO)
  double work_iv_ = 0;
  // Prefill seconds arriving: this interval, the current second.
  double prefill_iv_ = 0, prefill_sq_iv_ = 0, sec_sum_ = 0;
  // Closed seconds' prefill (second k at k % kRing) and this interval's
  // busiest_window().
  std::array<double, kRing> sec_ring_{};
  double window_need_iv_ = 0;
  double tpot_iv_ = 0, tpot_sq_iv_ = 0;
  int64_t sec_ = -1;
  ServingRun out_;
};

}  // namespace

Result<ServingRun> run_serving(const ServingConfig& config, DemandSource& source,
                               ScalingPolicy& policy, const PolicyContext& context,
                               std::string* log, bool timeline) {
  Engine engine(config, source, policy, log, timeline);
  return engine.run(context);
}

}  // namespace gpuplan::simulate
