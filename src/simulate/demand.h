// Demand sources: where requests (or jobs) come from. Every source streams —
// it holds a file open and parses one record at a time, so memory does not
// grow with the trace — and reports what it dropped and why.
//
// Formats:
//   azure-llm     Azure LLM inference trace (Azure/AzurePublicDataset, the data
//                 of Splitwise, ISCA'24): `TIMESTAMP,ContextTokens,GeneratedTokens`,
//                 TIMESTAMP as "YYYY-MM-DD HH:MM:SS.fffffff"; arrival times are
//                 taken relative to the first row.
//   burstgpt      BurstGPT (HPMLL/BurstGPT, arXiv:2401.17644): `Timestamp,Model,
//                 Request tokens,Response tokens,Total tokens,Log Type`, columns
//                 by name, Timestamp in seconds; failed calls (0 response
//                 tokens) are dropped.
//   mooncake      Mooncake (kvcache-ai/Mooncake, FAST'25) JSON lines:
//                 `{"timestamp": ms, "input_length": n, "output_length": n,
//                 "hash_ids": [...]}`; the hash_ids feed an optional shared
//                 prefix cache (PrefixCacheSpec).
//   alibaba-qps   Alibaba GenAI `qps.csv` (`timestamp_anon,value,container_ip,
//                 request_type`): per-container QPS samples at unaligned times.
//                 The rate of a bucket is the sum over containers of each
//                 container's last sample at or before the bucket's end (held
//                 until it changes); rows without a container_ip are dropped;
//                 arrivals inside a bucket are Poisson at that rate with token
//                 counts drawn from the scenario's distributions.
//   synthetic     Poisson arrivals whose rate is base × diurnal × weekly growth
//                 × bursts (see SyntheticDemand).
// Job arrivals (Alibaba GPU v2023 `pods.csv`) are read by read_pod_jobs().
#pragma once

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "simulate/event_queue.h"
#include "simulate/rng.h"

namespace gpuplan::simulate {

struct Request {
  SimTime arrival = 0;  // microseconds since the start
  float input_tokens = 0;
  float output_tokens = 0;
  // Of the input, the leading tokens a shared prefix cache already holds
  // (their KV is loaded, not computed): 0 unless the trace names its prompt
  // blocks and the scenario models the cache (PrefixCache).
  float cached_tokens = 0;
  // The tokens the prefill computes.
  [[nodiscard]] float prefill_tokens() const { return input_tokens - cached_tokens; }
};

// A prefix cache shared by the fleet's replicas, over the prompt blocks a
// trace names (Mooncake's hash_ids: one id per block of `block_tokens`;
// equal ids are equal prefixes). A request's cached tokens are its leading
// blocks found in the cache, at most its input less one token (the last
// token is always computed); then all its blocks become the most recent,
// and the least recently used leave past `capacity_tokens`. This is
// Mooncake's design (FAST'25: one KVCache pool over the cluster's DRAM and
// SSD that every prefill instance reads); per-replica caches behind a
// router that does not look at them (vLLM's automatic prefix caching) hit
// less, so the hit ratio here is an upper estimate for them.
struct PrefixCacheSpec {
  bool enabled = false;
  double capacity_tokens = 0;
  double block_tokens = 512;  // Mooncake's trace (FAST'25 artifact README)
};

// A token-count distribution: lognormal with this mean and standard
// deviation (stddev 0: fixed), clamped to [min, max].
struct TokenDist {
  double mean = 1000;
  double stddev = 0;
  double min = 1;
  double max = 1e6;
  [[nodiscard]] double draw(Rng& rng) const;
  // The lognormal's parameters, computed once: draw_fast() uses them.
  struct Prepared {
    double mu = 0, sigma = 0, min = 1, max = 1e6, fixed = 0;
    bool lognormal = false;
  };
  [[nodiscard]] Prepared prepare() const;
  [[nodiscard]] static double draw(const Prepared& p, Rng& rng);
};

struct SyntheticDemand {
  double rate_rps = 1;  // mean rate at t = 0 (before growth)
  double duration_hours = 24;
  double diurnal_amplitude = 0;   // 0..1: rate × (1 + A sin(2π (t/24h - phase)))
  double diurnal_peak_hour = 14;  // hour of day of the peak
  double growth_per_week = 0;     // 0.5 = +50 % a week, compounded continuously
  struct Burst {
    double start_hour = 0;
    double duration_hours = 0;
    double multiplier = 1;
  };
  std::vector<Burst> bursts;
  // Rate noise: the rate is also multiplied by an independent lognormal
  // factor of mean 1 and this coefficient of variation, constant over each
  // period of noise_period_s (a doubly stochastic Poisson process: real
  // traffic's counts vary more than Poisson's from minute to minute). The
  // factor of period k depends only on (seed, k), clamped to 4 sigma.
  double noise_cv = 0;
  double noise_period_s = 60;
  // The factor of the period holding `t_s` for `seed` (1 when noise_cv is 0),
  // and its upper clamp.
  [[nodiscard]] double noise_at(double t_s, uint64_t seed) const;
  [[nodiscard]] double noise_max() const;
  TokenDist input{1000, 0, 1, 1e6};
  TokenDist output{200, 0, 1, 1e6};
  // The rate at `t_s` seconds, without the noise factor.
  [[nodiscard]] double rate_at(double t_s) const;
  // The generator's thinning bound (Lewis & Shedler 1979), without noise:
  // the rate's largest diurnal, burst and growth factors together. It draws
  // about this x noise x duration candidates, whatever it accepts: growth of
  // 100x a week over two weeks and a 100x burst is 10^6 candidates a
  // request (the server counts them: estimate_work).
  [[nodiscard]] double thinning_rate() const;
};

// What a reader dropped, for the report ("12 rows without container_ip").
struct DropNote {
  std::string what;
  int64_t count = 0;
};

class DemandSource {
 public:
  virtual ~DemandSource() = default;
  // The next request in arrival order; false at the end. kInvalidArgument
  // (file:line: column) on a malformed row.
  [[nodiscard]] virtual Result<bool> next(Request& out) = 0;
  // What was dropped so far.
  [[nodiscard]] virtual std::vector<DropNote> drops() const { return {}; }
  // Where the requests come from ("azure-llm: FILE").
  [[nodiscard]] virtual std::string describe() const = 0;
};

// Which BurstGPT rows to replay: BurstGPT mixes ChatGPT and GPT-4 calls,
// conversation and API logs (its README and the converters that read it
// filter on both). Empty: all.
struct BurstGptFilter {
  std::string model;     // the Model column, e.g. "GPT-4"
  std::string log_type;  // the Log Type column, e.g. "Conversation log"
  [[nodiscard]] bool any() const { return !model.empty() || !log_type.empty(); }
};
// A request trace in any of the formats above (azure-llm, burstgpt,
// mooncake), told apart by its first line. `time_scale` > 1 replays faster.
// kNotFound when the file cannot be opened; kInvalidArgument naming the
// three formats when the first line is none of them, or naming the option
// (prefix_cache, burstgpt) that the file's format cannot serve.
[[nodiscard]] Result<std::unique_ptr<DemandSource>> open_request_trace(
    const std::string& path, double time_scale, const PrefixCacheSpec& cache = {},
    const BurstGptFilter& filter = {});
// The mean request rate of a trace (any format open_request_trace reads):
// its requests over the time from the first arrival to the last, and how
// many. What `estimate` and `plan` size a service by when the workload gives
// a serving.trace and no request_rate.
struct TraceRate {
  double rps = 0;
  int64_t requests = 0;
  double span_s = 0;
};
[[nodiscard]] Result<TraceRate> trace_mean_rate(const std::string& path);
// `time_scale` > 1 replays faster (arrival times divided by it).
// kNotFound when the file cannot be opened; kInvalidArgument when the header
// is not the expected one.
[[nodiscard]] Result<std::unique_ptr<DemandSource>> open_azure_llm_trace(const std::string& path,
                                                                         double time_scale);
[[nodiscard]] Result<std::unique_ptr<DemandSource>> open_alibaba_qps(
    const std::string& path, double time_scale, double bucket_s, TokenDist input, TokenDist output,
    uint64_t seed);
[[nodiscard]] std::unique_ptr<DemandSource> make_synthetic(const SyntheticDemand& spec,
                                                           double time_scale, uint64_t seed);

// One GPU job of the Alibaba GPU v2023 trace.
struct PodJob {
  double arrival_s = 0;   // creation_time
  double duration_s = 0;  // deletion_time - scheduled_time
  double gpus = 0;        // num_gpu × gpu_milli / 1000
  int line = 0;           // the row's line in the file (0: not from a file)
};
struct PodJobs {
  std::vector<PodJob> jobs;  // sorted by arrival
  std::vector<DropNote> drops;
};
// Reads job arrivals; drops (and counts) pods without scheduled_time, pods
// that use no GPU, and rows whose deletion precedes scheduling. Times are
// seconds from the trace's start (the data set's convention): a negative
// one is kInvalidArgument at its line and column name.
[[nodiscard]] Result<PodJobs> read_pod_jobs(const std::string& path);

}  // namespace gpuplan::simulate
