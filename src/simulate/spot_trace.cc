#include "simulate/spot_trace.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <functional>
#include <optional>
#include <string_view>

#include "core/files.h"
#include "core/strings.h"
#include "cost/cost.h"

namespace gpuplan::simulate {

double SpotTrace::availability() const {
  if (available.empty()) return 0;
  int64_t up = 0;
  for (uint8_t v : available) up += v;
  return static_cast<double>(up) / static_cast<double>(available.size());
}

namespace {

// Reads a trace with nlohmann's SAX interface, straight into one byte per
// step (issue 13: a year at a 30 s step is ~1 M points; a DOM of it held
// ~50 bytes per value). Only metadata.gap_seconds and the data array's
// values are kept; anything else is skipped. Errors keep the DOM reader's
// messages and fields; a syntax error carries its byte offset, turned into
// line:column by the caller.
class TraceSax final : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit TraceSax(SpotTrace& t) : t_(t) {}

  bool null() override { return value(Kind::kOther, 0); }
  bool boolean(bool) override { return value(Kind::kOther, 0); }
  bool number_integer(number_integer_t v) override {
    return value(Kind::kNumber, static_cast<double>(v));
  }
  bool number_unsigned(number_unsigned_t v) override {
    return value(Kind::kNumber, static_cast<double>(v));
  }
  bool number_float(number_float_t v, const string_t&) override { return value(Kind::kNumber, v); }
  bool string(string_t&) override { return value(Kind::kOther, 0); }
  bool binary(binary_t&) override { return value(Kind::kOther, 0); }
  bool start_object(std::size_t) override {
    if (in_data()) return fail_data_value();
    open_.push_back({false, key_, {}});
    key_.clear();
    return true;
  }
  bool key(string_t& k) override {
    // A key given twice ("data" twice once replayed the second array):
    // which one is meant is a guess, as in every JSON gpuplan reads.
    if (!open_.empty()) {
      std::vector<std::string>& seen = open_.back().keys;
      if (std::find(seen.begin(), seen.end(), k) != seen.end()) {
        error = invalid_argument("key given twice in one object (which one is meant is a guess)",
                                 Where{t_.file, 0, 0, k})
                    .value();
        return false;
      }
      seen.push_back(k);
    }
    key_ = k;
    return true;
  }
  bool end_object() override {
    open_.pop_back();
    after_value();
    return true;
  }
  bool start_array(std::size_t) override {
    if (in_data()) return fail_data_value();
    if (open_.size() == 1 && key_ == "data") data_open_ = true;
    open_.push_back({true, key_, {}});
    key_.clear();
    return true;
  }
  bool end_array() override {
    if (open_.size() == 2 && open_.back().key == "data" && !open_.front().array) data_open_ = false;
    open_.pop_back();
    after_value();
    return true;
  }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    syntax_byte_ = position;
    syntax_message_ = ex.what();
    return false;
  }

  bool root_object = false;      // the document is an object
  bool saw_data = false;         // a "data" array at the top level
  bool saw_gap = false;          // metadata.gap_seconds was a number
  std::optional<Error> error;    // a value the trace cannot hold
  std::size_t syntax_byte_ = 0;  // where a syntax error is (1-based byte)
  std::string syntax_message_;   // nlohmann's message for it

 private:
  enum class Kind { kNumber, kOther };
  struct Open {
    bool array;
    std::string key;                // the key this container is the value of
    std::vector<std::string> keys;  // an object's keys so far
  };

  bool in_data() const { return data_open_ && open_.size() == 2; }
  bool fail_data_value() {
    error = invalid_argument("expected a count >= 0 of instances that could not be had",
                             Where{t_.file, 0, 0, "data[" + std::to_string(index_) + "]"})
                .value();
    return false;
  }
  void after_value() {
    if (open_.empty()) return;
    if (open_.size() == 1 && !open_.front().array) root_object = true;
  }
  bool value(Kind kind, double v) {
    if (open_.empty()) return true;  // a bare scalar document: not an object
    if (in_data()) {
      saw_data = true;
      if (kind != Kind::kNumber || !(v >= 0) || v != std::floor(v)) return fail_data_value();
      t_.available.push_back(v == 0 ? 1 : 0);
      ++index_;
      return true;
    }
    if (open_.size() == 2 && !open_.front().array && open_.back().key == "metadata" &&
        !open_.back().array && key_ == "gap_seconds") {
      saw_gap = kind == Kind::kNumber;
      if (saw_gap) t_.gap_seconds = v;
    }
    return true;
  }

  SpotTrace& t_;
  std::vector<Open> open_;
  std::string key_;
  bool data_open_ = false;
  int64_t index_ = 0;
};

// After sax_parse: the trace, or the error naming the file and field.
// `text` gives the document for a syntax error's line:column (only then is a
// streamed file read whole).
Result<SpotTrace> finish_trace(SpotTrace t, TraceSax& sax, bool parsed,
                               const std::function<Result<std::string>()>& text) {
  if (sax.error) return tl::unexpected(*sax.error);
  if (!parsed && !sax.syntax_message_.empty()) {
    GPUPLAN_TRY(std::string doc, text());
    const size_t at = sax.syntax_byte_ == 0 ? 0 : sax.syntax_byte_ - 1;  // 1-based
    auto [line, col] = strings::line_column(doc, at);
    std::string msg = sax.syntax_message_;
    if (auto pos = msg.find("parse error"); pos != std::string::npos) msg = msg.substr(pos);
    return invalid_argument("invalid JSON (" + msg + ")", Where{t.file, line, col, ""});
  }
  if (!sax.root_object || !sax.saw_gap) {
    return invalid_argument("expected {\"metadata\": {\"gap_seconds\": N}, \"data\": [...]}",
                            Where{t.file, 0, 0, "metadata.gap_seconds"});
  }
  // The range spot.model.gap_seconds has (1 s to a day): a step of 1e-9 s
  // overflowed the simulators' integer step counts (SIGFPE), 0.1 s made a
  // week of steps no run ends, and 1e308 s put the deadline bound at 1e30
  // USD. The published traces step every 5 or 10 minutes.
  if (!(t.gap_seconds >= 1 && t.gap_seconds <= 86400)) {
    return invalid_argument("gap_seconds must be a number of seconds in [1, 86400], found " +
                                strings::general(t.gap_seconds),
                            Where{t.file, 0, 0, "metadata.gap_seconds"});
  }
  if (t.available.empty()) {
    return invalid_argument("expected a non-empty array of per-step values",
                            Where{t.file, 0, 0, "data"});
  }
  t.available.shrink_to_fit();
  return t;
}

bool blank(std::string_view text) {
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

Result<SpotTrace> parse_spot_trace(const std::string& text, const std::string& file) {
  if (blank(text)) return invalid_argument("empty file (expected JSON)", Where{file});
  SpotTrace t;
  t.file = file;
  TraceSax sax(t);
  const bool parsed = nlohmann::json::sax_parse(text, &sax);
  return finish_trace(std::move(t), sax, parsed, [&]() -> Result<std::string> { return text; });
}

Result<SpotTrace> load_spot_trace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    // files::read_text has the project's wording for a file that is missing
    // or unreadable (kNotFound).
    GPUPLAN_TRY(std::string unused, files::read_text(path));
    return parse_spot_trace(unused, path);
  }
  if (in.peek() == std::char_traits<char>::eof())
    return invalid_argument("empty file (expected JSON)", Where{path});
  SpotTrace t;
  t.file = path;
  TraceSax sax(t);
  const bool parsed = nlohmann::json::sax_parse(in, &sax);
  return finish_trace(std::move(t), sax, parsed, [&] { return files::read_text(path); });
}

SpotModel spot_model_for(const SpotModel& model, bool mean_up_given,
                         const catalog::SpotEviction* band, std::string& basis) {
  if (mean_up_given) {
    basis =
        "scenario file (spot.model.mean_up_hours; two-state Markov model, one trace drawn "
        "per run)";
    return model;
  }
  if (!band) {
    basis =
        "gpuplan default mean up (no Azure eviction band imported for the scenario's size "
        "and region: `gpuplan catalog import spot`, or set spot.model.mean_up_hours)";
    return model;
  }
  const cost::BandRates r = cost::band_rates(band->band);
  SpotModel m = model;
  m.mean_up_hours = 1.0 / r.expected_per_hour;
  basis = "Azure eviction band " + std::string(catalog::to_string(band->band)) + " % per hour" +
          (r.open_ended ? " (taken as 20-25 %)" : "") + " (" + band->source + ", " + band->as_of +
          "): " + strings::fixed(r.expected_per_hour, 4) +
          " evictions per hour at the band's middle, mean up = 1 / rate (docs/cost.md)";
  return m;
}

SpotTrace generate_spot_trace(const SpotModel& model, int64_t steps, Rng& rng) {
  SpotTrace t;
  t.file = "stochastic";
  t.gap_seconds = model.gap_seconds;
  const double step_h = model.gap_seconds / 3600.0;
  // Per-step transition probabilities of the discretized exponential holds.
  const double p_down = 1.0 - std::exp(-step_h / std::max(model.mean_up_hours, 1e-9));
  const double p_up = 1.0 - std::exp(-step_h / std::max(model.mean_down_hours, 1e-9));
  const double stationary_up = model.mean_up_hours / (model.mean_up_hours + model.mean_down_hours);
  bool up = rng.uniform() < stationary_up;
  t.available.reserve(static_cast<size_t>(steps));
  for (int64_t i = 0; i < steps; ++i) {
    t.available.push_back(up ? 1 : 0);
    up = up ? rng.uniform() >= p_down : rng.uniform() < p_up;
  }
  return t;
}

}  // namespace gpuplan::simulate
