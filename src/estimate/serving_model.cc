// Serving model: how many requests/s one replica sustains within the SLOs.
//
// Problem: for an `infer` workload (request rate, input/output token
// distributions, TTFT and TPOT targets at a percentile) decide how many
// replicas — and so VMs — are needed, cheaply enough for the planner to ask
// for every size × count.
//
// Approach: a steady-state model of continuous batching with chunked
// prefill (vLLM / TensorRT-LLM in-flight batching). With B sequences in
// flight, mean input I and output O tokens, each decode step takes
// d(B) = decode_step_seconds(B, I + O/2) (ReplicaModel, throughput_model.cc)
// and every admitted request also costs its prefill compute
// t_p = FLOPs(I) / FLOP/s. Over a long window, R requests need R·O/B decode
// steps and R prefills, so
//     requests/s(B) = B / (O · d(B) + B · t_p)
//     TPOT(B)       = d(B) / (1 − requests/s(B) · t_p)   (steps stall for prefill)
//     TTFT_p(B)     = prefill_seconds(I_p) + d(B)       (I_p: input at the SLO percentile)
// The capacity is the largest B, up to what the KV cache holds at I + O
// tokens a sequence, whose TPOT and TTFT meet the SLOs, derated to 85 %
// utilisation so that queueing stays bounded (the knee of an M/D/1 queue;
// queueing delays themselves come out of `gpuplan simulate`).
//
// Max load (offline throughput benchmarks, max_load_point): every request
// is queued, so B is as large as the paged KV cache (after weights,
// overhead and one prefill chunk's activations) and the engine's max_seqs
// allow, scanned for the most requests/s; workloads keep the request-rate
// operating point above (serving_point_at).
//
// Trade-offs: percentiles of TPOT are taken at the mean batch (output-length
// variance mostly moves TTFT, not TPOT); TTFT ignores queueing below the
// 85 % derating. Both are documented in docs/estimator.md.
#include <algorithm>
#include <cmath>

#include "estimate/internal/physics.h"

namespace gpuplan::estimate::internal {

namespace {

// Inverse standard normal CDF (Acklam's rational approximation, |error| < 1.2e-9).
double normal_quantile(double p) {
  static const double kA[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                              -2.759285104469687e+02, 1.383577518672690e+02,
                              -3.066479806614716e+01, 2.506628277459239e+00};
  static const double kB[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                              6.680131188771972e+01, -1.328068155288572e+01};
  static const double kC[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                              -2.400758277161838e+00, -2.549732539343734e+00,
                              4.374664141464968e+00,  2.938163982698783e+00};
  static const double kD[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                              3.754408661907416e+00};
  p = std::clamp(p, 1e-9, 1 - 1e-9);
  if (p < 0.02425) {
    double q = std::sqrt(-2 * std::log(p));
    return (((((kC[0] * q + kC[1]) * q + kC[2]) * q + kC[3]) * q + kC[4]) * q + kC[5]) /
           ((((kD[0] * q + kD[1]) * q + kD[2]) * q + kD[3]) * q + 1);
  }
  if (p > 1 - 0.02425) {
    double q = std::sqrt(-2 * std::log(1 - p));
    return -(((((kC[0] * q + kC[1]) * q + kC[2]) * q + kC[3]) * q + kC[4]) * q + kC[5]) /
           ((((kD[0] * q + kD[1]) * q + kD[2]) * q + kD[3]) * q + 1);
  }
  double q = p - 0.5;
  double r = q * q;
  return (((((kA[0] * r + kA[1]) * r + kA[2]) * r + kA[3]) * r + kA[4]) * r + kA[5]) * q /
         (((((kB[0] * r + kB[1]) * r + kB[2]) * r + kB[3]) * r + kB[4]) * r + 1);
}

struct Traffic {
  double in_mean, out_mean, in_p;
};

// Sequences an engine holds in flight: what its KV cache holds
// (`memory_limit`), within its cap on sequences where the run had one
// (`max_seqs`; 0: none).
double held_sequences(double memory_limit, double max_seqs) {
  return max_seqs > 0 ? std::min(memory_limit, max_seqs) : memory_limit;
}

// A measurement's fixed lengths (each at least a token).
Traffic fixed_lengths(double input_tokens, double output_tokens) {
  const double in = std::max(1.0, input_tokens);
  return {in, std::max(1.0, output_tokens), in};
}

Traffic traffic(const workload::Workload& w) {
  return {w.serving.input_tokens.mean, w.serving.output_tokens.mean, input_tokens_at_percentile(w)};
}

// Prefill work of one request that stalls the decode steps (chunked prefill
// interleaves it with them): its matmuls and attention, and its tensor-
// parallel all-reduces.
double prefill_work(const ReplicaModel& r, double in) {
  return (r.flops_per_token * in + r.attn_flops_per_token_ctx * r.local.causal_pairs(in)) /
             r.flops_per_s +
         r.tp_comm_seconds(in);
}

ServingPoint point(const ReplicaModel& r, const Traffic& t, double batch) {
  ServingPoint p;
  p.batch = batch;
  const double d = r.decode_step_seconds(batch, t.in_mean + t.out_mean / 2);
  const double tp = prefill_work(r, t.in_mean);
  p.rps = batch / (t.out_mean * d + batch * tp);
  const double busy = std::min(0.99, p.rps * tp);
  p.tpot_s = d / (1.0 - busy);
  p.ttft_s = r.prefill_seconds(t.in_p) + d;
  return p;
}

// Whether a point keeps a latency rule (a limit of 0 is none).
bool meets(const ServingPoint& p, const LatencyRule& rule) {
  if (rule.tpot_s > 0 && p.tpot_s > rule.tpot_s) return false;
  if (rule.ttft_s > 0 && p.ttft_s > rule.ttft_s) return false;
  return true;
}

bool meets(const ServingPoint& p, const workload::Workload& w) {
  return meets(p, LatencyRule{w.serving.ttft_ms / 1000, w.serving.tpot_ms / 1000});
}

}  // namespace

double input_tokens_at_percentile(const workload::Workload& w) {
  const workload::TokenDistribution& d = w.serving.input_tokens;
  const double p = w.serving.percentile / 100.0;
  double v = d.mean;
  if (d.shape == "uniform") {
    v = d.min + p * (d.max - d.min);
  } else if (d.shape == "lognormal" && d.stddev > 0 && d.mean > 0) {
    const double s2 = std::log(1.0 + d.stddev * d.stddev / (d.mean * d.mean));
    const double mu = std::log(d.mean) - s2 / 2;
    v = std::exp(mu + std::sqrt(s2) * normal_quantile(p));
  }
  return std::clamp(v, d.min, std::max(d.min, d.max));
}

ServingPoint best_serving_point(const ReplicaModel& r, const workload::Workload& w) {
  const Traffic t = traffic(w);
  const double bmax = r.max_batch(t.in_mean + t.out_mean);
  if (bmax < 1) return {};
  ServingPoint one = point(r, t, 1);
  if (!meets(one, w)) {
    one.batch = 0;
    one.rps = 0;
    return one;
  }
  // TPOT and TTFT grow with the batch: binary search the largest that meets both.
  double lo = 1, hi = bmax;
  if (meets(point(r, t, hi), w)) {
    lo = hi;
  } else {
    while (hi - lo > 1) {
      const double mid = std::floor((lo + hi) / 2);
      (meets(point(r, t, mid), w) ? lo : hi) = mid;
    }
  }
  ServingPoint best = point(r, t, lo);
  best.rps *= kServingMaxUtilization;
  return best;
}

double kv_sequence_limit(const ReplicaModel& r, const workload::Model& m, double input_tokens,
                         double output_tokens) {
  // A sequence holds input + output tokens at the end of its life (why that
  // and not the mean over it: physics.h), in whole pages: on average half a
  // page is unused at its end; its local layers keep their window only. The
  // cache is what replica_model() leaves after weights and overhead, less
  // the activations of one prefill chunk (one layer live at a time).
  const double footprint =
      r.local.cached_tokens(std::max(1.0, input_tokens) + std::max(1.0, output_tokens)) +
      kKvPageTokens / 2;
  const double activations = r.gpus * kPrefillChunkTokens * kActivationBytesPerTokenHidden *
                             m.hidden * workload::bytes_per_value(workload::Precision::kFp16);
  const double kv_tokens =
      std::max(0.0, r.kv_capacity_tokens - activations / std::max(1.0, r.kv_bytes_per_token));
  return std::floor(kv_tokens / footprint);
}

MaxLoadPoint max_load_point(const ReplicaModel& r, const workload::Model& m, double input_tokens,
                            double output_tokens, double max_seqs, LatencyRule rule) {
  // Offline max load (vLLM benchmark_throughput, lmdeploy/TensorRT-LLM
  // max-throughput runs): every request is queued, so the engine keeps as
  // many sequences in flight as its KV cache (kv_sequence_limit) and its
  // max_seqs, when the run had one, allow.
  const Traffic t = fixed_lengths(input_tokens, output_tokens);
  MaxLoadPoint best;
  best.memory_limit = kv_sequence_limit(r, m, t.in_mean, t.out_mean);
  const double cap = held_sequences(best.memory_limit, max_seqs);
  // requests/s(B) = B / (O·d(B) + B·t_p) (header essay); scan B for its
  // maximum among the concurrencies whose TTFT and TPOT keep the run's
  // latency rule (MLPerf Server rows), when it has one.
  for (double b = 1; b <= cap; b += 1) {
    const ServingPoint p = point(r, t, b);
    if (!meets(p, rule)) continue;
    if (p.rps > best.rps) {
      best.concurrency = b;
      best.rps = p.rps;
      best.tpot_s = p.tpot_s;
      best.ttft_s = p.ttft_s;
    }
  }
  return best;
}

MaxLoadPoint closed_loop_point(const ReplicaModel& r, const workload::Model& m, double input_tokens,
                               double output_tokens, double clients, double max_seqs) {
  const Traffic t = fixed_lengths(input_tokens, output_tokens);
  MaxLoadPoint p;
  p.memory_limit = kv_sequence_limit(r, m, t.in_mean, t.out_mean);
  const double b = std::min(clients, held_sequences(p.memory_limit, max_seqs));
  if (b < 1) return p;
  const ServingPoint s = point(r, t, b);
  p.concurrency = b;
  p.rps = s.rps;
  p.tpot_s = s.tpot_s;
  // TTFT: its prefill pass, which with b - 1 others in flight runs in a
  // step beside their decode (one weight read for both) after the rest of
  // the step in progress (half a step on average); after the prefill work
  // queued ahead of it: prefills arrive at rps and take t_p each, busy =
  // rps t_p of the replica's time, and as one server with Poisson arrivals
  // and a fixed service time (M/D/1) the mean wait is busy t_p / (2 (1 -
  // busy)) (Pollaczek-Khinchine). Clients the KV cache or max_seqs cannot
  // hold wait for a slot first: (clients - b) / rps by Little's law. One
  // client: its prefill alone.
  const double others = b - 1;
  double beside = 0;
  if (others >= 1) {
    const double d = r.decode_step_seconds(others, t.in_mean + t.out_mean / 2);
    beside =
        d / 2 + std::max(0.0, d - r.step_weight_bytes(others) / r.bytes_per_s - r.step_overhead_s);
  }
  const double t_p = prefill_work(r, t.in_mean);
  const double busy = std::min(0.99, s.rps * t_p);
  p.ttft_s = r.prefill_seconds(t.in_mean) + beside + busy * t_p / (2 * (1 - busy)) +
             std::max(0.0, clients - b) / s.rps;
  return p;
}

ServingPoint serving_point_at(const ReplicaModel& r, const workload::Workload& w, double rps) {
  // Little's law: the mean concurrency C is the arrival rate times the time
  // a request spends in the replica, C = rps · (TTFT(C) + (O − 1) · TPOT(C)),
  // where TPOT(C) = d(C) / (1 − rps · t_p) (decode steps stall for the
  // prefill work t_p that chunked prefill interleaves with them). The right
  // side grows with C more slowly than C itself up to the replica's
  // capacity, so the fixed point is found by bisection on [0, KV capacity].
  const Traffic t = traffic(w);
  const double bmax = std::max(1.0, r.max_batch(t.in_mean + t.out_mean));
  const double t_p = prefill_work(r, t.in_mean);
  const double busy = rps * t_p;
  auto at = [&](double c) {
    ServingPoint p;
    p.batch = c;
    p.rps = rps;
    const double d = r.decode_step_seconds(std::max(1.0, c), t.in_mean + t.out_mean / 2);
    p.tpot_s = d / (1.0 - std::min(0.99, busy));
    p.ttft_s = r.prefill_seconds(t.in_p) + d;
    return p;
  };
  auto excess = [&](double c) {
    const ServingPoint p = at(c);
    const double ttft_mean = r.prefill_seconds(t.in_mean) + p.tpot_s;
    return rps * (ttft_mean + std::max(0.0, t.out_mean - 1) * p.tpot_s) - c;
  };
  if (rps <= 0) return at(0);
  if (busy >= 1 || excess(bmax) > 0) {
    ServingPoint p = at(bmax);
    p.overloaded = true;
    return p;
  }
  double lo = 0, hi = bmax;  // excess(lo) > 0 >= excess(hi)
  for (int i = 0; i < 60 && hi - lo > 1e-6 * bmax; ++i) {
    const double mid = (lo + hi) / 2;
    (excess(mid) > 0 ? lo : hi) = mid;
  }
  return at(hi);
}

}  // namespace gpuplan::estimate::internal
