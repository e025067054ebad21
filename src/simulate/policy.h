// ScalingPolicy: the one seam every scaling policy sits behind (STYLE.md: an
// abstract class only at a real seam). The simulator calls decide() at each
// decision point with what a real controller could observe at that moment —
// never the future — and applies the returned decision.
//
// Three families share the interface:
//   serving  — decide how many replicas to run (`replicas`), from the
//              observed request rate, utilization and queue;
//   deadline — decide which capacity a checkpointable job runs on right now
//              (`capacity`: none, spot or on-demand), from its progress, the
//              deadline and whether spot can be had this step;
//   reserve  — decide how many reservations to buy now (`buy`) for work
//              whose size moves over weeks, from the VMs in use last hour
//              and the reservations already held.
// A policy sees only the fields of its family; the others are zero.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan::simulate {

enum class Capacity : uint8_t { kNone = 0, kSpot = 1, kOnDemand = 2 };
[[nodiscard]] std::string_view to_string(Capacity c);  // "none", "spot", "on-demand"

struct PolicyInput {
  double now_s = 0;  // simulated seconds since the start

  // --- serving ---
  int ready = 0;                        // replicas serving
  int starting = 0;                     // replicas booting (start-up delay)
  double arrival_rps = 0;               // arrivals per second over the last interval
  double utilization = 0;               // busy share of ready replicas' batch slots, last interval
  double capacity_rps_per_replica = 0;  // sustainable rate of one replica within the SLOs
  int queued = 0;                       // requests waiting for a batch slot
  // Replicas of serial prefill the busiest window of arrivals (1, 2, 4, ...
  // 64 s, ending in the interval) needs to meet the TTFT: its prefill
  // seconds over its length plus the TTFT.
  double prefill_window_need = 0;
  double prefill_mean_s = 0;  // prefill seconds arriving per second, interval mean
  double prefill_sq_s = 0;    // sum of squared prefill seconds arriving per second, interval mean
  // What a request costs a replica's decode steps: its prefill seconds plus
  // step_per_seq x its output tokens (every sequence in the batch lengthens
  // each step by step_per_seq for as long as it decodes), arriving per
  // second, interval mean; and the mean of their squares.
  double tpot_load_s = 0;
  double tpot_load_sq_s = 0;
  int sequences = 0;  // sequences admitted and not finished (all replicas)
  // The backlog, in replica-seconds: the prefill the ready replicas have
  // queued beyond now (wall time, chunk stalls included) plus the TPOT load
  // of the requests waiting for a slot (prefill and per-sequence decode
  // seconds, as tpot_load_s counts them). The running sequences' decode is
  // not in it: it is under way.
  double backlog_s = 0;
  int64_t arrivals = 0;  // requests that arrived in the interval
  int64_t missed = 0;    // admitted in the interval and missed the SLO, or turned away
  int64_t hopeless = 0;  // of the missed: prefill alone over the TTFT (no fleet serves them)

  // --- deadline ---
  double work_done_s = 0;  // compute finished (checkpointed)
  double work_total_s = 0;
  double deadline_s = 0;    // since the start
  double changeover_s = 0;  // restart cost of every launch
  double step_s = 0;        // decision interval (the spot trace's step)
  Capacity running = Capacity::kNone;
  double overhead_left_s = 0;   // restart overhead still to pay on the running VM
  double eviction_loss_s = 0;   // progress an eviction takes back (checkpoint beyond the notice)
  bool spot_available = false;  // a spot VM can be had (or kept) during this step

  // --- reserve ---
  int demand_vms = 0;          // VMs in use during the hour that just ended (its peak)
  double demand_vm_hours = 0;  // and the VM-hours it billed (Azure's hourly usage)
  int reserved = 0;            // reservations held (active from their purchase to the term's end)
};

struct PolicyDecision {
  int replicas = 0;                     // serving: target replica count
  Capacity capacity = Capacity::kNone;  // deadline: where to run this step
  int buy = 0;                          // reserve: reservations to buy now (one VM each)
};

// What a policy may know before the run starts: the scenario's constants and
// any history that precedes the start (a spot trace's prefix).
struct PolicyContext {
  double od_usd_per_hour = 0;
  double spot_usd_per_hour = 0;
  // Spot availability observed before the start, one entry per step (1 =
  // available), oldest first. Empty when nothing precedes the start. A view
  // of the trace (which outlives the run), never a copy: runs at many
  // offsets of a long trace would otherwise copy its prefix each time.
  std::span<const uint8_t> spot_history;
  double startup_s = 0;  // serving: VM start-up delay
  int min_replicas = 1;
  int max_replicas = 1;
  int peak_replicas = 1;  // static-peak: replicas the trace's peak needs
  // serving: the SLO and one VM's model replicas and their decode slots
  double ttft_slo_s = 1, tpot_slo_s = 0.05, slo_attainment = 0.99;
  int replicas_per_vm = 1;
  int slots_per_replica = 1;  // the planning batch (decode step within half the TPOT)
  double step_base_s = 0, step_per_seq_s = 0;  // a replica's decode step at batch B: base + per x B
  double reserved_usd_per_hour = 0;  // reserve: one reservation's price per hour of its term
  double term_hours = 0;             // reserve: the reservation term
};

class ScalingPolicy {
 public:
  virtual ~ScalingPolicy() = default;
  // The report name ("hpa", "uniform-progress", ...).
  [[nodiscard]] virtual std::string_view name() const = 0;
  // Called once before each run; drops all state of a previous run.
  virtual void reset(const PolicyContext& context) = 0;
  // The decision at this instant. Must be deterministic in its inputs.
  virtual PolicyDecision decide(const PolicyInput& input) = 0;
};

}  // namespace gpuplan::simulate
