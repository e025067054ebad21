#include "simulate/demand.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <list>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/csv.h"
#include "core/dates.h"
#include "core/files.h"
#include "core/strings.h"

namespace gpuplan::simulate {

TokenDist::Prepared TokenDist::prepare() const {
  Prepared p;
  p.min = min;
  p.max = max;
  p.fixed = mean;
  if (stddev > 0 && mean > 0) {
    // Lognormal with the given mean and standard deviation.
    const double s2 = std::log1p((stddev * stddev) / (mean * mean));
    p.mu = std::log(mean) - s2 / 2;
    p.sigma = std::sqrt(s2);
    p.lognormal = true;
  }
  return p;
}

double TokenDist::draw(const Prepared& p, Rng& rng) {
  const double v = p.lognormal ? std::exp(p.mu + p.sigma * rng.normal()) : p.fixed;
  return std::clamp(v, p.min, p.max);
}

double TokenDist::draw(Rng& rng) const { return draw(prepare(), rng); }

double SyntheticDemand::rate_at(double t_s) const {
  constexpr double kPi = 3.141592653589793;
  const double hours = t_s / 3600.0;
  double r = rate_rps;
  if (diurnal_amplitude != 0)
    r *= 1 + diurnal_amplitude * std::cos(2 * kPi * (hours - diurnal_peak_hour) / 24.0);
  if (growth_per_week != 0) r *= std::pow(1 + growth_per_week, hours / 168.0);
  for (const Burst& b : bursts)
    if (hours >= b.start_hour && hours < b.start_hour + b.duration_hours) r *= b.multiplier;
  return std::max(r, 0.0);
}

namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double lognormal_sigma(double cv) { return std::sqrt(std::log1p(cv * cv)); }

}  // namespace

double SyntheticDemand::thinning_rate() const {
  double burst = 1;
  for (const auto& b : bursts) burst = std::max(burst, b.multiplier);
  const double growth =
      growth_per_week >= 0 ? std::pow(1 + growth_per_week, duration_hours / 168.0) : 1;
  return rate_rps * (1 + std::abs(diurnal_amplitude)) * burst * growth;
}

double SyntheticDemand::noise_max() const {
  if (noise_cv <= 0) return 1;
  const double sigma = lognormal_sigma(noise_cv);
  return std::exp(-sigma * sigma / 2 + 4 * sigma);
}

double SyntheticDemand::noise_at(double t_s, uint64_t seed) const {
  if (noise_cv <= 0) return 1;
  const auto k = static_cast<uint64_t>(std::max(0.0, std::floor(t_s / noise_period_s)));
  const uint64_t h1 = splitmix64(seed ^ splitmix64(k)), h2 = splitmix64(h1);
  const double u1 = (static_cast<double>(h1 >> 11) + 0.5) * 0x1.0p-53;
  const double u2 = static_cast<double>(h2 >> 11) * 0x1.0p-53;
  constexpr double kTwoPi = 6.283185307179586;
  const double z = std::sqrt(-2 * std::log(u1)) * std::cos(kTwoPi * u2);
  const double sigma = lognormal_sigma(noise_cv);
  return std::min(std::exp(-sigma * sigma / 2 + sigma * z), noise_max());
}

namespace {

template <typename T>
bool parse_int(std::string_view s, T& out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// "2023-11-16 18:15:46.6805900" → microseconds since the epoch (UTC). The
// Azure LLM inference traces of 2024 (DynamoLLM, HPCA 2025) write
// "2024-05-10 00:00:00.009930+00:00", and rows on a whole second drop the
// fraction ("2024-05-10 00:00:01+00:00"): an optional fraction, then an
// optional zone — Z, or +HH:MM, +HHMM, +HH (ISO 8601) — which is taken off,
// so rows written in different offsets keep their order.
bool parse_timestamp(std::string_view s, int64_t& out_us) {
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') ||
      s[13] != ':' || s[16] != ':')
    return false;
  int64_t y;
  unsigned mo, d, h, mi, se;
  if (!parse_int(s.substr(0, 4), y) || !parse_int(s.substr(5, 2), mo) ||
      !parse_int(s.substr(8, 2), d) || !parse_int(s.substr(11, 2), h) ||
      !parse_int(s.substr(14, 2), mi) || !parse_int(s.substr(17, 2), se))
    return false;
  if (mo < 1 || mo > 12 || d < 1 ||
      static_cast<int>(d) > dates::days_in_month(y, static_cast<int>(mo)) || h > 23 || mi > 59 ||
      se > 60)
    return false;  // 2024-02-30 names no day
  std::string_view rest = s.substr(19);
  int64_t frac_us = 0;
  if (!rest.empty() && rest.front() == '.') {
    size_t n = 1;
    int64_t scale = 100000;
    for (; n < rest.size() && rest[n] >= '0' && rest[n] <= '9'; ++n) {
      if (scale > 0) frac_us += (rest[n] - '0') * scale;
      scale /= 10;
    }
    if (n == 1) return false;  // "18:15:46." has no fraction
    rest.remove_prefix(n);
  }
  int64_t offset_s = 0;
  if (rest == "Z" || rest == "z") {
    rest = {};
  } else if (!rest.empty() && (rest.front() == '+' || rest.front() == '-')) {
    const int64_t sign = rest.front() == '-' ? -1 : 1;
    std::string_view z = rest.substr(1);
    unsigned oh = 0, om = 0;
    if (z.size() == 5 && z[2] == ':') {
      if (!parse_int(z.substr(0, 2), oh) || !parse_int(z.substr(3, 2), om)) return false;
    } else if (z.size() == 4) {
      if (!parse_int(z.substr(0, 2), oh) || !parse_int(z.substr(2, 2), om)) return false;
    } else if (z.size() == 2) {
      if (!parse_int(z, oh)) return false;
    } else {
      return false;
    }
    if (oh > 23 || om > 59) return false;
    offset_s = sign * (static_cast<int64_t>(oh) * 3600 + static_cast<int64_t>(om) * 60);
    rest = {};
  }
  if (!rest.empty()) return false;
  out_us = ((dates::days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60 * 1'000'000LL +
           (static_cast<int64_t>(se) - offset_s) * 1'000'000LL + frac_us;
  return true;
}

// Reads a file line by line with a large buffer; tracks the line number.
// Streamed, so a trace of any length works, but one line may hold at most
// kMaxLineBytes (issue 15: a file without newlines, /dev/zero, was read into
// one string without bound). Trace rows are under 100 bytes.
class LineReader {
 public:
  static constexpr size_t kMaxLineBytes = size_t{1} << 20;
  explicit LineReader(const std::string& path) : path_(path), in_(path, std::ios::binary) {}
  bool ok() const { return in_.is_open(); }
  // The next non-blank line; false at the end; kInvalidArgument on a line
  // over the cap.
  Result<bool> next(std::string& line) {
    for (;;) {
      line.clear();
      bool any = false;
      for (;;) {
        if (pos_ == end_) {
          in_.read(buf_.data(), static_cast<std::streamsize>(buf_.size()));
          end_ = static_cast<size_t>(in_.gcount());
          pos_ = 0;
          if (end_ == 0) break;
        }
        const char* start = buf_.data() + pos_;
        const auto* nl = static_cast<const char*>(std::memchr(start, '\n', end_ - pos_));
        const size_t take = nl ? static_cast<size_t>(nl - start) : end_ - pos_;
        line.append(start, take);
        any = true;
        pos_ += take + (nl ? 1 : 0);
        if (line.size() > kMaxLineBytes)
          return invalid_argument(
              "a line longer than 1 MiB (trace rows are short; is this a trace?)",
              Where{path_, line_no_ + 1, 0, ""});
        if (nl) break;
      }
      if (!any) return false;
      ++line_no_;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      // A UTF-8 byte order mark, which spreadsheet exports put before the
      // header, is not part of it.
      if (line_no_ == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
      if (!strings::trim(line).empty()) return true;
    }
  }
  int line() const { return line_no_; }

 private:
  std::string path_;
  std::vector<char> buf_ = std::vector<char>(1 << 16);
  size_t pos_ = 0, end_ = 0;
  std::ifstream in_;
  int line_no_ = 0;
};

// The longest span a trace may cover once replayed: a year. Published traces
// span a week (Azure LLM inference 2023) to two months (Alibaba GPU cluster
// 2023); the timeline and the fleet's rows grow with the span, and timestamps
// from 1970 to 9999 once asked for a timeline of 8,000 years (bad_alloc).
constexpr SimTime kMaxTraceSpanUs = SimTime{366} * 24 * 3600 * 1'000'000;

// Arrival times of a request trace: relative to its first row, divided by
// the time scale; a row earlier than the one before is held at that one's
// time (counted); a replay spans at most kMaxTraceSpanUs.
class RequestClock {
 public:
  explicit RequestClock(double time_scale) : time_scale_(time_scale) {}
  Status place(int64_t ts_us, int64_t input, int64_t output, Request& out, const Where& at) {
    if (first_ == kUnset) first_ = ts_us;
    int64_t rel = ts_us - first_;
    if (rel < last_) {
      ++reordered_;
      rel = last_;
    }
    last_ = rel;
    const double arrival = static_cast<double>(rel) / time_scale_;
    if (arrival > static_cast<double>(kMaxTraceSpanUs))
      return invalid_argument("this row is more than a year of replay after the first (" +
                                  std::to_string(rel / 86'400'000'000LL) +
                                  " days); a replay covers at most 366 days",
                              at);
    out.arrival = static_cast<SimTime>(arrival);
    out.input_tokens = static_cast<float>(std::max<int64_t>(input, 1));
    out.output_tokens = static_cast<float>(output);
    return {};
  }
  std::vector<DropNote> drops() const {
    if (!reordered_) return {};
    return {{"rows earlier than the row before (held at its time)", reordered_}};
  }

 private:
  static constexpr int64_t kUnset = std::numeric_limits<int64_t>::min();
  double time_scale_;
  int64_t first_ = kUnset, last_ = 0, reordered_ = 0;
};

// What the three request-trace readers share: the file read line by line,
// the relative clock, the current line (for column numbers in errors).
class LineTrace : public DemandSource {
 public:
  std::vector<DropNote> drops() const override { return clock_.drops(); }

 protected:
  LineTrace(std::string path, double time_scale)
      : path_(std::move(path)), reader_(path_), clock_(time_scale) {}
  // Opens the file and reads its first line into `header` when given.
  Status open_file(std::string* header) {
    if (!reader_.ok()) return not_found("cannot open the trace", Where{path_, 0, 0, ""});
    if (!header) return {};
    GPUPLAN_TRY(bool any, reader_.next(*header));
    if (!any) return invalid_argument("empty trace", Where{path_, 1, 0, ""});
    return {};
  }
  std::string path_;
  LineReader reader_;
  RequestClock clock_;
  std::string line_;
};

class AzureLlmTrace final : public LineTrace {
 public:
  AzureLlmTrace(std::string path, double time_scale) : LineTrace(std::move(path), time_scale) {}
  Status open() {
    std::string header;
    GPUPLAN_RETURN_IF_ERROR(open_file(&header));
    if (strings::trim(header) != "TIMESTAMP,ContextTokens,GeneratedTokens")
      return invalid_argument(
          "expected the header TIMESTAMP,ContextTokens,GeneratedTokens (Azure LLM trace)",
          Where{path_, reader_.line(), 1, "header"});
    return {};
  }
  Result<bool> next(Request& out) override {
    GPUPLAN_TRY(bool more, reader_.next(line_));
    if (!more) return false;
    const size_t c1 = line_.find(',');
    const size_t c2 = c1 == std::string::npos ? c1 : line_.find(',', c1 + 1);
    if (c2 == std::string::npos)
      return invalid_argument("expected 3 fields", Where{path_, reader_.line(), 1, ""});
    std::string_view sv(line_);
    int64_t ts = 0;
    if (!parse_timestamp(strings::trim(sv.substr(0, c1)), ts))
      return invalid_argument(
          "expected a time like 2023-11-16 18:15:46.6805900 or 2024-05-10 00:00:00.009930+00:00",
          Where{path_, reader_.line(), 1, "TIMESTAMP"});
    int64_t in = 0, outt = 0;
    if (!parse_int(strings::trim(sv.substr(c1 + 1, c2 - c1 - 1)), in) || in < 0)
      return invalid_argument(
          "expected a token count >= 0",
          Where{path_, reader_.line(), static_cast<int>(c1 + 2), "ContextTokens"});
    if (!parse_int(strings::trim(sv.substr(c2 + 1)), outt) || outt < 0)
      return invalid_argument(
          "expected a token count >= 0",
          Where{path_, reader_.line(), static_cast<int>(c2 + 2), "GeneratedTokens"});
    // The Mooncake reader's bound: 2^31 prompt tokens in one row simulated
    // 66 hours of one prefill.
    if (in > 1000000000 || outt > 1000000000)
      return invalid_argument(
          "more than 10^9 tokens in one request",
          Where{path_, reader_.line(), static_cast<int>((in > 1000000000 ? c1 : c2) + 2),
                in > 1000000000 ? "ContextTokens" : "GeneratedTokens"});
    if (outt == 0) {
      ++zero_output_;
      outt = 1;
    }
    GPUPLAN_RETURN_IF_ERROR(
        clock_.place(ts, in, outt, out, Where{path_, reader_.line(), 1, "TIMESTAMP"}));
    return true;
  }
  std::vector<DropNote> drops() const override {
    std::vector<DropNote> d = LineTrace::drops();
    if (zero_output_) d.push_back({"rows with 0 generated tokens (counted as 1)", zero_output_});
    return d;
  }
  std::string describe() const override { return "azure-llm: " + path_; }

 private:
  int64_t zero_output_ = 0;
};

// BurstGPT (HPMLL/BurstGPT, Wang et al., arXiv:2401.17644: two months of
// ChatGPT and GPT-4 calls on Azure OpenAI): `Timestamp,Model,Request tokens,
// Response tokens,Total tokens,Log Type`, Timestamp in seconds from the
// trace's start. Columns are found by name (exports reorder them). A row
// with 0 response tokens is a failed call in the releases "with fails": it
// is dropped and counted.
class BurstGptTrace final : public LineTrace {
 public:
  BurstGptTrace(std::string path, double time_scale, BurstGptFilter filter)
      : LineTrace(std::move(path), time_scale), filter_(std::move(filter)) {}
  Status open() {
    std::string header;
    GPUPLAN_RETURN_IF_ERROR(open_file(&header));
    const std::vector<std::string> names = split_row(header);
    columns_ = names.size();
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == "Timestamp") ts_col_ = i;
      if (names[i] == "Request tokens") in_col_ = i;
      if (names[i] == "Response tokens") out_col_ = i;
      if (names[i] == "Model") model_col_ = i;
      if (names[i] == "Log Type") log_col_ = i;
    }
    if ((!filter_.model.empty() && model_col_ == kNone) ||
        (!filter_.log_type.empty() && log_col_ == kNone))
      return invalid_argument(
          "the filter reads the columns Model and Log Type, which this file lacks",
          Where{path_, reader_.line(), 1, "header"});
    if (ts_col_ == kNone || in_col_ == kNone || out_col_ == kNone)
      return invalid_argument(
          "expected the columns Timestamp, Request tokens and Response tokens (BurstGPT)",
          Where{path_, reader_.line(), 1, "header"});
    return {};
  }
  Result<bool> next(Request& out) override {
    for (;;) {
      GPUPLAN_TRY(bool more, reader_.next(line_));
      if (!more) return false;
      const std::vector<std::string> f = split_row(line_);
      if (f.size() != columns_)
        return invalid_argument(
            "expected " + std::to_string(columns_) + " fields, found " + std::to_string(f.size()),
            Where{path_, reader_.line(), 1, ""});
      const std::optional<double> t_s = strings::parse_double(f[ts_col_]);
      if (!t_s || *t_s < 0)
        return invalid_argument("expected seconds >= 0",
                                Where{path_, reader_.line(), column_of(ts_col_), "Timestamp"});
      int64_t in = 0, outt = 0;
      if (!parse_int(f[in_col_], in) || in < 0)
        return invalid_argument("expected a token count >= 0",
                                Where{path_, reader_.line(), column_of(in_col_), "Request tokens"});
      if (!parse_int(f[out_col_], outt) || outt < 0)
        return invalid_argument(
            "expected a token count >= 0",
            Where{path_, reader_.line(), column_of(out_col_), "Response tokens"});
      if (in > 1000000000 || outt > 1000000000)  // as the Azure and Mooncake readers
        return invalid_argument(
            "more than 10^9 tokens in one request",
            Where{path_, reader_.line(), column_of(in > 1000000000 ? in_col_ : out_col_),
                  in > 1000000000 ? "Request tokens" : "Response tokens"});
      if (*t_s > 1e12)  // 30,000 years: no trace; keeps the microseconds finite
        return invalid_argument("expected seconds from the trace's start",
                                Where{path_, reader_.line(), column_of(ts_col_), "Timestamp"});
      if ((!filter_.model.empty() && f[model_col_] != filter_.model) ||
          (!filter_.log_type.empty() && f[log_col_] != filter_.log_type)) {
        ++filtered_;
        continue;
      }
      if (outt == 0) {
        ++failed_;
        continue;
      }
      GPUPLAN_RETURN_IF_ERROR(
          clock_.place(static_cast<int64_t>(std::llround(*t_s * 1e6)), in, outt, out,
                       Where{path_, reader_.line(), column_of(ts_col_), "Timestamp"}));
      return true;
    }
  }
  std::vector<DropNote> drops() const override {
    std::vector<DropNote> d = LineTrace::drops();
    if (failed_) d.push_back({"failed calls (0 response tokens), dropped", failed_});
    if (filtered_)
      d.push_back({"rows of another model or log type (demand.burstgpt), left out", filtered_});
    return d;
  }
  std::string describe() const override { return "burstgpt: " + path_; }

 private:
  static constexpr size_t kNone = static_cast<size_t>(-1);
  // Fields split at commas, blanks and outer quotes removed (BurstGPT's
  // fields hold no commas).
  static std::vector<std::string> split_row(std::string_view line) {
    std::vector<std::string> out = strings::split(line, ',');
    for (std::string& f : out) {
      std::string_view v = strings::trim(f);
      if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
      f = std::string(v);
    }
    return out;
  }
  // The 1-based character column where field i starts.
  int column_of(size_t i) const {
    size_t pos = 0;
    for (size_t k = 0; k < i && pos != std::string::npos; ++k) {
      pos = line_.find(',', pos);
      if (pos != std::string::npos) ++pos;
    }
    return pos == std::string::npos ? 1 : static_cast<int>(pos) + 1;
  }
  BurstGptFilter filter_;
  size_t columns_ = 0, ts_col_ = kNone, in_col_ = kNone, out_col_ = kNone;
  size_t model_col_ = kNone, log_col_ = kNone;
  int64_t failed_ = 0, filtered_ = 0;
};

// The fleet's shared prefix cache over prompt block ids (PrefixCacheSpec):
// least recently used out, past the capacity in blocks.
class PrefixCache {
 public:
  explicit PrefixCache(const PrefixCacheSpec& spec)
      : block_tokens_(spec.block_tokens),
        capacity_(static_cast<size_t>(
            std::max(0.0, std::floor(spec.capacity_tokens / spec.block_tokens)))) {}
  // The leading blocks of `ids` held now; then every id of them becomes the
  // most recent.
  size_t lookup_and_insert(const std::vector<int64_t>& ids) {
    size_t hits = 0;
    while (hits < ids.size() && index_.count(ids[hits])) ++hits;
    for (int64_t id : ids) {
      if (capacity_ == 0) break;
      auto it = index_.find(id);
      if (it != index_.end()) {
        order_.splice(order_.begin(), order_, it->second);
        continue;
      }
      order_.push_front(id);
      index_.emplace(id, order_.begin());
      if (order_.size() > capacity_) {
        index_.erase(order_.back());
        order_.pop_back();
      }
    }
    return hits;
  }
  [[nodiscard]] double block_tokens() const { return block_tokens_; }

 private:
  double block_tokens_;
  size_t capacity_;
  std::list<int64_t> order_;  // most recent first
  std::unordered_map<int64_t, std::list<int64_t>::iterator> index_;
};

// Mooncake (kvcache-ai/Mooncake, FAST'25; the trace format NVIDIA Dynamo's
// and AIPerf's trace replays read): JSON lines `{"timestamp": ms since the
// first request, "input_length": n, "output_length": n, "hash_ids": [...]}`.
// With a prefix cache, hash_ids (one id per prompt block; equal ids, equal
// prefixes) say how much of each prompt the cache holds; without one, every
// prompt is prefilled in full.
class MooncakeTrace final : public LineTrace {
 public:
  MooncakeTrace(std::string path, double time_scale, const PrefixCacheSpec& cache)
      : LineTrace(std::move(path), time_scale) {
    if (cache.enabled) cache_.emplace(cache);
  }
  Status open() { return open_file(nullptr); }
  Result<bool> next(Request& out) override {
    GPUPLAN_TRY(bool more, reader_.next(line_));
    if (!more) return false;
    const Where at{path_, reader_.line(), 1, ""};
    // A key given twice on a line is an error, as in every JSON read.
    auto parsed = files::parse_json_unique_keys(line_, path_);
    if (!parsed && !parsed.error().where.field.empty())
      return invalid_argument(parsed.error().message,
                              Where{path_, at.line, 1, parsed.error().where.field});
    if (!parsed || !parsed->is_object())
      return invalid_argument("expected one JSON object per line (Mooncake trace)", at);
    const nlohmann::json& j = *parsed;
    const auto number = [&](const char* key, bool required, double fallback) -> Result<double> {
      const auto it = j.find(key);
      if (it == j.end()) {
        if (required) return invalid_argument("missing", Where{path_, at.line, 1, key});
        return fallback;
      }
      if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0)
        return invalid_argument("expected a number >= 0", Where{path_, at.line, 1, key});
      return it->get<double>();
    };
    GPUPLAN_TRY(const double t_ms, number("timestamp", true, 0));
    GPUPLAN_TRY(const double in, number("input_length", true, 0));
    GPUPLAN_TRY(double outt, number("output_length", false, 1));
    if (t_ms > 1e15)
      return invalid_argument("expected milliseconds since the first request",
                              Where{path_, at.line, 1, "timestamp"});
    if (in > 1e9 || outt > 1e9) return invalid_argument("more than 10^9 tokens in one request", at);
    if (outt < 1) {
      ++zero_output_;
      outt = 1;
    }
    GPUPLAN_RETURN_IF_ERROR(clock_.place(static_cast<int64_t>(std::llround(t_ms * 1e3)),
                                         static_cast<int64_t>(in), static_cast<int64_t>(outt), out,
                                         Where{path_, at.line, 1, "timestamp"}));
    out.cached_tokens = 0;
    if (cache_) {
      const auto it = j.find("hash_ids");
      if (it == j.end() || !it->is_array())
        return invalid_argument("expected an array of prompt block ids (the prefix cache reads it)",
                                Where{path_, at.line, 1, "hash_ids"});
      ids_.clear();
      for (const auto& id : *it) {
        if (!id.is_number_integer())
          return invalid_argument("expected integer block ids",
                                  Where{path_, at.line, 1, "hash_ids"});
        ids_.push_back(id.get<int64_t>());
      }
      const double hit =
          static_cast<double>(cache_->lookup_and_insert(ids_)) * cache_->block_tokens();
      out.cached_tokens = static_cast<float>(std::min(hit, std::max(0.0, out.input_tokens - 1.0)));
    }
    return true;
  }
  std::vector<DropNote> drops() const override {
    std::vector<DropNote> d = LineTrace::drops();
    if (zero_output_) d.push_back({"rows with 0 output tokens (counted as 1)", zero_output_});
    return d;
  }
  std::string describe() const override { return "mooncake: " + path_; }

 private:
  int64_t zero_output_ = 0;
  std::optional<PrefixCache> cache_;
  std::vector<int64_t> ids_;
};

class AlibabaQps final : public DemandSource {
 public:
  AlibabaQps(std::string path, double time_scale, double bucket_s, TokenDist in, TokenDist out,
             uint64_t seed)
      : path_(std::move(path)),
        reader_(path_),
        time_scale_(time_scale),
        bucket_us_(static_cast<int64_t>(bucket_s * 1e6)),
        in_(in),
        out_(out),
        rng_(seed) {}
  Status open() {
    if (!reader_.ok()) return not_found("cannot open the trace", Where{path_, 0, 0, ""});
    std::string header;
    GPUPLAN_TRY(bool any, reader_.next(header));
    if (!any) return invalid_argument("empty trace", Where{path_, 1, 0, ""});
    if (strings::trim(header) != "timestamp_anon,value,container_ip,request_type")
      return invalid_argument("expected the header timestamp_anon,value,container_ip,request_type",
                              Where{path_, reader_.line(), 1, "header"});
    return {};
  }
  Result<bool> next(Request& out) override {
    for (;;) {
      if (pending_ > 0) {
        --pending_;
        // Uniform order statistics drawn one at a time, ascending.
        cursor_ += (1.0 - cursor_) *
                   (1.0 - std::pow(rng_.uniform(), 1.0 / static_cast<double>(pending_ + 1)));
        out.arrival = static_cast<SimTime>(static_cast<double>(bucket_start_) / time_scale_ +
                                           cursor_ * static_cast<double>(bucket_us_) / time_scale_);
        out.input_tokens = static_cast<float>(in_.draw(rng_));
        out.output_tokens = static_cast<float>(out_.draw(rng_));
        return true;
      }
      GPUPLAN_TRY(bool more, advance_bucket());
      if (!more) return false;
    }
  }
  std::vector<DropNote> drops() const override {
    std::vector<DropNote> d;
    if (no_ip_) d.push_back({"rows without container_ip", no_ip_});
    return d;
  }
  std::string describe() const override { return "alibaba-qps: " + path_; }

 private:
  // Reads rows up to the end of the next bucket; sets pending_ arrivals.
  Result<bool> advance_bucket() {
    if (done_) return false;
    if (bucket_start_ < 0) {
      GPUPLAN_TRY(bool ok, read_row());
      if (!ok) return false;
      origin_ = row_t_;
      bucket_start_ = -bucket_us_;
    }
    bucket_start_ += bucket_us_;
    const int64_t end = origin_ + bucket_start_ + bucket_us_;
    while (have_row_ && row_t_ < end) {
      if (!row_ip_.empty()) latest_[row_ip_] = row_v_;
      GPUPLAN_TRY(bool ok, read_row());
      if (!ok) break;
    }
    if (!have_row_) done_ = true;
    double sum = 0;
    for (const auto& [ip, v] : latest_) sum += v;
    pending_ = static_cast<int64_t>(rng_.poisson(sum * static_cast<double>(bucket_us_) * 1e-6));
    cursor_ = 0;
    return true;
  }
  Result<bool> read_row() {
    have_row_ = false;
    GPUPLAN_TRY(bool more, reader_.next(line_));
    if (!more) return false;
    auto f = strings::split(line_, ',');
    if (f.size() != 4)
      return invalid_argument("expected 4 fields", Where{path_, reader_.line(), 1, ""});
    auto t = strings::parse_double(strings::trim(f[0]));
    auto v = strings::parse_double(strings::trim(f[1]));
    // Seconds within +-1e12 (31,700 years) convert to microseconds exactly
    // enough and without overflow; the span check below is the real bound.
    if (!t || std::fabs(*t) > 1e12)
      return invalid_argument("expected seconds",
                              Where{path_, reader_.line(), 1, "timestamp_anon"});
    // A rate above 1e7 requests/s for one container is no service's; larger
    // values overflowed the arrival count.
    if (!v || *v < 0 || *v > 1e7)
      return invalid_argument("expected a rate from 0 to 1e7 requests/s",
                              Where{path_, reader_.line(), 0, "value"});
    row_t_ = static_cast<int64_t>(*t * 1e6);
    if (!first_t_) first_t_ = row_t_;
    if (static_cast<double>(row_t_ - *first_t_) / time_scale_ >
        static_cast<double>(kMaxTraceSpanUs))
      return invalid_argument(
          "this row is more than a year of replay after the first; a replay "
          "covers at most 366 days",
          Where{path_, reader_.line(), 1, "timestamp_anon"});
    if (row_t_ < last_t_)
      return invalid_argument("rows must be in time order",
                              Where{path_, reader_.line(), 1, "timestamp_anon"});
    last_t_ = row_t_;
    row_v_ = *v;
    row_ip_ = std::string(strings::trim(f[2]));
    if (row_ip_.empty()) ++no_ip_;
    have_row_ = true;
    return true;
  }
  std::string path_;
  LineReader reader_;
  double time_scale_;
  int64_t bucket_us_;
  TokenDist in_, out_;
  Rng rng_;
  std::string line_;
  std::map<std::string, double> latest_;  // one entry per container: bounded by the fleet
  std::optional<int64_t> first_t_;
  int64_t origin_ = 0, bucket_start_ = -1, pending_ = 0, no_ip_ = 0, row_t_ = 0,
          last_t_ = INT64_MIN;
  double row_v_ = 0, cursor_ = 0;
  std::string row_ip_;
  bool have_row_ = false, done_ = false;
};

class Synthetic final : public DemandSource {
 public:
  Synthetic(const SyntheticDemand& spec, double time_scale, uint64_t seed)
      : spec_(spec),
        time_scale_(time_scale),
        rng_(seed),
        in_(spec.input.prepare()),
        out_(spec.output.prepare()) {
    // Thinning (Lewis & Shedler 1979) against an upper bound of the rate.
    const double amp = std::abs(spec.diurnal_amplitude);
    const double weeks = spec.duration_hours / 168.0;
    const double growth = spec.growth_per_week >= 0 ? std::pow(1 + spec.growth_per_week, weeks) : 1;
    max_rate_ = spec.thinning_rate();
    bound_ = max_rate_;
    noise_seed_ = splitmix64(seed ^ 0x6e6f697365ULL);  // independent of the arrival stream
    end_s_ = spec.duration_hours * 3600;
    // A bound on |d rate / dt| (per second) for the thinning shortcut:
    // rate = r D(t) G(t), D = 1 + A cos(2 pi t / 24 h), G = (1 + g)^(t / 168 h);
    // |(DG)'| <= |D'| max G + max D |G'|. Bursts and noise are steps: they
    // divide the candidate instead (u <= smooth x m  <=>  u / m <= smooth).
    constexpr double kTwoPi = 6.283185307179586;
    const double g = spec.growth_per_week;
    if (g > -1 && max_rate_ > 0) {
      const double g_max = std::max(1.0, growth);
      lip_ = 1.001 * std::abs(spec.rate_rps) * g_max *
             (amp * kTwoPi / 86400 + (1 + amp) * std::abs(std::log1p(g)) / (168 * 3600.0));
      slack_ = 1e-9 * max_rate_;
    }
  }
  Result<bool> next(Request& out) override {
    if (max_rate_ <= 0) return false;
    const bool noisy = spec_.noise_cv > 0;
    if (noisy && noise_k_ < 0) enter_period(0);
    for (;;) {
      const double dt = rng_.exponential(1.0 / bound_);
      // Thinning against a bound per noise period: at a period's end the
      // clock restarts there (exact: exponential gaps are memoryless).
      if (noisy && t_s_ + dt >= period_end_) {
        t_s_ = period_end_;
        if (t_s_ >= end_s_) return false;
        enter_period(noise_k_ + 1);
        continue;
      }
      t_s_ += dt;
      if (t_s_ >= end_s_) return false;
      const double u = rng_.uniform() * bound_;
      double m = noisy ? noise_ : 1;
      for (const auto& b : spec_.bursts)
        if (t_s_ >= b.start_hour * 3600 && t_s_ < (b.start_hour + b.duration_hours) * 3600)
          m *= b.multiplier;
      if (m > 0 && accept(m == 1 ? u : u / m)) break;
    }
    out.arrival = static_cast<SimTime>(t_s_ * 1e6 / time_scale_);
    out.input_tokens = static_cast<float>(TokenDist::draw(in_, rng_));
    out.output_tokens = static_cast<float>(TokenDist::draw(out_, rng_));
    return true;
  }
  std::string describe() const override { return "synthetic"; }

 private:
  void enter_period(int64_t k) {
    noise_k_ = k;
    period_end_ = static_cast<double>(k + 1) * spec_.noise_period_s;
    noise_ = spec_.noise_at(static_cast<double>(k) * spec_.noise_period_s, noise_seed_);
    bound_ = max_rate_ * noise_;
  }
  // The rate without bursts and noise (they divide the candidate instead).
  double smooth_at(double t_s) const {
    constexpr double kPi = 3.141592653589793;
    const double hours = t_s / 3600.0;
    double r = spec_.rate_rps;
    if (spec_.diurnal_amplitude != 0)
      r *= 1 +
           spec_.diurnal_amplitude * std::cos(2 * kPi * (hours - spec_.diurnal_peak_hour) / 24.0);
    if (spec_.growth_per_week != 0) r *= std::pow(1 + spec_.growth_per_week, hours / 168.0);
    return std::max(r, 0.0);
  }
  // Thinning accepts a candidate at t when u <= rate(t). Within a window of
  // kWindowS seconds after t0 the rate stays within lip_ * (t - t0) of
  // rate(t0), so a u clearly below or above that band decides without
  // evaluating cos and pow — the same decision, hence the same stream, as
  // the exact test, which runs only inside the band (~0.2 % of candidates
  // for a 30 % diurnal swing). slack_ covers rounding in rate_at().
  static constexpr double kWindowS = 60;
  bool accept(double u) {
    if (lip_ < 0) return u <= smooth_at(t_s_);
    if (t_s_ >= win_end_) {
      win_t0_ = t_s_;
      win_end_ = t_s_ + kWindowS;
      win_rate_ = smooth_at(t_s_);
    }
    const double band = lip_ * (t_s_ - win_t0_) + slack_;
    if (u <= win_rate_ - band) return true;
    if (u > win_rate_ + band) return false;
    return u <= smooth_at(t_s_);
  }

  SyntheticDemand spec_;
  double time_scale_;
  Rng rng_;
  TokenDist::Prepared in_, out_;
  double max_rate_ = 0, end_s_ = 0, t_s_ = 0;
  double lip_ = -1, slack_ = 0;  // lip_ < 0: no shortcut
  double win_t0_ = 0, win_end_ = -1, win_rate_ = 0;
  uint64_t noise_seed_ = 0;
  int64_t noise_k_ = -1;
  double noise_ = 1, bound_ = 0, period_end_ = 0;
};

}  // namespace

Result<std::unique_ptr<DemandSource>> open_azure_llm_trace(const std::string& path,
                                                           double time_scale) {
  auto src = std::make_unique<AzureLlmTrace>(path, time_scale);
  GPUPLAN_RETURN_IF_ERROR(src->open());
  return std::unique_ptr<DemandSource>(std::move(src));
}

Result<std::unique_ptr<DemandSource>> open_request_trace(const std::string& path, double time_scale,
                                                         const PrefixCacheSpec& cache,
                                                         const BurstGptFilter& filter) {
  std::string first;
  {
    LineReader sniff(path);
    if (!sniff.ok()) return not_found("cannot open the trace", Where{path, 0, 0, ""});
    GPUPLAN_TRY(bool any, sniff.next(first));
    if (!any) return invalid_argument("empty trace", Where{path, 1, 0, ""});
  }
  const std::string_view head = strings::trim(first);
  const bool mooncake = !head.empty() && head.front() == '{';
  const bool burstgpt = !mooncake && head.find("Request tokens") != std::string_view::npos;
  if (filter.any() && !burstgpt)
    return invalid_argument("demand.burstgpt filters a BurstGPT trace; this file is another format",
                            Where{path, 1, 1, "burstgpt"});
  if (mooncake) {
    auto src = std::make_unique<MooncakeTrace>(path, time_scale, cache);
    GPUPLAN_RETURN_IF_ERROR(src->open());
    return std::unique_ptr<DemandSource>(std::move(src));
  }
  if (cache.enabled)
    return invalid_argument(
        "the prefix cache needs a trace that names its prompt blocks (Mooncake's hash_ids)",
        Where{path, 1, 1, "prefix_cache"});
  if (burstgpt) {
    auto src = std::make_unique<BurstGptTrace>(path, time_scale, filter);
    GPUPLAN_RETURN_IF_ERROR(src->open());
    return std::unique_ptr<DemandSource>(std::move(src));
  }
  if (head.rfind("TIMESTAMP", 0) == 0) return open_azure_llm_trace(path, time_scale);
  return invalid_argument(
      "not a request trace this reader knows: expected the header "
      "TIMESTAMP,ContextTokens,GeneratedTokens (Azure LLM inference), a header with Timestamp, "
      "Request tokens and Response tokens (BurstGPT), or JSON lines with timestamp, "
      "input_length and output_length (Mooncake)",
      Where{path, 1, 1, "header"});
}

Result<std::unique_ptr<DemandSource>> open_alibaba_qps(const std::string& path, double time_scale,
                                                       double bucket_s, TokenDist input,
                                                       TokenDist output, uint64_t seed) {
  auto src = std::make_unique<AlibabaQps>(path, time_scale, bucket_s, input, output, seed);
  GPUPLAN_RETURN_IF_ERROR(src->open());
  return std::unique_ptr<DemandSource>(std::move(src));
}

std::unique_ptr<DemandSource> make_synthetic(const SyntheticDemand& spec, double time_scale,
                                             uint64_t seed) {
  return std::make_unique<Synthetic>(spec, time_scale, seed);
}

Result<PodJobs> read_pod_jobs(const std::string& path) {
  GPUPLAN_TRY(csv::Table table, csv::read_file(path));
  PodJobs out;
  int64_t no_sched = 0, no_gpu = 0, bad_order = 0;
  for (const csv::Row& row : table.rows) {
    csv::RowReader r(table, row);
    GPUPLAN_TRY(double created, r.number("creation_time"));
    GPUPLAN_TRY(auto sched, r.optional_number("scheduled_time"));
    GPUPLAN_TRY(auto deleted, r.optional_number("deletion_time"));
    GPUPLAN_TRY(double num_gpu, r.number("num_gpu"));
    GPUPLAN_TRY(double gpu_milli, r.number("gpu_milli"));
    // Seconds from the trace's start: one before it was dropped silently
    // (-1e18 s, a pod of 3e10 years, billed as 100 s).
    for (const auto& [column, t] :
         {std::pair<const char*, std::optional<double>>{"creation_time", created},
          {"scheduled_time", sched},
          {"deletion_time", deleted}}) {
      if (t && *t < 0)
        return invalid_argument(strings::general(*t) +
                                    " s is before the trace's start: times are seconds from it, "
                                    "0 or more",
                                r.where(column));
    }
    if (!sched || !deleted) {
      ++no_sched;
      continue;
    }
    if (num_gpu <= 0 || gpu_milli <= 0) {
      ++no_gpu;
      continue;
    }
    if (*deleted < *sched) {
      ++bad_order;
      continue;
    }
    out.jobs.push_back({created, *deleted - *sched, num_gpu * gpu_milli / 1000.0, r.line()});
  }
  std::stable_sort(out.jobs.begin(), out.jobs.end(),
                   [](const PodJob& a, const PodJob& b) { return a.arrival_s < b.arrival_s; });
  if (no_sched) out.drops.push_back({"pods without scheduled_time or deletion_time", no_sched});
  if (no_gpu) out.drops.push_back({"pods that use no GPU", no_gpu});
  if (bad_order) out.drops.push_back({"pods deleted before they were scheduled", bad_order});
  return out;
}

Result<TraceRate> trace_mean_rate(const std::string& path) {
  GPUPLAN_TRY(auto src, open_request_trace(path, 1));
  TraceRate out;
  Request r;
  SimTime first = 0, last = 0;
  for (;;) {
    GPUPLAN_TRY(const bool more, src->next(r));
    if (!more) break;
    if (out.requests == 0) first = r.arrival;
    last = r.arrival;
    ++out.requests;
  }
  if (out.requests < 2 || last <= first)
    return invalid_argument("the trace needs requests at two or more times to give a rate",
                            Where{path});
  out.span_s = to_seconds(last - first);
  out.rps = static_cast<double>(out.requests) / out.span_s;
  return out;
}

}  // namespace gpuplan::simulate
