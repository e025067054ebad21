// Tests of the simulator: engine pieces, the deadline model and its optimum
// (checked against brute force), policies' rules, the serving engine on
// hand-computed cases, the lower bound, readers, scenario errors, the
// autoscale export and determinism.
#include "simulate/simulate.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <set>

#include <gtest/gtest.h>

#include "core/strings.h"
#include "simulate/autoscale_export.h"
#include "simulate/deadline.h"
#include "simulate/demand.h"
#include "simulate/event_queue.h"
#include "simulate/histogram.h"
#include "simulate/internal/window_max.h"
#include "simulate/rng.h"
#include "simulate/scenario.h"
#include "simulate/serving.h"
#include "simulate/spot_trace.h"
#include "simulate/test_util.h"

namespace gpuplan::simulate {
namespace {

std::string fixture(const std::string& name) {
  return std::string(GPUPLAN_SOURCE_DIR) + "/tests/data/sim/" + name;
}

SpotTrace make_trace(const std::vector<int>& avail, double gap = 600) {
  SpotTrace t;
  t.file = "test";
  t.gap_seconds = gap;
  for (int a : avail) t.available.push_back(static_cast<uint8_t>(a));
  return t;
}

TEST(Histogram, QuantilesWithinOnePercent) {
  Histogram h;
  std::vector<double> values;
  Rng rng(3);
  for (int i = 0; i < 20000; ++i) {
    const double v = std::exp(rng.uniform() * 14) / 100;  // 0.01 ms .. 12 s
    values.push_back(v);
    h.add(v);
  }
  std::sort(values.begin(), values.end());
  for (double q : {0.01, 0.1, 0.5, 0.9, 0.99, 0.999}) {
    const double exact = values[static_cast<size_t>(std::ceil(q * values.size())) - 1];
    EXPECT_NEAR(h.quantile(q), exact, exact * 0.01 + Histogram::kUnit) << "q=" << q;
  }
  EXPECT_EQ(h.count(), 20000u);
  EXPECT_EQ(Histogram().quantile(0.5), 0);
}

TEST(EventQueue, OrdersByTimeThenSchedulingOrder) {
  EventQueue q;
  q.push(50, 1, 0);
  q.push(10, 2, 0);
  q.push(50, 3, 0);
  q.push(10, 4, 0);
  std::vector<uint32_t> kinds;
  while (!q.empty()) kinds.push_back(q.pop().kind);
  EXPECT_EQ(kinds, (std::vector<uint32_t>{2, 4, 1, 3}));
}

TEST(EventQueue, PayloadSurvives) {
  EventQueue q;
  q.push(7, EventQueue::kMaxKind - 1, EventQueue::kMaxPayload - 1);
  const Event e = q.pop();
  EXPECT_EQ(e.time, 7);
  EXPECT_EQ(e.kind, EventQueue::kMaxKind - 1);
  EXPECT_EQ(e.a, EventQueue::kMaxPayload - 1);
}

// Every pop and top is the least pending (time, scheduling order), checked
// against an ordered set: queues of every size, many ties, pushes and pops
// interleaved, times from microseconds to days ahead, and a few pushes
// before the last pop (the queue does not rely on the simulator's pushing
// only at or after its clock), negative times among them. (It replaced a
// check of the popped multiset and its ties, which a queue that popped out
// of order would pass.)
TEST(EventQueue, EveryPopIsTheLeastPending) {
  EventQueue q;
  std::set<std::pair<SimTime, uint64_t>> pending;
  Rng rng(11);
  SimTime now = 0;
  for (int i = 0; i < 60000; ++i) {
    const bool push = pending.empty() || rng.below(100) < (i < 30000 ? 55u : 45u);
    if (push) {
      const uint64_t how = rng.below(100);
      const SimTime ahead = how < 60   ? static_cast<SimTime>(rng.below(64))
                            : how < 95 ? static_cast<SimTime>(rng.below(uint64_t{1} << 37))
                                       : -static_cast<SimTime>(rng.below(5000));
      const SimTime t = now + ahead;
      pending.insert({t, q.scheduled()});
      q.push(t, 0);
      continue;
    }
    ASSERT_FALSE(pending.empty());
    const Event top = q.top();
    ASSERT_EQ(std::make_pair(top.time, top.seq), *pending.begin()) << "top " << i;
    const Event e = q.pop();
    ASSERT_EQ(std::make_pair(e.time, e.seq), *pending.begin()) << "pop " << i;
    pending.erase(pending.begin());
    now = e.time;
  }
  while (!q.empty()) {
    const Event e = q.pop();
    ASSERT_EQ(std::make_pair(e.time, e.seq), *pending.begin());
    pending.erase(pending.begin());
  }
  EXPECT_TRUE(pending.empty());
}

// A burst of 200,000 events, drained to a few, then more: the buckets that
// held the burst give their room back (refill) and the order holds.
TEST(EventQueue, ABurstThenAFewKeepTheirOrder) {
  EventQueue q;
  std::set<std::pair<SimTime, uint64_t>> pending;
  Rng rng(13);
  const auto push = [&](SimTime t) {
    pending.insert({t, q.scheduled()});
    q.push(t, 1, 2);
  };
  const auto pop = [&] {
    const Event e = q.pop();
    ASSERT_EQ(std::make_pair(e.time, e.seq), *pending.begin());
    EXPECT_EQ(e.kind, 1u);
    EXPECT_EQ(e.a, 2u);
    pending.erase(pending.begin());
  };
  for (int i = 0; i < 200000; ++i) push(static_cast<SimTime>(rng.below(uint64_t{1} << 24)));
  while (q.size() > 10) pop();
  const SimTime now = pending.begin()->first;
  for (int round = 0; round < 100; ++round) {
    for (int i = 0; i < 20; ++i) push(now + static_cast<SimTime>(rng.below(uint64_t{1} << 30)));
    for (int i = 0; i < 15; ++i) pop();
  }
  while (!q.empty()) pop();
  EXPECT_TRUE(pending.empty());
}

// erase_if drops what it is told to, keeps the rest in (time, order).
TEST(EventQueue, EraseIfKeepsTheRestInOrder) {
  EventQueue q;
  Rng rng(7);
  for (uint32_t i = 0; i < 5000; ++i) q.push(static_cast<SimTime>(rng.below(1000)), i % 7, i);
  size_t dropped = 0;
  q.erase_if([&](const Event& e) {
    dropped += e.kind == 3;
    return e.kind == 3;
  });
  EXPECT_EQ(dropped, 714u);  // i % 7 == 3 for i < 5000
  EXPECT_EQ(q.size(), 5000u - 714u);
  Event last{-1, 0, 0, 0};
  while (!q.empty()) {
    const Event e = q.pop();
    EXPECT_NE(e.kind, 3u);
    EXPECT_TRUE(e.time > last.time || (e.time == last.time && e.seq > last.seq));
    last = e;
  }
}

TEST(Rng, SameSeedSameStream) {
  Rng a(42), b(42), c(43);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.next(), b.next());
  EXPECT_NE(Rng(42).next(), c.next());
}

TEST(SpotTrace, ZeroMeansAvailable) {
  auto t =
      parse_spot_trace(R"({"metadata": {"gap_seconds": 600}, "data": [0, 1, 0, 3]})", "x.json");
  ASSERT_TRUE(t) << t.error().to_string();
  EXPECT_EQ(t->available, (std::vector<uint8_t>{1, 0, 1, 0}));
  EXPECT_DOUBLE_EQ(t->availability(), 0.5);
  EXPECT_TRUE(t->at(4));  // wraps
}

TEST(SpotTrace, BadInputNamesTheField) {
  auto t = parse_spot_trace(R"({"metadata": {"gap_seconds": 0}, "data": [0]})", "x.json");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().where.field, "metadata.gap_seconds");
  // Steps of 1 s to a day, as spot.model.gap_seconds: 1e-9 s crashed the
  // deadline simulator (SIGFPE) and 1e308 s made its bound 1e30 USD.
  for (const char* gap : {"1e-9", "0.1", "1e308", "86401"}) {
    t = parse_spot_trace(
        std::string(R"({"metadata": {"gap_seconds": )") + gap + R"(}, "data": [0, 0, 1]})",
        "x.json");
    ASSERT_FALSE(t) << gap;
    EXPECT_EQ(t.error().where.field, "metadata.gap_seconds") << gap;
  }
  EXPECT_TRUE(parse_spot_trace(R"({"metadata": {"gap_seconds": 1}, "data": [0]})", "x.json"));
  t = parse_spot_trace(R"({"metadata": {"gap_seconds": 60}, "data": [0, -1]})", "x.json");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().where.field, "data[1]");
  EXPECT_FALSE(parse_spot_trace("{", "x.json"));
  EXPECT_EQ(load_spot_trace("/nonexistent.json").error().code, ErrorCode::kNotFound);
  // A key given twice: the second "data" once replayed instead of the first.
  t = parse_spot_trace(R"({"metadata": {"gap_seconds": 60}, "data": [0], "data": [1, 1]})",
                       "x.json");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().where.field, "data");
  EXPECT_NE(t.error().message.find("key given twice"), std::string::npos);
}

// Issue 13 item 5: a trace is read as a stream into one byte per step; the
// streamed file and the in-memory text give the same trace and the same
// errors, with line:column for syntax and the field for values.
TEST(SpotTrace, StreamedFileEqualsTextAndKeepsOneBytePerStep) {
  std::string text =
      "{\"metadata\": {\"gap_seconds\": 30, \"source\": \"x\"}, \"extra\": [1, {}],\n"
      " \"data\": [";
  Rng rng(7);
  const int n = 200000;
  std::vector<uint8_t> want;
  for (int i = 0; i < n; ++i) {
    const int v = rng.uniform() < 0.8 ? 0 : 1 + static_cast<int>(rng.below(3));
    text += (i ? "," : "") + std::to_string(v);
    want.push_back(v == 0 ? 1 : 0);
  }
  text += "]}\n";
  const std::string path = ::testing::TempDir() + "/trace_stream.json";
  {
    FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  auto from_file = load_spot_trace(path);
  auto from_text = parse_spot_trace(text, path);
  ASSERT_TRUE(from_file) << from_file.error().to_string();
  ASSERT_TRUE(from_text) << from_text.error().to_string();
  EXPECT_EQ(from_file->available, want);
  EXPECT_EQ(from_text->available, want);
  EXPECT_DOUBLE_EQ(from_file->gap_seconds, 30);
  EXPECT_EQ(from_file->available.capacity(), static_cast<size_t>(n));  // 1 byte a step

  // A syntax error on line 3 of the file, streamed: line:column found.
  {
    FILE* f = std::fopen(path.c_str(), "wb");
    const std::string bad = "{\"metadata\": {\"gap_seconds\": 30},\n \"data\": [0, 1,\n 0 x]}";
    std::fwrite(bad.data(), 1, bad.size(), f);
    std::fclose(f);
  }
  auto syntax = load_spot_trace(path);
  ASSERT_FALSE(syntax);
  EXPECT_EQ(syntax.error().where.line, 3);
  EXPECT_EQ(syntax.error().where.column, 4);
  std::remove(path.c_str());

  for (const char* bad : {R"({"metadata": {"gap_seconds": 60}, "data": [0, 0, "1"]})",
                          R"({"metadata": {"gap_seconds": 60}, "data": [0, 0, [1]]})",
                          R"({"metadata": {"gap_seconds": 60}, "data": [0, 0, 1.5]})"}) {
    auto t = parse_spot_trace(bad, "x.json");
    ASSERT_FALSE(t) << bad;
    EXPECT_EQ(t.error().where.field, "data[2]") << bad;
  }
  EXPECT_EQ(parse_spot_trace(R"([1, 2])", "x.json").error().where.field, "metadata.gap_seconds");
  EXPECT_EQ(parse_spot_trace(R"({"metadata": {"gap_seconds": "60"}, "data": [0]})", "x.json")
                .error()
                .where.field,
            "metadata.gap_seconds");
  EXPECT_EQ(parse_spot_trace(R"({"metadata": {"gap_seconds": 60}, "data": []})", "x.json")
                .error()
                .where.field,
            "data");
  EXPECT_FALSE(parse_spot_trace("  \n", "x.json"));
}

TEST(Deadline, AlwaysAvailableSpotCostsWorkPlusOneChangeover) {
  const DeadlineJob job = example_job();
  const SpotTrace t = make_trace(std::vector<int>(400, 1));
  // One launch: 48 h of work + 0.2 h of changeover, all on spot.
  const double expected = 48.2 * 0.5655;
  for (const char* name : {"greedy-spot", "uniform-progress", "markov-lookahead"}) {
    auto p = make_deadline_policy(name, job, 600);
    DeadlineRun r = run_deadline(job, t, 0, *p);
    EXPECT_NEAR(r.cost_usd, expected, 1e-9) << name;
    EXPECT_TRUE(r.deadline_met);
    EXPECT_EQ(r.evictions, 0);
  }
  EXPECT_NEAR(hindsight_optimal_cost(job, t, 0), expected, 1e-9);
  auto od = make_deadline_policy("on-demand", job, 600);
  EXPECT_NEAR(run_deadline(job, t, 0, *od).cost_usd, 48.2 * 3.06, 1e-9);
}

// The safety check counts the progress an eviction takes back: a 30-min
// checkpoint (29.5 min beyond the 30-s notice) with 18 min of slack leaves no
// room for one eviction, so no policy may bet on spot. Counting only the
// changeover, all three spot policies took spot, were evicted within the
// first hours and missed the deadline on every run. On traces whose spot
// comes and goes every few hours, with slack for a few losses, every policy
// meets the deadline too.
TEST(Deadline, SafetyCheckCountsTheProgressAnEvictionLoses) {
  DeadlineJob job = example_job();
  job.changeover_hours = 0;
  job.checkpoint_s = 1800;
  job.work_hours = 20;
  job.deadline_hours = 20.3;
  std::vector<int> flaky;
  flaky.reserve(400);
  for (int i = 0; i < 400; ++i) flaky.push_back(i % 20 < 15 ? 1 : 0);  // 2.5 h up, 50 min down
  const SpotTrace t = make_trace(flaky);
  for (const auto& name : deadline_policy_names()) {
    for (const double deadline : {20.3, 24.0, 30.0}) {
      job.deadline_hours = deadline;
      for (int64_t offset : {0, 7, 13}) {
        auto p = make_deadline_policy(name, job, 600);
        DeadlineRun r = run_deadline(job, t, offset, *p);
        EXPECT_TRUE(r.deadline_met) << name << " deadline " << deadline << " offset " << offset;
      }
    }
  }
}

TEST(Deadline, NeverAvailableSpotFallsBackToOnDemandInTime) {
  const DeadlineJob job = example_job();
  const SpotTrace t = make_trace(std::vector<int>(400, 0));
  for (const auto& name : deadline_policy_names()) {
    auto p = make_deadline_policy(name, job, 600);
    DeadlineRun r = run_deadline(job, t, 0, *p);
    EXPECT_TRUE(r.deadline_met) << name;
    if (name == "uniform-progress") {
      // UP alternates on-demand (behind the line) and idle (ahead of it),
      // paying a changeover each time: the price of its hysteresis.
      EXPECT_GT(r.cost_usd, 48.2 * 3.06 + 1) << name;
      EXPECT_GT(r.scale_events, 2) << name;
    } else {
      EXPECT_NEAR(r.cost_usd, 48.2 * 3.06, 1e-9) << name;  // one launch, all on-demand
    }
  }
  EXPECT_NEAR(hindsight_optimal_cost(job, t, 0), 48.2 * 3.06, 1e-9);
}

// At a fine trace step markov-lookahead plans on a coarser policy step (its
// plan would not fit in memory otherwise, deadline_lookahead.cc). The same
// availability seen at 120 s and at 30 s (each sample held for four steps)
// must cost nearly the same, and every deadline must still be met.
TEST(Deadline, LookaheadAtAFineStepCostsWhatItDoesAtTheCoarseOne) {
  const DeadlineJob job = example_job();
  Rng rng(11);
  std::vector<int> coarse(12000), fine;
  int a = 1;
  for (int& v : coarse) {
    // Windows of ~6 h up, ~2 h down (a two-state chain at 120 s).
    if (rng.uniform() < (a ? 1.0 / 180 : 1.0 / 60)) a = 1 - a;
    v = a;
  }
  for (int v : coarse) fine.insert(fine.end(), 4, v);
  const SpotTrace tc = make_trace(coarse, 120), tf = make_trace(fine, 30);
  double cost_c = 0, cost_f = 0, opt_f = 0;
  for (int64_t offset = 3000; offset < 9000; offset += 600) {
    auto pc = make_deadline_policy("markov-lookahead", job, 120);
    auto pf = make_deadline_policy("markov-lookahead", job, 30);
    const DeadlineRun rc = run_deadline(job, tc, offset, *pc);
    const DeadlineRun rf = run_deadline(job, tf, 4 * offset, *pf);
    EXPECT_TRUE(rc.deadline_met) << offset;
    EXPECT_TRUE(rf.deadline_met) << offset;
    const double opt = hindsight_optimal_cost(job, tf, 4 * offset);
    EXPECT_GE(rf.cost_usd, opt - 1e-6) << offset;
    cost_c += rc.cost_usd;
    cost_f += rf.cost_usd;
    opt_f += opt;
  }
  EXPECT_NEAR(cost_f / cost_c, 1.0, 0.02) << "fine " << cost_f << " coarse " << cost_c;
  EXPECT_LT(cost_f, 48.2 * 3.06 * 10);  // well below on-demand for all ten runs
  EXPECT_GT(cost_f / opt_f, 1.0);
}

// A policy that plays a fixed sequence of actions (then on-demand).
class Scripted final : public ScalingPolicy {
 public:
  explicit Scripted(std::vector<Capacity> s) : s_(std::move(s)) {}
  std::string_view name() const override { return "scripted"; }
  void reset(const PolicyContext&) override { i_ = 0; }
  PolicyDecision decide(const PolicyInput&) override {
    return {0, i_ < s_.size() ? s_[i_++] : Capacity::kOnDemand};
  }

 private:
  std::vector<Capacity> s_;
  size_t i_ = 0;
};

// `n` steps with spot available with probability p each (1 = available).
SpotTrace random_trace(Rng& rng, int n, double p) {
  std::vector<int> avail;
  avail.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) avail.push_back(rng.uniform() < p ? 1 : 0);
  return make_trace(avail);
}

// The least cost of every schedule of `decisions` steps (none / spot /
// on-demand each, on-demand after) that meets the deadline, each simulated
// exactly; `seen` gets every run's event log.
double best_schedule_cost(const DeadlineJob& job, const SpotTrace& t, int decisions,
                          const std::function<void(const std::string&)>& seen = {}) {
  int schedules = 1;
  for (int k = 0; k < decisions; ++k) schedules *= 3;
  double best = 1e300;
  for (int code = 0; code < schedules; ++code) {
    std::vector<Capacity> seq;
    for (int c = code, k = 0; k < decisions; ++k, c /= 3)
      seq.push_back(static_cast<Capacity>(c % 3));
    Scripted p(seq);
    std::string log;
    const DeadlineRun r = run_deadline(job, t, 0, p, seen ? &log : nullptr);
    if (r.deadline_met) best = std::min(best, r.cost_usd);
    if (seen) seen(log);
  }
  return best;
}

TEST(Deadline, HindsightOptimumEqualsBruteForce) {
  // 30 min of work, deadline 50 min, changeover 5 min, 10-min steps: every
  // schedule of 5 decisions is enumerated (3^5) and simulated exactly.
  DeadlineJob job;
  job.work_hours = 0.5;
  job.deadline_hours = 50.0 / 60;
  job.changeover_hours = 5.0 / 60;
  job.od_usd_per_hour = 3;
  job.spot_usd_per_hour = 1;
  Rng rng(11);
  for (int trial = 0; trial < 25; ++trial) {
    const SpotTrace t = random_trace(rng, 12, 0.6);
    EXPECT_NEAR(hindsight_optimal_cost(job, t, 0), best_schedule_cost(job, t, 5), 1e-9)
        << "trial " << trial;
  }
}

// The same with a checkpoint that loses 15 minutes at an eviction (930 s
// checkpoint, 30 s notice) and 8 decisions (3^8 schedules): relaunches and
// evictions soon after them are among the schedules, and an eviction takes
// back no more than the progress made since the launch. The optimum takes
// the whole loss from any progress and keeps no launch age: an eviction
// that takes back all a launch made is never in an optimal schedule
// (deadline_optimum.cc, "Evictions"), and the enumeration agrees.
TEST(Deadline, HindsightOptimumEqualsBruteForceWithEvictionLosses) {
  DeadlineJob job;
  job.work_hours = 40.0 / 60;
  job.deadline_hours = 80.0 / 60;
  job.changeover_hours = 5.0 / 60;
  job.checkpoint_s = 930;
  job.od_usd_per_hour = 3;
  job.spot_usd_per_hour = 1;
  Rng rng(12);
  int with_relaunch_loss = 0;
  for (int trial = 0; trial < 25; ++trial) {
    const SpotTrace t = random_trace(rng, 16, 0.6);
    // An eviction one step after a launch loses the 5 minutes made since
    // the changeover (10-min step less 5 min), not the full 15.
    const double best = best_schedule_cost(job, t, 8, [&](const std::string& log) {
      with_relaunch_loss += log.find("0.083h of progress lost") != std::string::npos;
    });
    EXPECT_NEAR(hindsight_optimal_cost(job, t, 0), best, 1e-9) << "trial " << trial;
  }
  EXPECT_GT(with_relaunch_loss, 0);  // the case is exercised
}

// A deadline inside a step and a loss that is no multiple of the step, the
// changeover or the work (review B #6): 30 min of work, 5-min changeover,
// 10-min steps, a 47-min deadline and 7 min lost per eviction (450-s
// checkpoint, 30-s notice); every schedule of 5 decisions is enumerated.
// The optimum rounded the cut last step up (finishing up to a step late)
// and the loss down to the grid, so it sat below every schedule that exists.
TEST(Deadline, HindsightOptimumEqualsBruteForceOffTheGrid) {
  DeadlineJob job;
  job.work_hours = 0.5;
  job.changeover_hours = 5.0 / 60;
  job.checkpoint_s = 450;
  job.od_usd_per_hour = 3;
  job.spot_usd_per_hour = 1;
  Rng rng(13);
  for (const double deadline_min : {47.0, 44.5}) {
    job.deadline_hours = deadline_min / 60;
    for (int trial = 0; trial < 25; ++trial) {
      const SpotTrace t = random_trace(rng, 12, 0.7);
      EXPECT_NEAR(hindsight_optimal_cost(job, t, 0), best_schedule_cost(job, t, 5), 1e-9)
          << "deadline " << deadline_min << " min, trial " << trial;
    }
  }
}

// The case the review found: spot for 2 h (0.9 h of progress lost at the
// eviction: a 1-h checkpoint), gone 10 min, back 10 min, gone, back. The
// relaunch restores 0.908 h; the eviction 10 min later takes back what the
// relaunch made since (0.067 h after its 6-min changeover), not the 0.975 h
// total.
TEST(Deadline, AnEvictionKeepsTheProgressTheLaunchRestored) {
  DeadlineJob job;
  job.work_hours = 10;
  job.deadline_hours = 40;
  job.changeover_hours = 0.1;
  job.checkpoint_s = 3600;
  job.od_usd_per_hour = 3.06;
  job.spot_usd_per_hour = 0.612;
  std::vector<int> avail(12, 1);
  avail.insert(avail.end(), {0, 1, 0});
  avail.resize(300, 1);
  const SpotTrace t = make_trace(avail);
  auto p = make_deadline_policy("greedy-spot", job, 600);
  std::string log;
  const DeadlineRun r = run_deadline(job, t, 0, *p, &log, /*timeline=*/true);
  ASSERT_GT(r.timeline.size(), 16u);
  EXPECT_NEAR(r.timeline[12].progress_hours, 1.9 - (3600 - 30) / 3600.0, 1e-9);  // 0.908
  EXPECT_NEAR(r.timeline[13].progress_hours, 0.908 + 1.0 / 15, 1e-3);            // relaunched
  EXPECT_NEAR(r.timeline[14].progress_hours, r.timeline[12].progress_hours, 1e-9);
  EXPECT_NE(log.find("0.067h of progress lost"), std::string::npos) << log;
  EXPECT_EQ(r.evictions, 2);
  EXPECT_TRUE(r.deadline_met);
  EXPECT_GE(r.cost_usd, hindsight_optimal_cost(job, t, 0) - 1e-9);
}

TEST(Deadline, PoliciesMeetDeadlinesAndNeverBeatTheOptimum) {
  const DeadlineJob job = example_job();
  Rng rng(5);
  for (int trial = 0; trial < 6; ++trial) {
    SpotModel m{trial % 2 ? 2.0 : 8.0, trial % 3 ? 1.0 : 4.0, 600};
    const SpotTrace t = generate_spot_trace(m, 800, rng);
    const double opt = hindsight_optimal_cost(job, t, 400);
    for (const auto& name : deadline_policy_names()) {
      auto p = make_deadline_policy(name, job, 600);
      DeadlineRun r = run_deadline(job, t, 400, *p);
      EXPECT_TRUE(r.deadline_met) << name << " trial " << trial;
      EXPECT_GE(r.cost_usd, opt - 1e-9) << name << " trial " << trial;
    }
  }
}

TEST(Deadline, EvictionIsLoggedAndChargedAChangeover) {
  DeadlineJob job;
  job.work_hours = 1;
  job.deadline_hours = 3;
  job.changeover_hours = 0;
  job.od_usd_per_hour = 3;
  job.spot_usd_per_hour = 1;
  // Spot for 2 steps, gone for 1, back: greedy runs 20 min, waits, resumes.
  const SpotTrace t = make_trace({1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  auto p = make_deadline_policy("greedy-spot", job, 600);
  std::string log;
  DeadlineRun r = run_deadline(job, t, 0, *p, &log);
  EXPECT_EQ(r.evictions, 1);
  EXPECT_NEAR(r.cost_usd, 1.0, 1e-9);            // 1 h on spot, no changeover cost
  EXPECT_NEAR(r.finish_hours, 70.0 / 60, 1e-9);  // 10 min lost waiting
  EXPECT_NE(log.find("0.333h greedy-spot evicted"), std::string::npos) << log;
}

TEST(Deadline, ValidateRejectsImpossibleDeadline) {
  DeadlineJob job = example_job();
  job.deadline_hours = 48.1;
  auto s = validate(job, 600);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().where.field, "job.deadline_hours");
  // A deadline of exactly work + changeover is met on-demand (0.1 + 0.2 h
  // is above 0.3 in doubles, not in the simulation's microseconds).
  job.work_hours = 0.1;
  job.changeover_hours = 0.2;
  job.deadline_hours = 0.3;
  EXPECT_TRUE(validate(job, 600));
}

// ---- serving ----------------------------------------------------------------

// A serving scenario's text with an explicit replica: these prices and this
// demand (the insides of `prices: {...}` and `demand: {...}`), four lines.
std::string serving_text(const std::string& prices, const std::string& demand) {
  return "kind: serving\nprices: {" + prices +
         "}\nreplica: {prefill_tokens_per_s: 9000, step_base_ms: 11, step_per_seq_ms: 0.1, "
         "max_batch: 100}\ndemand: {" +
         demand + "}\n";
}

class VecSource final : public DemandSource {
 public:
  explicit VecSource(std::vector<Request> r) : r_(std::move(r)) {}
  Result<bool> next(Request& out) override {
    if (i_ >= r_.size()) return false;
    out = r_[i_++];
    return true;
  }
  std::string describe() const override { return "test"; }

 private:
  std::vector<Request> r_;
  size_t i_ = 0;
};

ServingConfig small_config() {
  ServingConfig c;
  c.replica = {1000, 0, 0.010, 0.001, 8, "test"};
  c.ttft_slo_s = 1.0;
  c.tpot_slo_s = 0.05;
  c.startup_s = 60;
  c.usd_per_hour = 3.6;
  c.min_replicas = 1;
  c.initial_replicas = 1;
  c.max_replicas = 1;
  return c;
}

// `src` on the fixed fleet static-peak keeps at one replica.
Result<ServingRun> run_one_replica(const ServingConfig& c, DemandSource& src) {
  auto pol = make_serving_policy("static-peak", c);
  PolicyContext ctx;
  ctx.peak_replicas = 1;
  return run_serving(c, src, *pol, ctx);
}

// A client gives up a request that waited queue_timeout_s for a replica:
// it leaves the queue, counted as turned away. Overload that never ends
// then holds at most rate x timeout requests, and the run ends soon after
// the last arrival (it once served every queued request, one at a time).
TEST(Serving, QueuedRequestsAreGivenUpAfterTheClientsTimeout) {
  ServingConfig c = small_config();  // 1 replica of 8, prefill 1,000 tok/s
  c.replica.max_batch = 1;
  c.queue_timeout_s = 30;
  // 2,000 prompts of 900 tokens (0.9 s each), 10 a second: 200 s of
  // arrivals for 1,800 s of prefill.
  std::vector<Request> reqs;
  reqs.reserve(2000);
  for (int i = 0; i < 2000; ++i) reqs.push_back({seconds(i * 0.1), 900, 1});
  VecSource src(reqs);
  auto pol = make_serving_policy("static-peak", c);
  PolicyContext ctx;
  ctx.peak_replicas = 1;
  auto r = run_serving(c, src, *pol, ctx);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->requests, 2000);
  // Served: about one per 0.9 s for the 200 s plus the 30 s after them.
  EXPECT_GT(r->rejected, 1600);
  EXPECT_LT(r->rejected, 1800);
  EXPECT_LT(r->vm_hours * 3600, 200 + 30 + 5);  // the run ends with the timeout
  // Without a timeout every request is served, late.
  c.queue_timeout_s = 0;
  VecSource again(reqs);
  auto patient = run_serving(c, again, *pol, ctx);
  ASSERT_TRUE(patient);
  EXPECT_EQ(patient->rejected, 0);
  EXPECT_GE(patient->vm_hours * 3600, 1800 - 1e-6);  // 2,000 x 0.9 s of prefill
}

TEST(Serving, OneRequestHandComputed) {
  const ServingConfig c = small_config();
  VecSource src({{0, 500, 11}});
  auto r = run_one_replica(c, src);
  ASSERT_TRUE(r);
  // TTFT = prefill 500 / 1000 = 0.5 s; TPOT = step(1) = 11 ms; 10 more tokens.
  EXPECT_NEAR(r->ttft_ms.quantile(0.5), 500, 5);
  EXPECT_NEAR(r->tpot_ms.quantile(0.5), 11, 0.1);
  EXPECT_NEAR(r->end_s, 0.5 + 10 * 0.011, 1e-6);
  EXPECT_NEAR(r->cost_usd, r->end_s / 3600 * 3.6, 1e-9);
  EXPECT_EQ(r->slo_met, 1);
  // The benchmark's events/s counts what was handled: one arrival, one
  // completion; the tick at 15 s never runs (the replay is over).
  EXPECT_EQ(r->events, 2);
}

// A one-token answer has no time between tokens: it meets its SLO by the
// TTFT alone, even under a TPOT no step meets (it counted as a TPOT miss
// and as one no fleet serves), and leaves no TPOT sample.
TEST(Serving, OneTokenAnswersHaveNoTpot) {
  ServingConfig c = small_config();
  c.tpot_slo_s = 0.005;  // below step(1) = 11 ms
  VecSource src({{0, 100, 1}, {seconds(1), 100, 1}, {seconds(2), 100, 5}});
  auto r = run_one_replica(c, src);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->requests, 3);
  EXPECT_EQ(r->slo_met, 2);
  EXPECT_EQ(r->missed_tpot, 1);
  EXPECT_EQ(r->hopeless, 1);  // the 5-token answer: no step meets 5 ms
  EXPECT_EQ(r->tpot_ms.count(), 1u);
}

// A prompt and answer longer than the model's context are refused at
// arrival: turned away, and counted among the requests no fleet serves.
TEST(Serving, RequestsBeyondTheContextAreRefused) {
  ServingConfig c = small_config();
  c.max_context_tokens = 1000;
  VecSource src({{0, 500, 11}, {seconds(1), 995, 10}});
  auto r = run_one_replica(c, src);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->requests, 2);
  EXPECT_EQ(r->slo_met, 1);
  EXPECT_EQ(r->rejected, 1);
  EXPECT_EQ(r->hopeless, 1);
  EXPECT_EQ(r->ttft_ms.count(), 1u);  // the refused request never ran
}

TEST(Serving, PrefillsQueueAndTheSecondRequestMissesTtft) {
  ServingConfig c = small_config();
  VecSource src({{0, 800, 2}, {0, 800, 2}});
  auto pol = make_serving_policy("static-peak", c);
  PolicyContext ctx;
  auto r = run_serving(c, src, *pol, ctx);
  ASSERT_TRUE(r);
  // Second prefill starts when the first ends: TTFT 1.6 s > 1 s.
  EXPECT_EQ(r->requests, 2);
  EXPECT_EQ(r->slo_met, 1);
  EXPECT_EQ(r->missed_ttft, 1);  // the cause, for the report
  EXPECT_EQ(r->missed_tpot, 0);
  EXPECT_EQ(r->hopeless, 0);  // one replica more would have served it
  EXPECT_NEAR(r->ttft_ms.quantile(1.0), 1600, 16);
  EXPECT_NEAR(r->tpot_ms.quantile(1.0), 12, 0.2);  // batch of 2: 10 + 2 x 1 ms
}

// One replica at twice its capacity, an hour: under Admission::kQueue the
// prefill queue grows without end and almost every request misses; under
// kShed the router turns away what would miss, so the replica keeps serving
// what it can within the SLO, and every request it admits meets both targets.
TEST(Serving, ShedAdmissionServesWhatTheReplicaCanWithinTheSlo) {
  const auto run = [](Admission a, ServingConfig c, const SyntheticDemand& d) {
    c.admission = a;
    auto src = make_synthetic(d, 1, 5);
    auto pol = make_serving_policy("static-peak", c);
    PolicyContext ctx;
    ctx.peak_replicas = 1;
    auto r = run_serving(c, *src, *pol, ctx);
    EXPECT_TRUE(r);
    return r ? *r : ServingRun{};
  };
  // Prefill-bound: 500-token prompts take 0.5 s at 1,000 tokens/s, so one
  // replica prefills at most 2 a second; 4 a second arrive.
  SyntheticDemand prompts;
  prompts.rate_rps = 4;
  prompts.duration_hours = 1;
  prompts.input = {500, 0, 500, 500};
  prompts.output = {2, 0, 2, 2};
  const ServingRun queued = run(Admission::kQueue, small_config(), prompts);
  const ServingRun shed = run(Admission::kShed, small_config(), prompts);
  EXPECT_LT(queued.slo_attainment(), 0.01);
  // Only the requests whose clients gave up after 600 s in the queue.
  EXPECT_GT(queued.rejected, 0);
  EXPECT_LT(queued.rejected, queued.requests / 2);
  // Prefills stall decode steps: a request whose decode's window had a
  // prefill share over 1 - step(1) / TPOT = 1 - 11 / 50 = 0.78 meets no
  // TPOT, so the replica admits within the SLO at most 0.78 x 2 = 1.56 of
  // the 4 a second (39 %), and more than half that (> 19 %).
  EXPECT_GT(shed.slo_attainment(), 0.19);
  EXPECT_LE(shed.slo_attainment(), 0.39 + 0.01);
  EXPECT_EQ(shed.slo_met + shed.rejected, shed.requests);
  EXPECT_EQ(shed.missed_ttft + shed.missed_tpot, 0);
  EXPECT_LE(shed.ttft_ms.quantile(1.0), 1000 * 1.01);
  // Decode-bound: 200 answer tokens; a step of 10 ms + 1 ms per sequence
  // meets the 50 ms TPOT up to 40 sequences, and 60 fit the KV cache.
  ServingConfig wide = small_config();
  wide.replica.prefill_tokens_per_s = 100000;
  wide.replica.max_batch = 60;
  SyntheticDemand answers;
  answers.rate_rps = 8;  // x 200 tokens x >= 0.05 s: 80 sequences running
  answers.duration_hours = 1;
  answers.input = {100, 0, 100, 100};
  answers.output = {200, 0, 200, 200};
  const ServingRun full = run(Admission::kQueue, wide, answers);
  const ServingRun capped = run(Admission::kShed, wide, answers);
  EXPECT_LT(full.slo_attainment(), 0.05);
  EXPECT_GT(full.missed_tpot, full.requests / 2);
  // Throughput at batch B is B / (199 x step(B)), largest at the most the
  // TPOT allows, 40 / (199 x 0.05 s) = 4.02 a second: about half of the 8.
  EXPECT_GT(capped.slo_attainment(), 0.4);
  EXPECT_LE(capped.slo_attainment(), 4.02 / 8 + 0.01);
  EXPECT_EQ(capped.slo_met + capped.rejected, capped.requests);
  EXPECT_LE(capped.tpot_ms.quantile(1.0), 50 * 1.01);
}

// A request's decode is stalled by the prefill work run beside it, sampled
// over a window as long as its decode that ends at its admission; a chunked
// step stalls a token by one chunk at most, and a prefill beside decoding
// sequences shares each chunk's step with them. Hand-computed on one replica
// (prefill 1,000 tokens/s, step 10 ms + 1 ms a sequence, 100-token chunks:
// 0.1 s).
TEST(Serving, PrefillWorkBesideADecodeStallsItAtMostAChunkAToken) {
  ServingConfig c = small_config();
  c.replica.chunk_tokens = 100;
  {
    // A: 600 prompt tokens (0.6 s, nothing decoding beside it), 2 output
    // tokens, done at 0.611. B at 0.7: step(1) = 11 ms for 10 tokens; the
    // window of 0.11 s holds 0.01 s of A's prefill (share 1/11), the window
    // that share gives, 0.11 / (10/11) = 0.121 s, holds 0.021 s: TPOT =
    // 11 / (1 - 0.021 / 0.121) = 13.31 ms.
    VecSource src({{0, 600, 2}, {seconds(0.7), 100, 11}});
    auto r = run_one_replica(c, src);
    ASSERT_TRUE(r) << r.error().to_string();
    EXPECT_EQ(r->slo_met, 2);
    EXPECT_NEAR(r->tpot_ms.quantile(1.0), 11 / (1 - 0.021 / 0.121), 0.15);
    EXPECT_NEAR(r->end_s, 0.7 + 0.1 + 10 * 0.011 / (1 - 0.021 / 0.121), 1e-5);
  }
  {
    // B comes as A's prefill ends (0.9 s), while A decodes: batch 2, step
    // 12 ms. Both windows (0.024 s, then 0.48 s) are all prefill: share
    // 0.95 at most, step / 0.05 = 240 ms, but a token waits one chunk at
    // most: TPOT = 12 + 100 = 112 ms, a miss. B's 10-token prefill (0.01 s
    // of work, a tenth of a chunk) shares a tenth of a step with A's decode:
    // 0.01 + 0.1 x step(1) = 11.1 ms to its first token.
    VecSource src({{0, 900, 2}, {seconds(0.9), 10, 3}});
    auto r = run_one_replica(c, src);
    ASSERT_TRUE(r) << r.error().to_string();
    EXPECT_EQ(r->slo_met, 1);
    EXPECT_EQ(r->missed_tpot, 1);
    EXPECT_NEAR(r->tpot_ms.quantile(1.0), 112, 1.2);
    EXPECT_NEAR(r->ttft_ms.quantile(0.0), 11.1, 0.15);
  }
}

// The chunk is the engine's setting (vLLM's max_num_batched_tokens): a
// scenario may give it, and the report says which it used and from where.
TEST(Serving, ThePrefillChunkIsAnAssumptionAScenarioMayOverride) {
  const std::string head =
      "kind: serving\nprices: {on_demand_usd_per_hour: 3}\n"
      "replica: {prefill_tokens_per_s: 10000, step_base_ms: 10, step_per_seq_ms: 0.1, "
      "max_batch: 64}\ndemand: {synthetic: {rate_rps: 1, duration_hours: 0.05}}\n"
      "policies: static-peak\n";
  auto bad = parse_scenario_string(head + "prefill_chunk_tokens: 8\n", "s.yaml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where.field, "prefill_chunk_tokens");
  EXPECT_EQ(bad.error().where.line, 6);
  for (const bool given : {false, true}) {
    auto s = parse_scenario_string(head + (given ? "prefill_chunk_tokens: 512\n" : ""), "s.yaml");
    ASSERT_TRUE(s) << s.error().to_string();
    auto r = run_scenario(*s, nullptr, RunOptions{});
    ASSERT_TRUE(r) << r.error().to_string();
    bool said = false;
    for (const Assumed& a : r->assumptions)
      if (a.name == "prefill_chunk") {
        said = true;
        EXPECT_EQ(a.value.rfind(given ? "512 tokens (51.2 ms)" : "2048 tokens (204.8 ms)", 0), 0u)
            << a.value;
        EXPECT_EQ(a.source.rfind(given ? "scenario file" : "default: Sarathi-Serve", 0), 0u);
      }
    EXPECT_TRUE(said);
  }
}

// A prefill beside decodes takes a step per chunk of its prompt more than
// its work; its fixed part is no chunk. With a 200-s step and 16-token
// chunks a 1,000-s prefill once came out of a (1 + step / chunk) stretch of
// the whole prefill at 1.25e13 s, past the microsecond clock, wrapped to
// 1 us, and met a TTFT that no fleet meets (attainment 0.5 where the bound
// says at most 0). Found by fuzzing.
TEST(Serving, ChunkedPrefillAddsAStepAChunkWithinTheClock) {
  ServingConfig c = small_config();
  c.replica = {1e9, 1000, 200, 0, 8, "test"};  // 1,000 s fixed a prefill, 200-s steps
  c.replica.chunk_tokens = 16;
  c.tpot_slo_s = 300;
  VecSource src({{0, 10, 100}, {seconds(1500), 10, 2}});
  auto r = run_one_replica(c, src);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->slo_met, 0);
  EXPECT_EQ(r->hopeless, 2);
  // The second starts as the first decodes (99 steps of 200 s from 1,000 s):
  // 1,000 s of fixed work and 10 / 16 of a 200-s step beside it.
  EXPECT_NEAR(r->ttft_ms.quantile(1.0), 1125e3, 12e3);
}

// The stall is physics, not a policy setting: one fixed fleet on the same
// traffic met 97.2 % of requests at a 5-s policy interval, 98.9 % at 15 s and
// 100 % at 120 s when the share was the last interval's.
TEST(Serving, TheTpotStallDoesNotDependOnThePolicyInterval) {
  ServingConfig c = small_config();  // prefill 1,000 tokens/s, TPOT 50 ms
  c.min_replicas = c.initial_replicas = c.max_replicas = 2;
  SyntheticDemand d;
  d.rate_rps = 2.2;  // x 0.3 s of prefill: 33 % of each replica's time
  d.duration_hours = 0.5;
  d.noise_cv = 0.25;
  d.input = {300, 300, 20, 2000};
  d.output = {150, 100, 5, 600};
  std::vector<ServingRun> runs;
  for (const double interval : {5.0, 15.0, 120.0}) {
    c.interval_s = interval;
    auto src = make_synthetic(d, 1, 7);
    auto two = make_serving_policy("static-peak", c);
    PolicyContext ctx;
    ctx.peak_replicas = 2;
    auto r = run_serving(c, *src, *two, ctx);
    ASSERT_TRUE(r) << r.error().to_string();
    runs.push_back(*r);
  }
  ASSERT_GT(runs[0].missed_tpot, 0);  // the stall matters at this load
  ASSERT_LT(runs[0].slo_attainment(), 1);
  for (const ServingRun& r : runs) {
    EXPECT_EQ(r.requests, runs[0].requests);
    EXPECT_EQ(r.slo_met, runs[0].slo_met);
    EXPECT_EQ(r.missed_tpot, runs[0].missed_tpot);
    EXPECT_EQ(r.tpot_ms.quantile(0.99), runs[0].tpot_ms.quantile(0.99));
  }
}

// A fixed fleet of c.max_replicas VMs (static-peak) serving one request a
// second for `n` seconds, 100 prompt tokens and `output` generated each.
ServingRun one_a_second(const ServingConfig& c, int n, int output) {
  std::vector<Request> reqs;
  reqs.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    reqs.push_back({static_cast<SimTime>(i) * 1'000'000, 100, static_cast<float>(output)});
  VecSource src(reqs);
  auto pol = make_serving_policy("static-peak", c);
  PolicyContext ctx;
  ctx.peak_replicas = c.max_replicas;
  auto r = run_serving(c, src, *pol, ctx);
  EXPECT_TRUE(r);
  return r ? *r : ServingRun{};
}

// A Spot Priority Mix: the base and the share above it pick each VM's
// priority, and each VM-hour is billed at its own price.
TEST(Serving, SpotMixBillsEachVmAtItsPriority) {
  ServingConfig c = small_config();
  c.min_replicas = c.initial_replicas = c.max_replicas = 5;
  c.spot.share = 0.5;
  c.spot.base_regular = 1;  // 1 + ceil(4 x 0.5) = 3 pay-as-you-go, 2 spot
  c.spot.usd_per_hour = 0.9;
  EXPECT_EQ(c.spot.regular_of(5), 3);
  EXPECT_EQ(c.spot.regular_of(1), 1);
  EXPECT_EQ(c.spot.regular_of(4), 1 + 2);  // ceil(3 x 0.5)
  const ServingRun r = one_a_second(c, 600, 10);
  EXPECT_NEAR(r.spot_vm_hours, r.vm_hours * 2 / 5, 1e-9);
  EXPECT_NEAR(r.cost_usd, (r.vm_hours - r.spot_vm_hours) * 3.6 + r.spot_vm_hours * 0.9, 1e-9);
  EXPECT_EQ(r.evictions, 0);  // no eviction rate, no eviction
}

// Evictions: a VM's running requests are lost and leave slo_met; with a
// notice longer than any decode, the router drains it in time and nothing
// is lost, though the VM is evicted all the same.
TEST(Serving, SpotEvictionLosesRunningRequestsUnlessTheNoticeDrainsThem) {
  const auto run = [](double notice_s) {
    ServingConfig c = small_config();
    c.replica.max_batch = 64;
    c.min_replicas = c.initial_replicas = c.max_replicas = 3;
    c.spot.share = 1;               // every VM spot, no base
    c.spot.evictions_per_hour = 4;  // a mean life of 15 minutes
    c.spot.notice_s = notice_s;
    c.spot.usd_per_hour = 0.9;
    // One a second for an hour; 200 tokens decode in 2.2 s at batch 1, so
    // the 3 VMs (2 while one starts) run a few sequences each.
    return one_a_second(c, 3600, 200);
  };
  const ServingRun abrupt = run(0);
  EXPECT_GT(abrupt.evictions, 5);  // 3 VMs x 4 an hour, less the start-ups between
  EXPECT_GT(abrupt.evicted, 0);
  EXPECT_LE(abrupt.slo_met + abrupt.evicted, abrupt.requests);
  EXPECT_NEAR(abrupt.spot_vm_hours, abrupt.vm_hours, 1e-9);
  EXPECT_NEAR(abrupt.cost_usd, abrupt.vm_hours * 0.9, 1e-9);
  const ServingRun drained = run(30);
  EXPECT_GT(drained.evictions, 5);
  EXPECT_EQ(drained.evicted, 0);
}

DemandProfile profile_of(const std::vector<Request>& reqs, const ServingConfig& c) {
  VecSource src(reqs);
  auto p = profile_demand(src, c);
  EXPECT_TRUE(p);
  return *p;
}

TEST(Serving, LowerBoundCountsHopelessRequestsAndTheCap) {
  ServingConfig c = small_config();
  c.max_replicas = 1;  // min 1, initial 1
  // A 1,500-token prompt takes 1.5 s: no fleet meets TTFT 1 s for it.
  const DemandProfile p = profile_of(
      {{seconds(10), 1500, 2}, {seconds(20), 100, 2}, {seconds(30), 900, 2}, {seconds(30), 900, 2}},
      c);
  EXPECT_EQ(p.hopeless, 1);
  const ServingBound b = serving_lower_bound(p, c, 1.0);
  // One of the two 900-token prompts at 30 s misses on one VM: at most 2/4.
  EXPECT_NEAR(b.max_attainment, 0.5, 1e-12);
  EXPECT_NEAR(b.attainment, 0.5, 1e-12);
  // The floor VM is billed to the last arrival.
  EXPECT_NEAR(b.vm_hours, 30.0 / 3600, 1e-9);
}

// Replica targets by tick: the script's i-th entry at the i-th tick.
class ScriptedPolicy final : public ScalingPolicy {
 public:
  explicit ScriptedPolicy(std::vector<int> targets) : t_(std::move(targets)) {}
  std::string_view name() const override { return "scripted"; }
  void reset(const PolicyContext&) override { i_ = 0; }
  PolicyDecision decide(const PolicyInput&) override {
    const int n = i_ < t_.size() ? t_[i_] : t_.back();
    ++i_;
    return {n, Capacity::kOnDemand};
  }

 private:
  std::vector<int> t_;
  size_t i_ = 0;
};

// A tick whose backlog one VM cannot drain within the engine's allowance
// (7 days: 700,000 prompts of 0.9 s at once, clients that wait for ever)
// stops that replay; the profile goes on, and the bound reads the counts
// it replayed.
TEST(Serving, AReplayTheEngineStopsLeavesItsCountUnknown) {
  ServingConfig c = small_config();
  c.max_replicas = 100;
  c.queue_timeout_s = 0;
  const std::vector<Request> flood(700000, Request{seconds(1), 900, 2});
  TickReplays t;
  ASSERT_TRUE(replay_tick(0, flood, c, 1, 100, 1, t));
  EXPECT_TRUE(t.tick.empty());  // nothing known at one VM, so nothing above it
  // A deadline still ends it.
  c.deadline = Deadline::after(0);
  auto late = replay_tick(0, flood, c, 1, 100, 1, t);
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, ErrorCode::kDeadlineExceeded);
}

// Steady traffic whose prefill share, not its prefill seconds, decides
// TPOT: 400-token prompts (0.2 s of prefill at 2,000 tok/s) at 3 req/s are
// 0.6 prefill-seconds a second, which the fluid constraints let one VM
// serve; but a decode beside that share takes step / (1 - 0.6) = 30.5 ms,
// over a 30 ms TPOT. The tick replays see what the engine does: the bound
// needs more than one VM on average, and stays at or below every fixed
// fleet that meets the target.
TEST(Serving, LowerBoundReplaysWhatTheEngineMisses) {
  ServingConfig c = small_config();
  c.replica = {2000, 0, 0.012, 0.0005, 64, "test"};
  c.tpot_slo_s = 0.030;
  c.min_replicas = 1;
  c.initial_replicas = 1;
  c.max_replicas = 6;
  c.interval_s = 15;
  Rng rng(11);
  std::vector<Request> reqs;
  for (double t = rng.exponential(1 / 3.0); t < 1800; t += rng.exponential(1 / 3.0))
    reqs.push_back({seconds(t), 400, static_cast<float>(20 + std::floor(rng.uniform() * 80))});
  const DemandProfile p = profile_of(reqs, c);
  const ServingBound b = serving_lower_bound(p, c, 0.99);
  const double hours = to_seconds(reqs.back().arrival) / 3600;
  // The fluid constraints alone: the floor's one VM and a few instants.
  DemandProfile fluid = p;
  for (BoundGrid& g : fluid.grids) g.replays = TickReplays{};
  EXPECT_LT(serving_lower_bound(fluid, c, 0.99).vm_hours, 1.2 * hours);
  EXPECT_GT(b.vm_hours, 1.5 * hours);
  int met_at = 0;
  for (int vms = 1; vms <= 4 && met_at == 0; ++vms) {
    ServingConfig fixed = c;
    fixed.min_replicas = fixed.initial_replicas = fixed.max_replicas = vms;
    VecSource src(reqs);
    ScriptedPolicy hold({vms});
    auto r = run_serving(fixed, src, hold, PolicyContext{});
    ASSERT_TRUE(r) << r.error().to_string();
    std::printf("%d VMs: %.2f %% met, p99 TPOT %.1f ms, %.3f VM-h; bound %.3f VM-h\n", vms,
                100 * r->slo_attainment(), r->tpot_ms.quantile(0.99), r->vm_hours, b.vm_hours);
    EXPECT_GE(r->cost_usd, serving_lower_bound(p, c, r->slo_attainment()).cost_usd * (1 - 1e-9));
    if (r->slo_attainment() >= 0.99) met_at = vms;
  }
  EXPECT_GE(met_at, 2);
}

// A tick's replays: misses at each count replayed, nonincreasing in it; a
// count between two replayed ones reads the larger one's; past the last, 0.
TEST(Serving, TickReplaysReadTheNextCountReplayed) {
  ServingConfig c = small_config();
  c.max_replicas = 40;
  // 30 one-second prompts at once: k VMs serve k of them within the TTFT.
  std::vector<Request> burst(30, Request{seconds(1), 1000, 2});
  TickReplays t;
  ASSERT_TRUE(replay_tick(7, burst, c, 1, 40, 1, t));
  ASSERT_EQ(t.tick, std::vector<size_t>{7});
  EXPECT_EQ(t.enough(7), 30);
  EXPECT_EQ(t.enough(6), 0);
  for (int k = 1; k <= 8; ++k) EXPECT_DOUBLE_EQ(t.at(7, k), 30 - k) << k;  // counted one by one
  for (int k = 9; k < 30; ++k) {
    EXPECT_LE(t.at(7, k), 30 - k) << k;  // between replayed counts: never more
    EXPECT_LE(t.at(7, k), t.at(7, k - 1)) << k;
  }
  EXPECT_DOUBLE_EQ(t.at(7, 29), 1);  // the last gap is bisected to the count
  EXPECT_DOUBLE_EQ(t.at(7, 30), 0);
  EXPECT_DOUBLE_EQ(t.at(8, 1), 0);  // a tick not kept misses none
  // From another starting count (the last tick's need), the same counts
  // where misses end and the same floor.
  for (int hint : {25, 40}) {
    TickReplays h;
    ASSERT_TRUE(replay_tick(7, burst, c, 1, 40, hint, h));
    EXPECT_EQ(h.enough(7), 30) << hint;
    EXPECT_DOUBLE_EQ(h.at(7, 1), 29) << hint;
    EXPECT_DOUBLE_EQ(h.at(7, 29), 1) << hint;
    for (int k = 2; k <= 30; ++k) EXPECT_LE(h.at(7, k), std::min(30.0 - k, h.at(7, k - 1)));
  }
  // Under the 8 counts below the need, every other count, alternating with
  // the tick: over two ticks every count is replayed, so no level is left
  // free in both (bound_replay.cc, "Why every count").
  for (size_t u : {size_t{7}, size_t{8}}) {
    TickReplays s;
    ASSERT_TRUE(replay_tick(u, burst, c, 1, 40, 30, s));
    for (int k = 1; k < 30; ++k) {
      if (k >= 22 || k == 1 || (static_cast<size_t>(k) + u) % 2 == 0) {
        EXPECT_DOUBLE_EQ(s.at(u, k), 30 - k) << u << " " << k;
      }
    }
    EXPECT_LT(s.k.size(), 23u) << u;  // not every count
  }
  // No misses at the floor: the tick is not kept.
  TickReplays none;
  ASSERT_TRUE(
      replay_tick(3, std::vector<Request>(2, Request{seconds(1), 100, 2}), c, 2, 40, 2, none));
  EXPECT_TRUE(none.tick.empty());
}

TEST(Serving, LowerBoundSeesASecondsBurst) {
  ServingConfig c = small_config();  // prefill 1,000 tok/s, TTFT 1 s, start-up 60 s
  c.min_replicas = 0;
  c.initial_replicas = 0;
  c.max_replicas = 4;
  // Three 800-token prompts at once (the minute's mean work needs 0.04
  // VMs). Prefills are serial and not preempted: on two replicas the third
  // waits for one of the first two and its first token comes 1.5 s after
  // it arrived, so all three meet the TTFT on three VMs only. The fluid
  // window constraint (2.4 s of prefill within 0.5 s + TTFT) said two; the
  // tick's replay sees the third.
  const DemandProfile p =
      profile_of({{seconds(100), 800, 2}, {seconds(100), 800, 2}, {seconds(100.1), 800, 2}}, c);
  EXPECT_EQ(p.hopeless, 0);
  const ServingBound all = serving_lower_bound(p, c, 1.0);
  EXPECT_EQ(all.peak_replicas, 3);
  EXPECT_NEAR(all.vm_hours, 180.0 / 3600, 1e-9);  // three start-ups, nothing else certain
  // One miss allowed: two VMs (120 s); two misses: one (60 s); all: none.
  EXPECT_NEAR(serving_lower_bound(p, c, 2.0 / 3).vm_hours * 3600, 120, 0.5);
  EXPECT_NEAR(serving_lower_bound(p, c, 1.0 / 3).vm_hours * 3600, 60, 0.5);
  EXPECT_NEAR(serving_lower_bound(p, c, 0.0).vm_hours, 0, 1e-12);
  // And it is what the engine does: two VMs from the start miss one.
  for (int vms : {2, 3}) {
    ServingConfig fixed = c;
    fixed.min_replicas = fixed.initial_replicas = fixed.max_replicas = vms;
    VecSource src({{seconds(100), 800, 2}, {seconds(100), 800, 2}, {seconds(100.1), 800, 2}});
    ScriptedPolicy hold({vms});
    auto r = run_serving(fixed, src, hold, PolicyContext{});
    ASSERT_TRUE(r) << r.error().to_string();
    EXPECT_EQ(r->slo_met, vms == 2 ? 2 : 3) << vms << " VMs";
  }
}

// A tick whose fleet is no larger than the last tick's starts with what the
// last tick left queued (serving_bound.cc, "Warm ticks"). Every minute a
// 900-token prompt arrives at second 59.8 and a 500-token one at the next
// minute's start: on one VM the second waits for the first's prefill to end
// at 0.7 s and gets its first token at 1.2 s, over the 1-s TTFT. Each tick
// replayed alone from idle misses nothing on one VM (the 900's deadline is
// in the next tick, which replays only requests whose deadline it holds);
// replayed after the last tick's requests, it misses the 500 on one VM and
// none on two.
TEST(Serving, LowerBoundCountsWhatTheLastTickLeftQueued) {
  ServingConfig c = small_config();  // prefill 1,000 tok/s, TTFT 1 s
  c.startup_s = 300;
  c.interval_s = 60;
  c.initial_replicas = 2;
  c.max_replicas = 4;
  std::vector<Request> reqs;
  for (int m = 0; m < 10; ++m) {
    reqs.push_back({seconds(60 * m + 59.8), 900, 2});
    reqs.push_back({seconds(60 * (m + 1)), 500, 2});
  }
  TickReplays warm;
  ASSERT_TRUE(replay_warm(1, std::vector<Request>{{seconds(59.8), 900, 2}},
                          std::vector<Request>{{0, 500, 2}}, 60, c, 1, 4, warm));
  EXPECT_DOUBLE_EQ(warm.at(1, 1), 1);
  EXPECT_EQ(warm.enough(1), 2);
  // A backlog: forty 900-token prompts at second 59 give each of k
  // replicas one or two prefills; the 500 finds one free at 59.9 s once
  // some replica has one only, 2k > 40. Searched up as replay_tick does
  // (8 counts, then growing steps, bisected), not count by count.
  TickReplays backlog;
  ASSERT_TRUE(replay_warm(1, std::vector<Request>(40, Request{seconds(59), 900, 2}),
                          std::vector<Request>{{0, 500, 2}}, 60, c, 1, 64, backlog));
  EXPECT_EQ(backlog.enough(1), 21);
  EXPECT_DOUBLE_EQ(backlog.at(1, 20), 1);
  EXPECT_LT(backlog.k.size(), 15u);
  const auto run = [&](const ServingConfig& cfg, int vms) {
    ServingConfig fixed = cfg;
    fixed.min_replicas = fixed.initial_replicas = fixed.max_replicas = vms;
    VecSource src(reqs);
    ScriptedPolicy hold({vms});
    return run_serving(fixed, src, hold, PolicyContext{});
  };
  auto one = run(c, 1), two = run(c, 2);
  ASSERT_TRUE(one && two);
  EXPECT_EQ(one->slo_met, 10);  // every 500-token prompt misses on one VM
  EXPECT_EQ(two->slo_met, 20);
  const ServingBound b = serving_lower_bound(profile_of(reqs, c), c, 1.0);
  // Without warm replays (clients that give up within two ticks) the bound
  // is the floor's one VM to the last arrival.
  ServingConfig cold = c;
  cold.queue_timeout_s = 100;
  const ServingBound idle = serving_lower_bound(profile_of(reqs, cold), cold, 1.0);
  EXPECT_NEAR(idle.vm_hours * 3600, 600, 1e-6);
  // With them, the initial fleet's second VM is up from time 0 into tick 9
  // (540 s: the bound may put its instant at the tick's start). In tick 10
  // the fleet may shrink: the VM that took tick 9's 900 drains, and the
  // 500 finds the other idle. Two VMs held to the end cost about 1,201.
  EXPECT_NEAR(b.vm_hours * 3600, 600 + 540, 1e-6);
  EXPECT_LE(b.cost_usd, two->cost_usd);
}

// The timeline bills the VMs up at each point (the engine keeps running
// sums, where it walked every VM at each point): while the fleet holds
// still, each point adds exactly its VMs' time at their priority's price,
// the spot count is the mix's, and the last point is the run's cost.
TEST(Serving, TimelineBillsTheFleetUpAtEachPoint) {
  ServingConfig c = small_config();
  c.min_replicas = 1;
  c.initial_replicas = 1;
  c.max_replicas = 8;
  c.startup_s = 20;
  c.interval_s = 10;
  c.timeline_s = 10;
  c.spot.share = 0.5;
  c.spot.base_regular = 1;
  c.spot.usd_per_hour = 0.9;
  // Up to 7, down to 2, up to 5 and down to 1, holding each for 30 ticks.
  std::vector<int> script;
  for (const int n : {7, 2, 5, 1}) script.insert(script.end(), 30, n);
  ScriptedPolicy pol(script);
  std::vector<Request> reqs;
  reqs.reserve(1200);
  for (int i = 0; i < 1200; ++i) reqs.push_back({static_cast<SimTime>(i) * 1'000'000, 100, 20});
  VecSource src(reqs);
  auto r = run_serving(c, src, pol, PolicyContext{}, nullptr, true);
  ASSERT_TRUE(r) << r.error().to_string();
  ASSERT_GT(r->timeline.size(), 100u);
  int steady = 0;
  for (size_t i = 1; i < r->timeline.size(); ++i) {
    const TimelinePoint& a = r->timeline[i - 1];
    const TimelinePoint& b = r->timeline[i];
    EXPECT_GE(b.cost_usd, a.cost_usd - 1e-12);
    EXPECT_LE(b.spot_replicas, b.replicas);
    if (a.replicas == b.replicas && a.spot_replicas == b.spot_replicas &&
        i + 1 < r->timeline.size()) {
      const double regular = b.replicas - b.spot_replicas;
      const double want = (regular * 3.6 + b.spot_replicas * 0.9) * (b.t_hours - a.t_hours);
      if (std::abs(b.cost_usd - a.cost_usd - want) < 1e-9) ++steady;
      // Steady but not at this price: a VM left and one came within the step.
    }
    // The mix: pay-as-you-go are the first regular_of(n) of n VMs up.
    if (a.replicas == b.replicas && b.replicas > 0) {
      EXPECT_LE(b.replicas - b.spot_replicas, c.spot.regular_of(static_cast<int>(b.replicas)));
    }
  }
  EXPECT_GT(steady, 60);
  EXPECT_NEAR(r->timeline.back().cost_usd, r->cost_usd, 1e-9);
}

// A replay keeps at most max_timeline_points (the CLI's cap: a 1 s
// timeline of a long trace once ran out of memory); one past it stops at
// fleet.timeline_seconds instead of growing.
TEST(Serving, TimelineStopsAtItsPointCap) {
  ServingConfig c = small_config();
  c.timeline_s = 10;
  c.max_timeline_points = 20;
  std::vector<Request> reqs;
  reqs.reserve(1200);
  for (int i = 0; i < 1200; ++i) reqs.push_back({static_cast<SimTime>(i) * 1'000'000, 100, 20});
  ScriptedPolicy pol(std::vector<int>(200, 1));
  VecSource src(reqs);
  auto r = run_serving(c, src, pol, PolicyContext{}, nullptr, true);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where.field, "fleet.timeline_seconds");
  EXPECT_NE(r.error().message.find("reached 20 points"), std::string::npos) << r.error().message;
  // Without a timeline the cap does not apply.
  VecSource again(reqs);
  EXPECT_TRUE(run_serving(c, again, pol, PolicyContext{}, nullptr, false));
}

// What the engine reports to a policy, each tick.
class RecordingPolicy final : public ScalingPolicy {
 public:
  std::string_view name() const override { return "recording"; }
  void reset(const PolicyContext&) override { seen.clear(); }
  PolicyDecision decide(const PolicyInput& in) override {
    seen.push_back(in);
    return {in.ready + in.starting, Capacity::kOnDemand};
  }
  std::vector<PolicyInput> seen;
};

// What the engine tells a policy at its first two ticks (15 s apart) while
// it replays `v` on `c`'s fixed fleet; fewer when the run ends before.
std::vector<PolicyInput> first_two_ticks(const ServingConfig& c, const std::vector<Request>& v) {
  VecSource src(v);
  RecordingPolicy pol;
  auto r = run_serving(c, src, pol, PolicyContext{});
  EXPECT_TRUE(r);
  if (pol.seen.size() > 2) pol.seen.resize(2);
  return pol.seen;
}

// A prompt whose prefill alone is over the TTFT misses on any fleet: the
// engine tells the policy so (slo-guard leaves such misses out of its
// calibration), apart from a miss that more capacity would have avoided.
TEST(Serving, PolicySeesWhichMissesNoFleetCouldAvoid) {
  const ServingConfig c = small_config();  // prefill 1,000 tok/s, TTFT 1 s
  // 1,500 tokens: 1.5 s of prefill (hopeless); then two 800-token prompts
  // at once: the second waits for the first (TTFT 1.6 s), avoidable.
  VecSource src(
      {{seconds(1), 1500, 2}, {seconds(5), 800, 2}, {seconds(5), 800, 2}, {seconds(20), 10, 2}});
  RecordingPolicy pol;
  auto r = run_serving(c, src, pol, PolicyContext{});
  ASSERT_TRUE(r);
  ASSERT_FALSE(pol.seen.empty());
  EXPECT_EQ(pol.seen[0].arrivals, 3);
  EXPECT_EQ(pol.seen[0].missed, 2);
  EXPECT_EQ(pol.seen[0].hopeless, 1);
  // The run's counts by cause: both missed the TTFT, one on any fleet.
  EXPECT_EQ(r->missed_ttft, 2);
  EXPECT_EQ(r->missed_tpot, 0);
  EXPECT_EQ(r->hopeless, 1);
}

// A crowd that holds a replica busy for seconds shows in no single second:
// ten 700-token prompts (0.7 s of prefill each at 1,000 tok/s), one a
// second, ask for 0.7 / (1 + 1) = 0.35 replicas by their busiest second, and
// the policy is told the busiest window of 1, 2, 4, ... 64 s: the 8 s that
// end with the last hold 5.6 s of prefill, 5.6 / (8 + 1) = 0.62 replicas
// (4 s: 2.8 / 5 = 0.56; 16 s: 7 / 17 = 0.41).
TEST(Serving, PolicySeesTheBusiestWindowOfPrefill) {
  std::vector<Request> v;
  for (int k = 1; k <= 10; ++k) v.push_back({seconds(k + 0.5), 700, 2});
  v.push_back({seconds(40), 10, 2});
  // prefill 1,000 tok/s, TTFT 1 s
  const std::vector<PolicyInput> seen = first_two_ticks(small_config(), v);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_NEAR(seen[0].prefill_window_need, 5.6 / 9, 1e-9);
  // The next interval has no arrivals: it sees no window ending in it (the
  // last busy second is not seen again).
  EXPECT_EQ(seen[1].prefill_window_need, 0);
}

// The backlog a policy is told: prefill the replicas have queued beyond
// now and the waiting requests' TPOT load. One replica of two slots
// (prefill 1,000 tok/s, step 10 ms + 1 ms per sequence); five 900-token
// prompts with 101-token answers arrive 0.5 s before the first tick (15 s).
// Two are admitted: the first prefills alone (0.9 s, to 15.4 s), the
// second beside it (0.9 s + 900 / 2,048 chunks x step(1) 11 ms); three wait,
// each 0.9 s of prefill + 100 x 1 ms of decode steps.
TEST(Serving, PolicySeesTheBacklog) {
  ServingConfig c = small_config();
  c.replica.max_batch = 2;
  std::vector<Request> v(5, Request{seconds(14.5), 900, 101});
  v.push_back({seconds(40), 10, 2});
  const std::vector<PolicyInput> seen = first_two_ticks(c, v);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].queued, 3);
  const double committed = (15.4 - 15) + 0.9 + 900.0 / c.replica.chunk_tokens * 0.011;
  EXPECT_NEAR(seen[0].backlog_s, committed + 3 * (0.9 + 100 * 0.001), 1e-5);
  // All served by the next tick: no backlog (the waiting sum is exactly 0).
  EXPECT_EQ(seen[1].queued, 0);
  EXPECT_EQ(seen[1].backlog_s, 0);
}

// Bursty requests over `seconds_long`: Poisson at 0.6 req/s (prompts
// 100..600 tokens: one replica's prefill share ~15 %) with 3 bursts of 8
// requests within half a second after the first 50 s.
std::vector<Request> bursty_requests(uint64_t seed, double seconds_long) {
  Rng rng(seed);
  std::vector<Request> v;
  for (double t = rng.exponential(1 / 0.6); t < seconds_long; t += rng.exponential(1 / 0.6))
    v.push_back({seconds(t), static_cast<float>(100 + std::floor(rng.uniform() * 500)),
                 static_cast<float>(5 + std::floor(rng.uniform() * 60))});
  for (int b = 0; b < 3; ++b) {
    const double at = 50 + rng.uniform() * (seconds_long - 60);
    for (int i = 0; i < 8; ++i)
      v.push_back({seconds(at + 0.06 * i),
                   static_cast<float>(200 + std::floor(rng.uniform() * 500)),
                   static_cast<float>(5 + std::floor(rng.uniform() * 60))});
  }
  std::sort(v.begin(), v.end(),
            [](const Request& a, const Request& b) { return a.arrival < b.arrival; });
  return v;
}

// Sustained load: a 650-token prompt (0.43 s of prefill) every 1/2.6 s from
// 46 s to 116 s (a VM launched at the first tick serves from 45 s), 1.13
// prefill-seconds per second: every 15-s tick in between needs a second VM,
// not only an instant of one.
std::vector<Request> sustained_requests(uint64_t seed) {
  Rng rng(seed);
  std::vector<Request> v;
  for (double t = 46; t < 116; t += 1.0 / 2.6)
    v.push_back({seconds(t), 650, static_cast<float>(5 + std::floor(rng.uniform() * 60))});
  return v;
}

// The bound against every schedule of 1..3 VMs per 15-s tick over 8 ticks
// (6,561 schedules): no schedule costs less than the bound at its own
// attainment, and at 90 %, 95 % and the best attainment any schedule
// reaches, the cheapest schedule is within 1.55x the bound (measured
// 1.15-1.52x with the minute's tick replays, 1.13-1.35x when the 15-s
// ticks were replayed too, 1.35-1.67x with no replays: VMs change only at
// ticks, the bound lets a level appear for an instant). A bound at the
// floor alone would be 2.1x at 100 %.
// The sustained trace (seed 0) checks the runs of the bound's cost: the
// second VM, needed in five consecutive ticks, is up from the first to the
// last (its start-up plus three ticks: 1.15x below the cheapest schedule at
// 100 %); a sum over pairs of consecutive ticks charged it one start-up
// (1.50x). With misses allowed the Lagrangian drops it in ticks at the
// fewest misses each overflow forces (1.82-1.89x at 90-95 %), so there only
// the bound's validity is checked.
// The exhaustive tests' fleet: replicas of `max_batch` sequences, 1 to 3
// VMs decided every 15 s, a 30-s start-up.
ServingConfig three_vm_config(int max_batch) {
  ServingConfig c;
  c.replica = {1500, 0.002, 0.010, 0.001, max_batch, "test"};
  c.ttft_slo_s = 1.0;
  c.tpot_slo_s = 0.05;
  c.startup_s = 30;
  c.usd_per_hour = 3.6;
  c.min_replicas = 1;
  c.initial_replicas = 1;
  c.max_replicas = 3;
  c.interval_s = 15;
  return c;
}

// Every schedule of 1..3 VMs over 8 ticks (6,561) on `reqs`: each costs at
// least the bound at its own attainment. Returns (attainment, cost) of each.
std::vector<std::pair<double, double>> every_schedule_above(const std::vector<Request>& reqs,
                                                            const ServingConfig& c,
                                                            const ServingBoundModel& bound) {
  std::vector<std::pair<double, double>> runs;
  runs.reserve(6561);
  std::vector<int> plan(8, 1);
  for (int code = 0; code < 6561; ++code) {
    for (int i = 0, x = code; i < 8; ++i, x /= 3) plan[static_cast<size_t>(i)] = 1 + x % 3;
    ScriptedPolicy pol(plan);
    VecSource src(reqs);
    auto r = run_serving(c, src, pol, PolicyContext{});
    EXPECT_TRUE(r);
    if (!r) return runs;
    const ServingBound b = bound.at(r->slo_attainment());
    EXPECT_GE(r->cost_usd, b.cost_usd * (1 - 1e-9))
        << "schedule " << code << " at " << r->slo_attainment();
    runs.push_back({r->slo_attainment(), r->cost_usd});
  }
  return runs;
}

TEST(Serving, LowerBoundHoldsAgainstEveryScheduleOfSmallTraces) {
  const ServingConfig c = three_vm_config(16);
  for (uint64_t seed : {0u, 1u, 2u, 3u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::vector<Request> reqs =
        seed == 0 ? sustained_requests(7) : bursty_requests(seed, 130);
    const DemandProfile prof = profile_of(reqs, c);
    const ServingBoundModel bound(prof, c);
    const std::vector<std::pair<double, double>> runs = every_schedule_above(reqs, c, bound);
    // Tightness at the attainments the schedules reach.
    double top = 0;
    for (const auto& [a, cost] : runs) top = std::max(top, a);
    if (seed == 0) {  // the floor to the last arrival, then level 2's run
      const double floor_s = to_seconds(reqs.back().arrival);
      EXPECT_GE(bound.at(top).vm_hours * 3600, floor_s + c.startup_s + 3 * c.interval_s - 1e-6);
    }
    for (double target : {0.9, 0.95, top}) {
      if (seed == 0 && target < top) continue;
      double best = std::numeric_limits<double>::infinity();
      for (const auto& [a, cost] : runs)
        if (a >= target) best = std::min(best, cost);
      const ServingBound b = bound.at(target);
      std::printf(
          "seed %d: %zu requests, attainment %.4f: best schedule $%.5f, bound $%.5f (%.2fx)\n",
          static_cast<int>(seed), reqs.size(), target, best, b.cost_usd, best / b.cost_usd);
      EXPECT_LE(best, 1.55 * b.cost_usd);
    }
    EXPECT_GT(bound.at(top).peak_replicas, 1);  // the bursts need more than the floor
  }
}

// Long answers (1,000-2,500 tokens, 11-28 s of decode at the least) whose
// decode outlives the tick they arrived in, one a second, on replicas of 4
// sequences and at most 3 VMs: far more than the cap serves, and shedding
// serves what it can. A miss relieves every tick its request runs through,
// so the bound charges it to its arrival's tick alone; counting it in each
// tick put the bound above every schedule here (schedule 0: 1 VM, 16.8 %)
// and above what azure-autoscale paid (0.74x) on 70B-class decodes over a
// capped fleet. Every schedule of 1..3 VMs per tick costs at least the bound
// at its own attainment, and the bound still needs more than the floor.
TEST(Serving, LowerBoundChargesAMissToOneTick) {
  ServingConfig c = three_vm_config(4);
  c.admission = Admission::kShed;  // overload serves what it can, not nothing
  for (uint64_t seed : {1u, 2u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Rng rng(seed);
    std::vector<Request> reqs;
    for (double t = rng.exponential(1.0); t < 120; t += rng.exponential(1.0))
      reqs.push_back({seconds(t), static_cast<float>(50 + std::floor(rng.uniform() * 200)),
                      static_cast<float>(1000 + std::floor(rng.uniform() * 1500))});
    const DemandProfile prof = profile_of(reqs, c);
    const ServingBoundModel bound(prof, c);
    EXPECT_EQ(every_schedule_above(reqs, c, bound).size(), 6561u);
    EXPECT_GT(bound.at(1).peak_replicas, 1);
  }
}

// An answer of one token has no TPOT: it meets the SLO beside any batch,
// so the bound's decode slots (at most K sequences that meet TPOT per
// replica) must not count it. The fuzzing that found it (issue 11's bound
// review): a 150-token answer decoding while a one-token answer with a
// 0.6-s prefill comes; TPOT 65 ms allows one sequence (step(1) = 60 ms,
// step(2) = 80 ms). One VM meets both, and the bound charged a second one
// (cost_vs_optimal 0.14).
TEST(Serving, LowerBoundLeavesOneTokenAnswersOutOfTheDecodeSlots) {
  ServingConfig c = three_vm_config(8);
  c.replica = {1000, 0, 0.040, 0.020, 8, "test"};
  c.tpot_slo_s = 0.065;
  const std::vector<Request> pair = {{seconds(0.5), 10, 150}, {seconds(5.5), 600, 1}};
  VecSource src(pair);
  ScriptedPolicy one({1});
  auto r = run_serving(c, src, one, PolicyContext{});
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->slo_met, 2);
  const ServingBoundModel bound(profile_of(pair, c), c);
  EXPECT_EQ(bound.at(1.0).peak_replicas, 1);
  EXPECT_LE(bound.at(1.0).cost_usd, r->cost_usd * (1 + 1e-9));
  // The same every 15 s for two minutes, against every schedule; a two-
  // token answer instead does miss beside the decode (and is still counted).
  for (const int answer : {1, 2}) {
    SCOPED_TRACE("answer " + std::to_string(answer));
    std::vector<Request> reqs;
    for (double t = 0.5; t < 120; t += 15) {
      reqs.push_back({seconds(t), 10, 150});
      reqs.push_back({seconds(t + 5), 600, static_cast<float>(answer)});
    }
    const ServingBoundModel b(profile_of(reqs, c), c);
    EXPECT_EQ(every_schedule_above(reqs, c, b).size(), 6561u);
  }
}

// Arrivals every 20 ms with long prompts: one replica cannot keep up, so the
// routing over two replicas matters.
std::vector<Request> busy_requests() {
  std::vector<Request> v;
  v.reserve(400);
  for (int i = 0; i < 400; ++i)
    v.push_back(
        {seconds(0.02 * i), static_cast<float>(30 + (i % 7) * 10), static_cast<float>(5 + i % 11)});
  return v;
}

TEST(Serving, OneVmOfTwoReplicasServesLikeTwoVmsOfOne) {
  ServingConfig one = small_config();  // one model replica per VM
  one.min_replicas = one.initial_replicas = one.max_replicas = 2;
  ServingConfig two = one;  // two model replicas per (2-GPU) VM at twice the price
  two.min_replicas = two.initial_replicas = two.max_replicas = 1;
  two.replicas_per_vm = 2;
  two.gpus_per_vm = 2;
  two.usd_per_hour = 2 * one.usd_per_hour;
  PolicyContext ctx;
  ctx.peak_replicas = 2;
  auto pa = make_serving_policy("static-peak", one);
  VecSource sa(busy_requests());
  auto a = run_serving(one, sa, *pa, ctx);
  ctx.peak_replicas = 1;
  auto pb = make_serving_policy("static-peak", two);
  VecSource sb(busy_requests());
  auto b = run_serving(two, sb, *pb, ctx);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->requests, b->requests);
  EXPECT_EQ(a->slo_met, b->slo_met);
  EXPECT_LT(a->slo_met, a->requests);  // the load is high enough to matter
  EXPECT_EQ(a->ttft_ms.quantile(0.99), b->ttft_ms.quantile(0.99));
  EXPECT_EQ(a->tpot_ms.quantile(0.5), b->tpot_ms.quantile(0.5));
  EXPECT_DOUBLE_EQ(a->end_s, b->end_s);
  // Same GPUs for the same time, same money; half the VM-hours.
  EXPECT_NEAR(b->vm_hours * 2, a->vm_hours, 1e-12);
  EXPECT_NEAR(a->gpu_hours, b->gpu_hours, 1e-12);
  EXPECT_NEAR(a->cost_usd, b->cost_usd, 1e-12);
  EXPECT_NEAR(b->gpu_hours, b->vm_hours * 2, 1e-12);  // GPU-hours = VM-hours x GPUs per VM
  EXPECT_EQ(b->peak_replicas, 1);
}

TEST(Serving, AVmCancelledWhileStartingDoesNotMakeItsSuccessorReadyEarly) {
  ServingConfig c = small_config();
  c.max_replicas = 4;
  c.startup_s = 60;
  // 15 s: launch a second VM; 30 s: cancel it; 45 s: launch again (same
  // slot). The relaunched VM serves at 105 s, not at the cancelled one's 75 s.
  ScriptedPolicy pol({2, 1, 2});
  VecSource src({{0, 100, 2}, {seconds(300), 100, 2}});
  std::string log;
  auto r = run_serving(c, src, pol, PolicyContext{}, &log);
  ASSERT_TRUE(r);
  EXPECT_NE(log.find("0.029h scripted replica 1 ready"), std::string::npos) << log;
  EXPECT_EQ(log.find("0.021h scripted replica 1 ready"), std::string::npos) << log;
  // Billed: VM 0 throughout, VM 1 from 15 s to 30 s and from 45 s on.
  EXPECT_NEAR(r->vm_hours, (r->end_s + 15 + (r->end_s - 45)) / 3600, 1e-9);
}

// The run, and billing, end when the last request has left, with VMs still
// starting cancelled then: a start-up of an hour once billed the floor VM
// until a cancelled start-up's ready time, and spot VMs evicted while
// starting were relaunched for ever after the trace (28 M evictions).
TEST(Serving, TheRunEndsWithTheLastRequestNotWithPendingStartUps) {
  ServingConfig c = small_config();
  c.max_replicas = 4;
  c.startup_s = 3600;
  // 15 s: launch 3 more; 30 s: cancel them; 45 s: launch 3 more.
  ScriptedPolicy pol({4, 1, 4});
  VecSource src({{0, 100, 2}, {seconds(100), 100, 2}});
  auto r = run_serving(c, src, pol, PolicyContext{});
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_GT(r->end_s, 100);
  EXPECT_LT(r->end_s, 101);
  // VM 0 to the end; three from 15 to 30 s; three from 45 s to the end.
  EXPECT_NEAR(r->vm_hours, (r->end_s + 3 * 15 + 3 * (r->end_s - 45)) / 3600, 1e-9);

  ServingConfig spot = small_config();
  spot.min_replicas = spot.initial_replicas = 0;
  spot.max_replicas = 2;
  spot.startup_s = 7200;
  spot.spot.share = 1;
  spot.spot.evictions_per_hour = 10;
  spot.spot.usd_per_hour = 0.9;
  ScriptedPolicy two({2});
  VecSource one({{seconds(5), 100, 2}});
  auto s = run_serving(spot, one, two, PolicyContext{});
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_LT(s->end_s, 7200 + 3600);  // never served: gone at the client's timeout
  EXPECT_LT(s->evictions, 100);
}

TEST(Serving, PlanningBatchUsesTheWholeTpotWhenHalfIsTooLittle) {
  ReplicaCapacity r{25000, 0.005, 0.026, 0.0001, 800, "test"};
  // 26 ms at batch 1 exceeds half of 50 ms: plan on the whole budget.
  EXPECT_EQ(r.batch_at_slo(0.05), 240);
  r.step_base_s = 0.011;
  EXPECT_EQ(r.batch_at_slo(0.05), 140);  // the half budget: (25 - 11) / 0.1
  r.step_base_s = 0.06;
  EXPECT_EQ(r.batch_at_slo(0.05), 1);
}

// A scenario's text, parsed and run on the embedded catalog.
Result<SimReport> run_text(const std::string& text, const RunOptions& o = {}) {
  auto s = parse_scenario_string(text, "multi-gpu");
  if (!s) return tl::unexpected(s.error());
  static const auto kCatalog = catalog::Catalog::load_embedded();
  if (!kCatalog) return tl::unexpected(kCatalog.error());
  return run_scenario(*s, kCatalog->get(), o);
}

// The serving example on another VM size (and tensor_parallel), the fleet
// from `fleet`, explicit prices so that GPU-hours can be checked against cost.
Result<SimReport> serve_on(const std::string& size, int tp, const std::string& fleet,
                           const std::string& policies = "all") {
  return run_text("kind: serving\nvm: {size: " + size +
                  ", region: eastus}\n"
                  "prices: {on_demand_usd_per_hour: 10}\nmodel: llama-3.1-8b\n" +
                  (tp ? "tensor_parallel: " + std::to_string(tp) + "\n" : std::string()) +
                  "slo: {ttft_ms: 1000, tpot_ms: 50}\n"
                  "demand: {azure_trace: " +
                  std::string(GPUPLAN_SOURCE_DIR) +
                  "/data/traces/azure_llm_2023_conv.csv}\nfleet: " + fleet +
                  "\npolicies: " + policies + "\n");
}

// A crowd of 8x the rate comes 72 s in and lasts 6 minutes, while a VM
// takes 10 minutes to start and the fleet starts with one: every policy
// misses the target, and the report names the fixed fleet that meets it —
// the fewest VMs that do, ready from the start and held. The size it names
// is checked by replaying it and the one below it.
std::string crowd_scenario(const std::string& fleet, double rate_rps, double crowd) {
  return "kind: serving\nvm: {size: Standard_NC40ads_H100_v5, region: eastus}\n"
         "prices: {on_demand_usd_per_hour: 10}\nmodel: llama-3.1-8b\n"
         "slo: {ttft_ms: 1000, tpot_ms: 50}\n"
         "demand:\n  synthetic:\n    rate_rps: " +
         strings::fixed(rate_rps, 1) +
         "\n    duration_hours: 0.5\n"
         "    input_tokens: {mean: 2000, stddev: 500, min: 100, max: 4000}\n"
         "    output_tokens: {mean: 100, stddev: 50, min: 5, max: 400}\n"
         "    bursts:\n      - {start_hour: 0.02, duration_hours: 0.1, multiplier: " +
         strings::fixed(crowd, 1) + "}\nfleet: " + fleet + "\npolicies: all\n";
}

std::string fixed_note(const SimReport& r) {
  for (const std::string& n : r.notes)
    if (n.rfind("fixed fleet:", 0) == 0) return n;
  return "";
}

TEST(Serving, NamesTheFixedFleetThatMeetsTheTargetWhenNoPolicyDoes) {
  auto r = run_text(crowd_scenario(
      "{startup_seconds: 600, min_replicas: 1, initial_replicas: 1, max_replicas: 8}", 3, 8));
  ASSERT_TRUE(r) << r.error().to_string();
  for (const PolicyRow& p : r->policies) {
    if (p.policy != "optimal") {
      EXPECT_LT(*p.slo_attainment, 0.99) << p.policy;
    }
  }
  const std::string note = fixed_note(*r);
  ASSERT_FALSE(note.empty());
  const size_t at = note.find("; ");
  ASSERT_NE(at, std::string::npos) << note;
  const int n = std::stoi(note.substr(at + 2));
  ASSERT_GE(n, 2) << note;  // one VM is what every policy started with
  const auto held = [&](int vms) {
    const std::string k = std::to_string(vms);
    auto f = run_text(crowd_scenario("{startup_seconds: 600, min_replicas: " + k +
                                         ", initial_replicas: " + k + ", max_replicas: " + k + "}",
                                     3, 8));
    EXPECT_TRUE(f) << f.error().to_string();
    double met = 0;
    for (const PolicyRow& p : f->policies)
      if (p.policy == "static-peak") met = *p.slo_attainment;
    return met;
  };
  const double at_n = held(n), below = held(n - 1);
  EXPECT_GE(at_n, 0.99);
  EXPECT_LT(below, 0.99);
  // The note states both figures.
  EXPECT_NE(note.find(strings::fixed(at_n * 100, 2) + " %"), std::string::npos) << note;
  EXPECT_NE(note.find(std::to_string(n - 1) + ": " + strings::fixed(below * 100, 2) + " %"),
            std::string::npos)
      << note;
}

TEST(Serving, SaysWhenNoFixedFleetUnderTheCapMeetsTheTarget) {
  auto r = run_text(crowd_scenario(
      "{startup_seconds: 600, min_replicas: 1, initial_replicas: 1, max_replicas: 2}", 3, 8));
  ASSERT_TRUE(r) << r.error().to_string();
  const std::string note = fixed_note(*r);
  EXPECT_NE(note.find("neither does a fleet of max_replicas (2 replicas)"), std::string::npos)
      << note;
}

// A fixed fleet whose replay the engine stops does not meet the target,
// and the search goes on above it; the report stands. 20 req/s of 2,000-
// token prompts ask 40,000 prefill tokens a second, over one H100 NVL's
// 37,869 (the estimator's replica): one VM's backlog only grows, and the
// cap on simulated time (the demand's half hour and 300 s) stops its
// replay. Two VMs at about half their prefill each meet the target. The
// policies start with one VM and wait 600 s for a second: they miss.
TEST(Serving, AFixedFleetReplayTheEngineStopsIsOneThatMisses) {
  RunOptions o;
  o.max_simulated_s = 2100;
  const auto scenario = [](int initial, int max) {
    return crowd_scenario(
        "{startup_seconds: 600, min_replicas: 1, initial_replicas: " + std::to_string(initial) +
            ", max_replicas: " + std::to_string(max) + ", queue_timeout_seconds: 0}",
        20, 1);
  };
  auto r = run_text(scenario(1, 40), o);
  ASSERT_TRUE(r) << r.error().to_string();
  const std::string note = fixed_note(*r);
  EXPECT_NE(note.find("; 2 replicas ready from the start"), std::string::npos) << note;
  EXPECT_NE(note.find("(1: its replay stopped: the replay under static-peak was still serving"),
            std::string::npos)
      << note;
  // Alone, the one-VM fleet's replay is an error at the field.
  auto one = run_text(scenario(1, 1), o);
  ASSERT_FALSE(one);
  EXPECT_EQ(one.error().where.field, "fleet.queue_timeout_seconds");
}

// Prompts of about 2,000 tokens take ~53 ms of H100 NVL prefill (37,869 tokens/s): with a 40-ms
// TTFT nearly every request is one no fleet of this size serves, so no
// size meets the target and no fixed fleet is searched for (at a cap of
// 4,096 it would replay thousands of replicas for nothing); the bound's
// note says why.
TEST(Serving, NoFixedFleetSearchWhereNoFleetCanMeetTheTarget) {
  std::string text = crowd_scenario(
      "{startup_seconds: 600, min_replicas: 1, initial_replicas: 1, max_replicas: 4096}", 3, 8);
  const size_t at = text.find("ttft_ms: 1000");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 13, "ttft_ms: 40");
  auto r = run_text(text);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(fixed_note(*r), "");
  bool said = false;
  for (const std::string& n : r->notes)
    said = said || n.rfind("no fleet within max_replicas", 0) == 0;
  EXPECT_TRUE(said);
}

TEST(Serving, NoFixedFleetNoteWhenAPolicyMeetsTheTarget) {
  // The same shape without the crowd, at a rate one VM serves.
  auto r = run_text(crowd_scenario(
      "{startup_seconds: 600, min_replicas: 1, initial_replicas: 1, max_replicas: 8}", 0.5, 1));
  ASSERT_TRUE(r) << r.error().to_string();
  bool met = false;
  for (const PolicyRow& p : r->policies)
    met = met || (p.policy != "optimal" && *p.slo_attainment >= 0.99);
  ASSERT_TRUE(met);
  EXPECT_EQ(fixed_note(*r), "");
}

double gpus_of(const std::string& size) {
  static const auto kCatalog = catalog::Catalog::load_embedded();
  return (*kCatalog)->find_size(size)->gpu_count;
}

// A quota is Azure's cap on the fleet: one that does not hold the fleet
// the file starts or keeps (or a single VM) is the file's to fix, exit 2 at
// fleet.quota_vcpus. The cap held one VM under a quota of none, and the
// engine started six initial VMs above a one-VM cap while the bound held
// one: every policy beat the bound's own "at most 25 %" attainment.
TEST(Serving, AQuotaBelowTheFleetIsAnErrorAtTheQuota) {
  for (const char* fleet : {"{quota_vcpus: 24, initial_replicas: 6, max_replicas: 8}",
                            "{quota_vcpus: 48, min_replicas: 3, max_replicas: 8}",
                            "{quota_vcpus: 12, min_replicas: 0, initial_replicas: 0}"}) {
    SCOPED_TRACE(fleet);
    auto r = serve_on("Standard_NC24ads_A100_v4", 0, fleet, "static-peak");  // 24 vCPUs
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
    EXPECT_EQ(r.error().where.field, "fleet.quota_vcpus");
    EXPECT_NE(r.error().message.find("24 vCPUs each"), std::string::npos) << r.error().message;
  }
  auto ok = serve_on("Standard_NC24ads_A100_v4", 0,
                     "{quota_vcpus: 48, initial_replicas: 2, max_replicas: 8}", "static-peak");
  ASSERT_TRUE(ok) << ok.error().to_string();
  bool capped = false;
  for (const Assumed& a : ok->assumptions)
    capped |= a.name == "quota_cap_replicas" && a.value == "2";
  EXPECT_TRUE(capped);
}

// A tensor-parallel size the file names that cannot hold the weights is
// the file's to fix (it exited 1, naming no field).
TEST(Serving, ATensorParallelThatDoesNotHoldTheModelIsAnErrorAtIt) {
  const std::string text =
      "kind: serving\nvm: {size: Standard_ND96asr_v4, region: eastus}\n"
      "model: llama-3.1-70b\ntensor_parallel: 2\n"
      "demand: {synthetic: {rate_rps: 1, duration_hours: 0.1}}\n";
  auto s = parse_scenario_string(text, "tp.yaml");
  ASSERT_TRUE(s) << s.error().to_string();
  const auto cat = catalog::Catalog::load_embedded();
  ASSERT_TRUE(cat);
  auto r = run_scenario(*s, cat->get(), RunOptions{});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.error().where.field, "tensor_parallel");
  EXPECT_EQ(r.error().where.line, 4);
  EXPECT_NE(r.error().message.find("weights need"), std::string::npos) << r.error().message;
}

// The policies' trailing maxima (HPA stabilization, predictive's peak and
// hold, slo-guard's hold) are what a scan of the window gives: ties, values
// exactly at the window's edge, a zero window and uneven times included.
TEST(Serving, WindowMaxIsTheLargestValueOfItsWindow) {
  Rng rng(7);
  for (const double window : {0.0, 1.0, 15.0, 300.0}) {
    SCOPED_TRACE(window);
    internal::WindowMax<int> fast;
    std::vector<std::pair<double, int>> all;
    double t = 0;
    for (int i = 0; i < 5000; ++i) {
      t += static_cast<double>(rng.below(4));  // repeats, steps of 1 to 3
      const int v = static_cast<int>(rng.below(6));
      all.emplace_back(t, v);
      int scan = v;
      for (const auto& [u, w] : all)
        if (u >= t - window) scan = std::max(scan, w);
      ASSERT_EQ(fast.push(t, v, window), scan) << "at " << t;
    }
  }
}

// A replay may be held to a span of simulated time (the server's caps count
// the demand's duration): one still draining a backlog past it stops with an
// error at the queue timeout that let it, with the file's line; with a
// timeout, or within the span, the same scenario runs.
TEST(Serving, AReplayPastItsSimulatedSpanStopsAtTheQueueTimeout) {
  const std::string head =
      "kind: serving\nvm: {size: Standard_NC24ads_A100_v4, region: eastus}\n"
      "prices: {on_demand_usd_per_hour: 3}\npolicies: [hpa]\n"
      "replica: {prefill_tokens_per_s: 10000, prefill_fixed_ms: 50, step_base_ms: 100, "
      "step_per_seq_ms: 10, max_batch: 1}\n"
      "demand: {synthetic: {rate_rps: 4, duration_hours: 0.05, "
      "input_tokens: {mean: 1000, stddev: 0}, output_tokens: {mean: 100, stddev: 0}}}\n";
  // 720 requests of ~10 s each on two VMs: an hour of backlog.
  const std::string forever = head + "fleet: {max_replicas: 2, queue_timeout_seconds: 0}\n";
  auto s = parse_scenario_string(forever, "drain.yaml");
  ASSERT_TRUE(s) << s.error().to_string();
  RunOptions o;
  o.max_simulated_s = 1800;
  auto r = run_scenario(*s, nullptr, o);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.error().where.field, "fleet.queue_timeout_seconds");
  EXPECT_EQ(r.error().where.line, 7);
  EXPECT_NE(r.error().message.find("requests still queued"), std::string::npos)
      << r.error().message;
  o.max_simulated_s = 0;  // no limit: the backlog drains
  auto all = run_scenario(*s, nullptr, o);
  ASSERT_TRUE(all) << all.error().to_string();
  EXPECT_EQ(all->policies[0].rejected.value_or(-1), 0);      // every request served
  EXPECT_GT(*all->policies[0].vm_hours, 2 * 1800 / 3600.0);  // two VMs past the span
  // Clients that give up after 10 minutes leave the backlog within the span.
  auto timeout =
      parse_scenario_string(head + "fleet: {max_replicas: 2, queue_timeout_seconds: 600}\n", "t");
  ASSERT_TRUE(timeout) << timeout.error().to_string();
  o.max_simulated_s = 1800;
  auto gave_up = run_scenario(*timeout, nullptr, o);
  ASSERT_TRUE(gave_up) << gave_up.error().to_string();
  EXPECT_GT(gave_up->policies[0].rejected.value_or(0), 0);
  // Demand that outlasts the span names the demand.
  o.max_simulated_s = 60;
  auto short_span = run_scenario(*timeout, nullptr, o);
  ASSERT_FALSE(short_span);
  EXPECT_EQ(short_span.error().where.field, "demand");
}

// Without a span (the CLI), a backlog still drains as long as it takes, up to
// ten times the demand's span (at least a week): a fleet whose spot VMs never
// outlive their day-long start-up, with clients that wait for ever, used to
// replay for ever (fuzz 1-260). It stops with an error at the queue timeout
// that let it, saying why, and nothing is written.
TEST(Serving, ABacklogNoFleetCanDrainStopsTheReplay) {
  const std::string never =
      "kind: serving\nvm: {size: Standard_NC24ads_A100_v4, region: eastus}\n"
      "prices: {on_demand_usd_per_hour: 3, spot_ratio: 0.3}\npolicies: [static-peak]\n"
      "replica: {prefill_tokens_per_s: 10000, prefill_fixed_ms: 50, step_base_ms: 10, "
      "step_per_seq_ms: 1, max_batch: 8}\n"
      "demand: {synthetic: {rate_rps: 0.5, duration_hours: 0.1, "
      "input_tokens: {mean: 1000, stddev: 0}, output_tokens: {mean: 100, stddev: 0}}}\n"
      "fleet: {initial_replicas: 0, min_replicas: 0, max_replicas: 2, startup_seconds: 86400, "
      "queue_timeout_seconds: 0,\n"
      "        spot: {share: 1, evictions_per_hour: 10, notice_seconds: 30}}\n";
  auto s = parse_scenario_string(never, "never.yaml");
  ASSERT_TRUE(s) << s.error().to_string();
  auto r = run_scenario(*s, nullptr, RunOptions{});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.error().where.field, "fleet.queue_timeout_seconds");
  EXPECT_EQ(r.error().where.line, 7);
  EXPECT_NE(r.error().message.find("cannot drain its backlog"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("168.00 h after the last arrival"), std::string::npos)
      << r.error().message;
}

TEST(Serving, MultiGpuSizesBillVmsAndTheBoundStaysBelowPoliciesThatMeetTheSlo) {
  struct Case {
    const char* size;
    int tp;
  };
  for (const Case& k : {Case{"Standard_NC24ads_A100_v4", 0}, Case{"Standard_NC48ads_A100_v4", 0},
                        Case{"Standard_NC48ads_A100_v4", 2}, Case{"Standard_ND96amsr_A100_v4", 1},
                        Case{"Standard_ND96amsr_A100_v4", 0}}) {
    SCOPED_TRACE(std::string(k.size) + " tp " + std::to_string(k.tp));
    auto r = serve_on(k.size, k.tp,
                      "{startup_seconds: 300, min_replicas: 1, initial_replicas: 2, "
                      "max_replicas: 16}");
    ASSERT_TRUE(r) << r.error().to_string();
    const PolicyRow& opt = r->policies.back();
    ASSERT_EQ(opt.policy, "optimal");
    for (const PolicyRow& p : r->policies) {
      SCOPED_TRACE(p.policy);
      // GPU-hours = VM-hours x GPUs per VM, VM-hours = cost / price per VM.
      EXPECT_NEAR(p.gpu_hours, p.cost_usd / 10 * gpus_of(k.size), 1e-9);
      if (p.slo_attainment && *p.slo_attainment >= 0.99) {
        EXPECT_LE(opt.cost_usd, p.cost_usd * (1 + 1e-9));
      }
    }
  }
}

TEST(Serving, TwoGpuSizeIsTwoOneGpuReplicasPerVm) {
  // A fixed fleet of 2 single-GPU VMs and of 1 two-GPU VM: the same replicas
  // (tensor_parallel 1 is the better layout for an 8B model over PCIe), so
  // the same latencies and GPU-hours, at the same price per GPU-hour.
  auto one = serve_on("Standard_NC24ads_A100_v4", 0,
                      "{min_replicas: 2, initial_replicas: 2, max_replicas: 2}", "static-peak");
  auto two = serve_on("Standard_NC48ads_A100_v4", 0,
                      "{min_replicas: 1, initial_replicas: 1, max_replicas: 1}", "static-peak");
  ASSERT_TRUE(one) << one.error().to_string();
  ASSERT_TRUE(two) << two.error().to_string();
  const PolicyRow &a = one->policies[0], &b = two->policies[0];
  EXPECT_EQ(a.slo_attainment, b.slo_attainment);
  EXPECT_EQ(a.p99_ttft_ms, b.p99_ttft_ms);
  EXPECT_EQ(a.p99_tpot_ms, b.p99_tpot_ms);
  EXPECT_NEAR(a.gpu_hours, b.gpu_hours, 1e-9);
  EXPECT_NEAR(a.cost_usd, 2 * b.cost_usd, 1e-9);  // $10 per VM either way
  bool said = false;
  for (const Assumed& x : two->assumptions)
    if (x.name == "replicas_per_vm") said = x.value.rfind("2 (tensor_parallel 1 on 2 GPU", 0) == 0;
  EXPECT_TRUE(said);
  // More GPUs per replica than the VM has is bad input, named.
  auto bad = serve_on("Standard_NC24ads_A100_v4", 2, "{min_replicas: 1}");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where.field, "tensor_parallel");
  // So is a size that does not divide the 32 attention heads (vLLM refuses
  // it): 3 of ND96amsr's 8 GPUs ran as 2 replicas.
  auto odd = serve_on("Standard_ND96amsr_A100_v4", 3, "{min_replicas: 1}");
  ASSERT_FALSE(odd);
  EXPECT_EQ(odd.error().where.field, "tensor_parallel");
  EXPECT_NE(odd.error().message.find("32 attention heads"), std::string::npos)
      << odd.error().message;
}

TEST(Serving, HpaFormulaToleranceAndStabilization) {
  auto hpa = make_hpa_policy(HpaSettings{});
  hpa->reset({});
  PolicyInput in;
  in.ready = 4;
  in.utilization = 0.9;  // ratio 1.5 -> ceil(4 x 1.5) = 6
  EXPECT_EQ(hpa->decide(in).replicas, 6);
  in.now_s = 30;
  in.ready = 6;
  in.utilization = 0.63;  // ratio 1.05: inside the 10 % tolerance
  EXPECT_EQ(hpa->decide(in).replicas, 6);
  in.now_s = 60;
  in.utilization = 0.3;  // wants 3, but 6 was recommended within 5 min
  EXPECT_EQ(hpa->decide(in).replicas, 6);
  in.now_s = 400;  // the t=0..30 recommendations have aged out
  EXPECT_EQ(hpa->decide(in).replicas, 3);
}

// One A100 replica of Llama-3.1-8B as the week example sizes it (step 11.3 ms
// + 0.153 ms per sequence, TPOT 50 ms, 256 s start-up).
PolicyContext slo_guard_context() {
  PolicyContext ctx;
  ctx.startup_s = 256;
  ctx.min_replicas = 1;
  ctx.max_replicas = 40;
  ctx.ttft_slo_s = 1;
  ctx.tpot_slo_s = 0.05;
  ctx.slo_attainment = 0.99;
  ctx.slots_per_replica = 89;
  ctx.step_base_s = 0.0113;
  ctx.step_per_seq_s = 0.000153;
  return ctx;
}

// `intervals` decisions 15 s apart, each on the input `fill(k, in)` leaves
// (it starts from the last one, the fleet at the last decision); returns the
// last decision.
int decide_every_15s(ScalingPolicy& pol, int intervals,
                     const std::function<void(int, PolicyInput&)>& fill) {
  PolicyInput in;
  in.ready = 1;
  int want = 1;
  for (int k = 1; k <= intervals; ++k) {
    in.now_s = 15.0 * k;
    fill(k, in);
    want = pol.decide(in).replicas;
    in.ready = want;
  }
  return want;
}

// An interval's load of `m` prefill seconds a second in prompts of 80 ms
// each with one-token answers (no decode load: the TPOT load is the
// prefill), spread evenly over its seconds, `sequences` running.
void prefill_load(PolicyInput& in, double m, int sequences) {
  in.prefill_mean_s = in.tpot_load_s = m;
  in.prefill_sq_s = in.tpot_load_sq_s = 0.08 * m;
  in.prefill_window_need = m / 2;  // over 1 s + the TTFT
  in.arrival_rps = m / 0.08;
  in.arrivals = static_cast<int64_t>(in.arrival_rps * 15);
  in.sequences = sequences;
}

// `intervals` decisions 15 s apart at a prefill load that follows `load(k)`
// (prefill_load, no misses); returns the last decision.
template <typename Load>
int run_slo_guard(ScalingPolicy& pol, int intervals, Load load) {
  return decide_every_15s(pol, intervals,
                          [&](int k, PolicyInput& in) { prefill_load(in, load(k), 10); });
}

// The engine with slo_guard_context()'s replica (step 11.3 ms + 0.153 ms per
// sequence; prefill 10,000 tokens/s, so 100 tokens take 10 ms) and a fleet
// of `replicas` up from the start, held there (static-peak).
Result<ServingRun> run_fixed_fleet(double ttft_s, double tpot_s, int replicas, DemandSource& src) {
  ServingConfig c;
  c.replica = {10000, 0, 0.0113, 0.000153, 384, "test"};
  c.ttft_slo_s = ttft_s;
  c.tpot_slo_s = tpot_s;
  c.startup_s = 256;
  c.usd_per_hour = 3.6;
  c.min_replicas = c.initial_replicas = c.max_replicas = replicas;
  auto pol = make_serving_policy("static-peak", c);
  PolicyContext ctx;
  ctx.peak_replicas = replicas;
  return run_serving(c, src, *pol, ctx);
}

TEST(Serving, SloGuardShrinksTheInitialFleetAtItsFirstDecision) {
  auto pol = make_slo_guard_policy(SloGuardSettings{});
  pol->reset(slo_guard_context());
  PolicyInput in;
  in.now_s = 15;
  in.ready = 4;  // the initial fleet, launched for no need
  in.prefill_mean_s = 0.05;
  in.prefill_sq_s = 0.004;
  in.prefill_window_need = 0.1 / 2;
  in.arrival_rps = 0.6;
  in.arrivals = 9;
  in.sequences = 3;
  EXPECT_EQ(pol->decide(in).replicas, 1);
}

TEST(Serving, SloGuardSizesForTheRatesMovesBetweenIntervals) {
  // The same minute mean (0.6 prefill seconds per second), steady or in one
  // interval of four at 2x the mean. The Poisson split alone sees one
  // replica at 60 % either way; after the spiky interval a replica's share
  // is over 1 - step_base / TPOT = 1 - 11.3 / 50 = 0.774 and every admission
  // of the next misses, so the learned ratio (2 at the 99th percentile:
  // 0.6 x 2 / 0.774 = 1.55 replicas) must buy the second.
  auto steady = make_slo_guard_policy(SloGuardSettings{});
  steady->reset(slo_guard_context());
  EXPECT_EQ(run_slo_guard(*steady, 480, [](int) { return 0.6; }), 1);
  auto spiky = make_slo_guard_policy(SloGuardSettings{});
  spiky->reset(slo_guard_context());
  EXPECT_GE(run_slo_guard(*spiky, 480, [](int k) { return k % 4 == 0 ? 1.2 : 0.4; }), 2);
}

// A backlog is work to drain, not KV-cache pressure: after a crowd 10,000
// requests wait (0.08 s of prefill each: 800 s of work) while 80 run and
// one replica's load arrives (0.6 prefill seconds per second). The queue
// holds no KV cache; counted as slots it would be 10,080 / 80.1 = 125.8 ->
// 126 replicas arriving a start-up later. As work, the one replica (0.6 of
// its 1 - 11.3 / 50 = 0.774 share taken) would drain it in 800 / 0.174 =
// 4,600 s, every arrival meanwhile waiting behind it; the drain (step 6)
// asks for the fleet that clears it within an interval of coming up: ready
// + X = 1 + (800 + (0.6 - 0.774) x 271) / (0.774 x 15) = 65.8, at most the
// fleet's 40. (Draining it within a start-up asked for 5.)
TEST(Serving, SloGuardDrainsTheBacklogAsWorkNotSlots) {
  auto pol = make_slo_guard_policy(SloGuardSettings{});
  pol->reset(slo_guard_context());
  const auto fill = [](int k, PolicyInput& in) {
    prefill_load(in, 0.6, 80);
    in.queued = k == 40 ? 10000 : 0;
    in.backlog_s = in.queued * 0.08;
  };
  EXPECT_EQ(decide_every_15s(*pol, 40, fill), 40);
  // Without the drain, the queue asks for nothing: the load's one replica.
  auto off = make_slo_guard_policy(SloGuardSettings{.drain_backlog = false});
  off->reset(slo_guard_context());
  EXPECT_EQ(decide_every_15s(*off, 40, fill), 1);
  // VMs of two replicas: the ready VM's two do 0.774 x 2 of the work, X =
  // (800 + (0.6 - 1.548) x 271) / 11.61 = 46.8 replicas more, so (2 +
  // 46.8) / 2 = 24.4 -> 25 VMs (counting replicas as VMs would ask for 40).
  PolicyContext two = slo_guard_context();
  two.replicas_per_vm = 2;
  auto pair = make_slo_guard_policy(SloGuardSettings{});
  pair->reset(two);
  EXPECT_EQ(decide_every_15s(*pair, 40, fill), 25);
}

// A backlog the ready replicas drain on their own within the start-up and
// an interval buys nothing: 45 s of work beside 0.6 s/s of load on one
// replica (45 + (0.6 - 0.774) x 271 < 0); 50 s buys a VM.
TEST(Serving, SloGuardLaunchesNothingForABacklogTheReadyVmsDrain) {
  // The fleet after a crowd leaves `queued` prompts of 80 ms.
  const auto after = [](int queued) {
    auto pol = make_slo_guard_policy(SloGuardSettings{});
    pol->reset(slo_guard_context());
    return decide_every_15s(*pol, 40, [&](int k, PolicyInput& in) {
      prefill_load(in, 0.6, 80);
      in.queued = k == 40 ? queued : 0;
      in.backlog_s = in.queued * 0.08;
    });
  };
  EXPECT_EQ(after(562), 1);
  EXPECT_EQ(after(625), 2);
}

// A crowd's backlog is drained within an interval of the drain's VMs coming
// up: every arrival waits behind it while it lasts. 4 prefill seconds a
// second settle at 7 VMs (share 0.774: 1.42 s/s spare); a crowd then leaves
// 500 s of work. Their spare clears it in two start-ups (727 s), so
// draining it within a start-up (D = L, as before) launched nothing, and
// every arrival missed for the 352 s it took. Within an interval of VMs
// launched now it takes (500 - 1.42 x 271) / (0.774 x 15) = 9.9 more: 17,
// which clear the 136 s left when they come up at 0.774 x 17 - 4 = 9.2
// s/s, in 15 s.
TEST(Serving, SloGuardDrainsACrowdsBacklogWithinAnIntervalOfItsVms) {
  int settled = 0;
  const auto crowd = [&](int k, PolicyInput& in) {
    prefill_load(in, 4, 200);
    if (k == 40) settled = in.ready;
    in.backlog_s = k == 40 ? 500 : 0;
  };
  auto pol = make_slo_guard_policy(SloGuardSettings{});
  pol->reset(slo_guard_context());
  EXPECT_EQ(decide_every_15s(*pol, 40, crowd), 17);
  EXPECT_EQ(settled, 7);
  // Without the drain, the load's 7.
  auto off = make_slo_guard_policy(SloGuardSettings{.drain_backlog = false});
  off->reset(slo_guard_context());
  EXPECT_EQ(decide_every_15s(*off, 40, crowd), 7);
}

// The drain ends with the backlog: the step 3 hold (a start-up) is for a
// need that may come back, and a drained backlog does not. At 0.4 s/s of
// load on one replica, 800 s of backlog ask for 1 + (800 + (0.4 - 0.774) x
// 271) / (0.774 x 15) = 61.2 VMs, the fleet's 40; they are up and the
// backlog gone at the next decision: back to the load's one.
TEST(Serving, SloGuardDropsTheDrainWithTheBacklog) {
  auto pol = make_slo_guard_policy(SloGuardSettings{});
  pol->reset(slo_guard_context());
  int ready_after_crowd = 0;
  const int last = decide_every_15s(*pol, 41, [&](int k, PolicyInput& in) {
    prefill_load(in, 0.4, 40);
    in.backlog_s = k == 40 ? 800 : 0;
    if (k == 41) ready_after_crowd = in.ready;
  });
  EXPECT_EQ(ready_after_crowd, 40);
  EXPECT_EQ(last, 1);
}

// The drain's VMs are kept until the backlog is gone, with launches that
// take a start-up. A fluid fleet: 0.4 s/s of load on one VM (share 0.774),
// and at 10 minutes a crowd leaves 800 s of backlog. slo-guard launches 39
// VMs (the fleet's 40), which serve 256 s later; until then one VM drains
// (0.774 - 0.4) x 256 = 96 s of it and none is cancelled. The forty clear
// the other 704 s at 40 x 0.774 - 0.4 = 30.6 s/s in 23 s (by 900 s here: the
// loop counts a VM from the first interval it serves whole). One scale-out, and
// back to the load's one VM after. (Without the keep the VMs were released
// as they came up and launched again an interval later.)
TEST(Serving, SloGuardKeepsTheDrainsVmsUntilTheBacklogIsGone) {
  auto pol = make_slo_guard_policy(SloGuardSettings{});
  pol->reset(slo_guard_context());
  const double share = 1 - 0.0113 / 0.05, m = 0.4;
  std::vector<double> up_at;  // starting VMs: when each serves
  PolicyInput in;
  in.ready = 1;
  double backlog = 0, cleared_at = -1;
  int scale_outs = 0, fewest_while_starting = 1000;
  for (int k = 1; k <= 240; ++k) {
    in.now_s = 15.0 * k;
    // Fluid over the interval: the ready VMs drain what exceeds the load.
    backlog = std::max(0.0, backlog + (m - share * in.ready) * 15);
    std::erase_if(up_at, [&](double t) { return t <= in.now_s && ++in.ready > 0; });
    if (k == 40) backlog += 800;
    if (k > 40 && backlog <= 0 && cleared_at < 0) cleared_at = in.now_s;
    in.starting = static_cast<int>(up_at.size());
    prefill_load(in, m, 40);
    in.backlog_s = backlog;
    const int current = in.ready + in.starting;
    const int target = pol->decide(in).replicas;
    if (target > current) {
      ++scale_outs;
      for (int v = current; v < target; ++v) up_at.push_back(in.now_s + 256);
    }
    for (int v = target; v < current; ++v) {  // cancel starting VMs first
      if (!up_at.empty()) {
        up_at.pop_back();
      } else {
        --in.ready;
      }
    }
    if (k > 40 && in.starting > 0) fewest_while_starting = std::min(fewest_while_starting, target);
  }
  EXPECT_EQ(scale_outs, 1);
  EXPECT_EQ(fewest_while_starting, 40);
  EXPECT_GT(cleared_at, 856);
  EXPECT_LE(cleared_at, 900);
  EXPECT_EQ(in.ready + static_cast<int>(up_at.size()), 1);
}

// One flash crowd is not the traffic's noise: an hour of steady load (0.6
// prefill seconds per second, one replica) with one 15-s interval at 3x
// early on. Its ratio to the minute before (3) is 1.3 % of the hour's
// request weight, over the 1 % a 99th percentile allows, so without the
// prior of 1 / (1 - 0.99) = 100 intervals at ratio 1 slo-guard held
// 0.6 x 3 / 0.774 = 2.3 -> 3 replicas for the rest of the hour; with it the
// crowd is 0.9 % and one replica serves, as it does the steady hour. Every
// 4th interval at 2x (the test above) is noise either way.
TEST(Serving, SloGuardDoesNotTakeOneCrowdForTheNoise) {
  auto pol = make_slo_guard_policy(SloGuardSettings{});
  pol->reset(slo_guard_context());
  EXPECT_EQ(run_slo_guard(*pol, 240, [](int k) { return k == 20 ? 1.8 : 0.6; }), 1);
}
// A day whose budget is spent is no time to shave. Two hours of steady load
// (0.6 prefill seconds per second); in the first five minutes half the
// requests miss while VMs start (a crowd met by scale-out): 10 intervals'
// worth of misses in 480, 2.1 % of the requests, over the 1 % budget. The
// calibration ignores misses while VMs start (capacity is on its way), and
// before it also let them go uncounted when it shaved: f fell to 0.8 over
// the quiet hours, as on the day without misses. The Poisson split's need
// (m T / N + 2.33 sqrt(q T / N) <= 0.774 T, T = 15 s, m = 0.6 f, q = 0.048 f)
// is then 0.75 replicas, 0.83 with the 10 % scale-in tolerance: one. Counted
// against the day's budget the misses stop the shaving: at f = 1 the need
// is 0.94, 1.03 with the tolerance: two. On generated days nobody tuned
// on (bench/serving_generated.py, seeds 14-18), 75-100 % of slo-guard's
// misses came while VMs started, f sat at its floor, and the policy met the
// target on 23 of 37 days; with the day's budget counted, 28.
int slo_guard_after_misses_while_starting(double missed_share) {
  auto pol = make_slo_guard_policy(SloGuardSettings{});
  pol->reset(slo_guard_context());
  return decide_every_15s(*pol, 480, [&](int k, PolicyInput& in) {
    prefill_load(in, 0.6, 10);
    in.starting = k <= 20 ? 1 : 0;
    in.missed = k <= 20 ? static_cast<int64_t>(missed_share * static_cast<double>(in.arrivals)) : 0;
  });
}

TEST(Serving, SloGuardDoesNotShaveWhileTheDaysBudgetIsSpent) {
  EXPECT_EQ(slo_guard_after_misses_while_starting(0), 1);
  EXPECT_EQ(slo_guard_after_misses_while_starting(0.5), 2);
}

// The miss curve. Load arrives at 2.09 prefill seconds a second, one
// interval in four at twice the minute's mean (the learned 99th-percentile
// ratio is 2): the mean need is 2.09 / 0.774 = 2.7 replicas, the rule's
// 4.3 once f sits at its floor (5 VMs). For the first two hours every other
// interval is served by three replicas (VMs lagging behind the decision),
// at a utilization of 0.9. When those intervals miss nothing, the curve
// shows 0.9 safe (its bin's upper edge, 0.96) and the need is 2.7 / 0.96 =
// 2.8 replicas: three VMs, which the scale-out tolerance keeps. When they
// miss 5 % of their requests the curve shows nothing safe and the rule
// sizes the fleet: the misses take f to its cap of 2, and the ratio term
// asks 2 x 2.09 x 2.007 (the upper edge of the ratio bin holding 2) /
// 0.774 = 10.8 replicas: 11 VMs.
int slo_guard_after_lean_intervals(double missed_share) {
  auto pol = make_slo_guard_policy(SloGuardSettings{});
  pol->reset(slo_guard_context());
  const double mean = 2.09;
  return decide_every_15s(*pol, 960, [&](int k, PolicyInput& in) {
    prefill_load(in, k % 4 == 0 ? 2 * mean : 2 * mean / 3, 10);
    const bool lean = k <= 480 && k % 2 == 1;
    if (lean) in.ready = 3;
    in.missed = lean ? static_cast<int64_t>(missed_share * static_cast<double>(in.arrivals)) : 0;
  });
}

TEST(Serving, SloGuardLearnsWhatItsMarginCosts) {
  const int safe = slo_guard_after_lean_intervals(0);
  const int missing = slo_guard_after_lean_intervals(0.05);
  EXPECT_EQ(safe, 3);
  EXPECT_EQ(missing, 11);
}

// The HPA's tolerance, both ways: a need 2 % over the count leaves it (the
// long-context example's 3.03 replicas bought a fourth H100 for its first
// minutes, where three served as well); 15 % over buys the next VM.
int slo_guard_from_three(double need) {
  auto pol = make_slo_guard_policy(SloGuardSettings{});
  pol->reset(slo_guard_context());
  return decide_every_15s(*pol, 1, [&](int, PolicyInput& in) {
    in.ready = 3;
    in.tpot_load_s = need * (1 - 0.0113 / 0.05);  // the TPOT share's limit
    in.tpot_load_sq_s = 1e-9;
    in.prefill_mean_s = 0.01;
    in.prefill_window_need = 0.01 / 2;
    in.prefill_sq_s = 1e-4;
    in.arrival_rps = 1;
    in.arrivals = 15;
    in.sequences = 10;
  });
}

TEST(Serving, SloGuardScalesOutPastTheTolerance) {
  EXPECT_EQ(slo_guard_from_three(3.06), 3);
  EXPECT_EQ(slo_guard_from_three(3.45), 4);
}

// The batch a load brings: 20 req/s of 10 ms prefills on one replica of the
// week example's A100 (step 11.3 ms + 0.153 ms per sequence, TPOT 50 ms).
// With 211-token answers every request keeps a sequence decoding for 210
// steps, so the batch is N = 20 x 210 x TPOT (Little's law) and the step
// (11.3 ms + 0.153 ms x N) / (1 - 0.2) meets 50 ms only while
// 0.2 + 20 x 210 x 0.153 ms = 0.84 <= 1 - 11.3 / 50 = 0.774: it does not,
// and the engine agrees: on one replica most requests miss TPOT (all but
// those admitted before the batch grows), on two (0.42 each) over 99 % meet
// it. With one-token answers the same prefills fit one replica.
// slo-guard once sized the share at the batch running now (10 sequences
// at its first look) and kept one.
int slo_guard_at(double output_tokens) {
  auto pol = make_slo_guard_policy(SloGuardSettings{});
  pol->reset(slo_guard_context());
  const double cost = 0.01 + 0.000153 * (output_tokens - 1);
  return decide_every_15s(*pol, 40, [&](int, PolicyInput& in) {
    in.arrival_rps = 20;
    in.arrivals = 300;
    in.prefill_mean_s = 20 * 0.01;
    in.prefill_sq_s = 20 * 0.01 * 0.01;
    in.tpot_load_s = 20 * cost;
    in.tpot_load_sq_s = 20 * cost * cost;
    in.prefill_window_need = in.prefill_mean_s / 2;  // over 1 s + the TTFT
    in.sequences = 10;
  });
}

TEST(Serving, SloGuardCountsTheBatchItsLoadBrings) {
  EXPECT_EQ(slo_guard_at(1), 1);
  EXPECT_GE(slo_guard_at(211), 2);
  // The engine: 20 req/s of 100-token prompts and 211-token answers for 10
  // minutes, evenly spaced, on one and on two replicas.
  std::vector<Request> reqs;
  reqs.reserve(size_t{20} * 600);
  for (int i = 0; i < 20 * 600; ++i) reqs.push_back({static_cast<SimTime>(i) * 50'000, 100, 211});
  VecSource one_src(reqs), two_src(reqs);
  auto one = run_fixed_fleet(1, 0.05, 1, one_src);
  auto two = run_fixed_fleet(1, 0.05, 2, two_src);
  ASSERT_TRUE(one && two);
  EXPECT_LT(one->slo_attainment(), 0.5);  // only those before the batch grows meet it
  // And the report says why: TPOT, not the queue, and not hopeless.
  EXPECT_EQ(one->missed_tpot, one->requests - one->slo_met);
  EXPECT_EQ(one->missed_ttft, 0);
  EXPECT_EQ(one->hopeless, 0);
  EXPECT_GT(two->slo_attainment(), 0.99);
}

// Prompts near the TTFT: 3,500 tokens (0.35 s of prefill) against a 0.5 s
// TTFT, 1.0 prefill second arriving per second (2.86 req/s). The
// shortest-queue router is a first-come-first-served queue with N servers
// (M/D/N): three or four replicas keep waits over 0.15 s rare, where N
// independent M/G/1 queues asked for 20 (one per 5 % of load). The engine
// agrees: four replicas meet the SLO for over 99 % of requests, two do not.
TEST(Serving, SloGuardPoolsThePrefillQueue) {
  PolicyContext ctx = slo_guard_context();
  ctx.ttft_slo_s = 0.5;
  ctx.tpot_slo_s = 1;  // the TTFT decides
  auto pol = make_slo_guard_policy(SloGuardSettings{});
  pol->reset(ctx);
  const int want = decide_every_15s(*pol, 40, [](int, PolicyInput& in) {
    in.arrival_rps = 1.0 / 0.35;
    in.arrivals = 43;
    in.prefill_mean_s = in.tpot_load_s = 1.0;
    in.prefill_sq_s = in.tpot_load_sq_s = 0.35;
    in.prefill_window_need = 1.4 / 1.5;  // the busiest of 15 seconds: 4 prompts
    in.sequences = 2;
  });
  EXPECT_GE(want, 3);
  EXPECT_LE(want, 4);
  SyntheticDemand d;
  d.rate_rps = 1.0 / 0.35;
  d.duration_hours = 2;
  d.input = {3500, 0, 3500, 3500};
  d.output = {2, 0, 2, 2};
  const auto attainment = [&](int replicas) {
    auto src = make_synthetic(d, 1, 11);
    auto r = run_fixed_fleet(0.5, 1, replicas, *src);
    EXPECT_TRUE(r);
    return r ? r->slo_attainment() : 0.0;
  };
  EXPECT_GT(attainment(4), 0.99);
  EXPECT_LT(attainment(2), 0.99);
}

// slo-guard sizes the prefill queue by the busiest window the engine
// reports, not only by the busiest second: 1.5 replicas of need over a
// crowd's seconds (no single second over 0.4) buy a second replica.
TEST(Serving, SloGuardSizesTheBusiestWindowOfPrefill) {
  const auto decide = [](double window_need) {
    auto pol = make_slo_guard_policy(SloGuardSettings{});
    pol->reset(slo_guard_context());
    return decide_every_15s(*pol, 8, [&](int, PolicyInput& in) {
      in.arrival_rps = 0.3 / 0.08;
      in.arrivals = 56;
      in.prefill_mean_s = in.tpot_load_s = 0.3;
      in.prefill_sq_s = in.tpot_load_sq_s = 0.08 * 0.3;
      in.prefill_window_need = window_need;
      in.sequences = 4;
    });
  };
  EXPECT_EQ(decide(0.4), 1);  // 0.8 s in one second: 0.8 / (1 + 1)
  EXPECT_GE(decide(1.5), 2);
}

TEST(Serving, AzureAutoscaleScalesInOnlyWhenAllRulesAgree) {
  auto pol = make_azure_autoscale_policy(default_autoscale_settings());
  pol->reset({});
  PolicyInput in;
  in.ready = 2;
  in.utilization = 0.2;
  in.queued = 5;  // the queue rule disagrees (not < 1)
  int last = 2;
  for (int t = 60; t <= 1200; t += 60) {
    in.now_s = t;
    last = pol->decide(in).replicas;
  }
  EXPECT_EQ(last, 2);
  in.queued = 0;
  auto pol2 = make_azure_autoscale_policy(default_autoscale_settings());
  pol2->reset({});
  int first_change_at = -1;
  for (int t = 60; t <= 1200; t += 60) {
    in.now_s = t;
    if (pol2->decide(in).replicas == 1 && first_change_at < 0) first_change_at = t;
  }
  EXPECT_EQ(first_change_at, 600);  // once the 10-minute windows are full
}

TEST(Serving, AzureAutoscaleScalesOutOnAnyRule) {
  auto pol = make_azure_autoscale_policy(default_autoscale_settings());
  pol->reset({});
  PolicyInput in;
  in.ready = 2;
  in.utilization = 0.5;
  in.queued = 20;  // only the queue rule fires
  int at = -1;
  for (int t = 60; t <= 600 && at < 0; t += 60) {
    in.now_s = t;
    if (pol->decide(in).replicas == 3) at = t;
  }
  EXPECT_EQ(at, 300);
}

// ---- demand readers ---------------------------------------------------------

TEST(Demand, AzureTraceIsRelativeAndScaled) {
  auto src = open_azure_llm_trace(fixture("azure_small.csv"), 2.0);
  ASSERT_TRUE(src) << src.error().to_string();
  Request a, b;
  ASSERT_TRUE(*(*src)->next(a));
  ASSERT_TRUE(*(*src)->next(b));
  EXPECT_EQ(a.arrival, 0);
  EXPECT_FLOAT_EQ(a.input_tokens, 374);
  EXPECT_FLOAT_EQ(a.output_tokens, 44);
  // 18:15:50.9951690 - 18:15:46.6805900 = 4.314579 s, replayed 2x faster.
  EXPECT_EQ(b.arrival, 2157289);
}

TEST(Demand, AzureTraceBadRowNamesLineAndColumn) {
  auto src = parse_scenario_string("kind: serving\n", "x.yaml");
  ASSERT_FALSE(src);
  const std::string path = std::string(GPUPLAN_BINARY_DIR) + "/bad_trace.csv";
  FILE* f = std::fopen(path.c_str(), "w");
  std::fputs(
      "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.68,12,3\n2023-11-16 "
      "18:15:47.00,x,3\n",
      f);
  std::fclose(f);
  auto t = open_azure_llm_trace(path, 1);
  ASSERT_TRUE(t);
  Request r;
  ASSERT_TRUE((*t)->next(r));
  auto bad = (*t)->next(r);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where.line, 3);
  EXPECT_EQ(bad.error().where.field, "ContextTokens");
}

// Writes `text` to a file in the build tree and returns its path.
std::string write_trace(const std::string& name, const std::string& text) {
  std::string path = std::string(GPUPLAN_BINARY_DIR) + "/" + name;
  FILE* f = std::fopen(path.c_str(), "w");
  std::fputs(text.c_str(), f);
  std::fclose(f);
  return path;
}

// Where the misses allowed are exactly those the bound may drop, its dual
// cancels to 0; rounding once left ~1e-19 VM-seconds, so a policy that ran
// no VM read cost_vs_optimal 0 and one that paid 0.52 USD read 1.8e20
// (found by fuzzing: five 100,000-token prompts, one answer of 5,000).
TEST(Serving, ABoundThatCancelsToZeroIsZero) {
  const std::string trace = write_trace("zero_bound.csv",
                                        "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                        "2023-11-16 00:00:42.0000000,117990,2\n"
                                        "2023-11-16 00:00:43.0000000,106328,100\n"
                                        "2023-11-16 00:00:50.0000000,107310,5000\n"
                                        "2023-11-16 00:02:52.0000000,99621,1000\n"
                                        "2023-11-16 00:02:52.0000000,110690,1\n");
  for (const char* admission : {"shed", "queue"}) {
    SCOPED_TRACE(admission);
    auto s = parse_scenario_string(
        "kind: serving\nvm: {size: Standard_NC96ads_A100_v4, region: eastus}\n"
        "model: llama-3.1-8b\ntensor_parallel: 1\nprefill_chunk_tokens: 45469\n"
        "replica: {prefill_tokens_per_s: 1000000.0, prefill_fixed_ms: 276.446, step_base_ms: "
        "10.4337, step_per_seq_ms: 12.8193, max_batch: 4}\n"
        "slo: {ttft_ms: 1000, tpot_ms: 64.3114, attainment: 0.95}\n"
        "demand: {request_trace: " +
            trace +
            "}\nfleet: {min_replicas: 0, max_replicas: 3, initial_replicas: 0, startup_seconds: "
            "10, interval_seconds: 60, admission: " +
            admission +
            ", spot: {share: 0.26, evictions_per_hour: 1, base_regular: 0, notice_seconds: 30}}\n"
            "seed: 654107\npolicies: [static-peak, azure-autoscale]\n",
        "z.yaml");
    ASSERT_TRUE(s) << s.error().to_string();
    const auto cat = catalog::Catalog::load_embedded();
    ASSERT_TRUE(cat);
    auto r = run_scenario(*s, cat->get(), RunOptions{});
    ASSERT_TRUE(r) << r.error().to_string();
    for (const PolicyRow& p : r->policies) {
      SCOPED_TRACE(p.policy);
      if (p.policy == "azure-autoscale") {
        EXPECT_FALSE(p.cost_vs_optimal);  // at its attainment, 0, the bound is 0
      } else if (p.cost_vs_optimal) {
        EXPECT_GE(*p.cost_vs_optimal, 1.0);
        EXPECT_LT(*p.cost_vs_optimal, 1e3);
      }
    }
  }
}

// The Azure LLM inference traces of 2024 (DynamoLLM, HPCA 2025) write times
// with a UTC offset, six digits of fraction, and none on a whole second;
// other exports write Z or another offset. All are one clock: 00:00:00.00993,
// 00:00:01, 02:00:02.5 at +02:00 (00:00:02.5 UTC) and 00:00:03 Z are 0,
// 0.99007, 2.49007 and 2.99007 s in. A zone that names no offset (+25:00) is
// refused at its line and field.
TEST(Demand, AzureTraceReadsUtcOffsets) {
  auto src = open_azure_llm_trace(write_trace("azure_2024.csv",
                                              "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                              "2024-05-10 00:00:00.009930+00:00,100,10\n"
                                              "2024-05-10 00:00:01+00:00,200,20\n"
                                              "2024-05-10 02:00:02.5+0200,300,30\n"
                                              "2024-05-10T00:00:03Z,400,40\n"
                                              "2024-05-10 00:00:04+25:00,500,50\n"),
                                  1.0);
  ASSERT_TRUE(src) << src.error().to_string();
  Request r;
  std::vector<SimTime> at;
  for (int i = 0; i < 4; ++i) {
    auto more = (*src)->next(r);
    ASSERT_TRUE(more) << more.error().to_string();
    ASSERT_TRUE(*more);
    at.push_back(r.arrival);
  }
  EXPECT_EQ(at, (std::vector<SimTime>{0, 990070, 2490070, 2990070}));
  EXPECT_TRUE((*src)->drops().empty());  // nothing held back: the offsets kept the order
  auto bad = (*src)->next(r);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where.line, 6);
  EXPECT_EQ(bad.error().where.field, "TIMESTAMP");
}

// A serving scenario with an explicit replica and price, and this demand
// (the inside of `demand: {...}`), parsed.
Result<Scenario> serving_with_demand(const std::string& demand) {
  return parse_scenario_string(serving_text("on_demand_usd_per_hour: 1", demand), "x.yaml");
}

TEST(Demand, EveryRequestTraceFormatGivesTheSameRequests) {
  // The 300 requests of azure_small.csv, rewritten as BurstGPT (seconds) and
  // Mooncake (milliseconds) traces: the reader is chosen by the first line.
  std::vector<std::vector<Request>> seen;
  for (const char* f : {"azure_small.csv", "burstgpt_small.csv", "mooncake_small.jsonl"}) {
    SCOPED_TRACE(f);
    auto src = open_request_trace(fixture(f), 2.0);
    ASSERT_TRUE(src) << src.error().to_string();
    std::vector<Request> all;
    Request r;
    for (;;) {
      auto more = (*src)->next(r);
      ASSERT_TRUE(more) << more.error().to_string();
      if (!*more) break;
      all.push_back(r);
    }
    ASSERT_EQ(all.size(), 300u);
    seen.push_back(std::move(all));
  }
  for (size_t k = 1; k < seen.size(); ++k)
    for (size_t i = 0; i < seen[0].size(); ++i) {
      EXPECT_EQ(seen[k][i].arrival, seen[0][i].arrival) << k << " row " << i;
      EXPECT_EQ(seen[k][i].input_tokens, seen[0][i].input_tokens) << k << " row " << i;
      EXPECT_EQ(seen[k][i].output_tokens, seen[0][i].output_tokens) << k << " row " << i;
    }
  EXPECT_EQ(seen[1][1].arrival, 2157289);  // 4.314579 s, replayed 2x faster
}

TEST(Demand, BurstGptFindsColumnsByNameAndDropsFailedCalls) {
  // An export with the columns reordered; the second call failed (0
  // response tokens). It is dropped before it sets the clock, so the third,
  // earlier than it, is not held at 105 s: only the failure is noted.
  const std::string path =
      write_trace("burstgpt_reordered.csv",
                  "Log Type,Timestamp,Model,Request tokens,Response tokens,Total tokens\n"
                  "Conversation log,100,ChatGPT,472,18,490\n"
                  "API log,105,GPT-4,300,0,300\n"
                  "Conversation log,103.5,ChatGPT,1087,230,1317\n"
                  "Conversation log,110,GPT-4,0,276,276\n");
  auto src = open_request_trace(path, 1);
  ASSERT_TRUE(src) << src.error().to_string();
  EXPECT_EQ((*src)->describe(), "burstgpt: " + path);
  Request a, b, c, d;
  ASSERT_TRUE(*(*src)->next(a));
  ASSERT_TRUE(*(*src)->next(b));
  ASSERT_TRUE(*(*src)->next(c));
  EXPECT_FALSE(*(*src)->next(d));
  EXPECT_EQ(a.arrival, 0);
  EXPECT_FLOAT_EQ(a.input_tokens, 472);
  EXPECT_EQ(b.arrival, 3'500'000);  // the failed call at 105 s is gone
  EXPECT_FLOAT_EQ(b.output_tokens, 230);
  EXPECT_EQ(c.arrival, 10'000'000);
  EXPECT_FLOAT_EQ(c.input_tokens, 1);  // an empty prompt still prefills a token
  const auto drops = (*src)->drops();
  ASSERT_EQ(drops.size(), 1u);
  EXPECT_EQ(drops[0].count, 1);
  EXPECT_NE(drops[0].what.find("failed"), std::string::npos);
}

TEST(Demand, BurstGptFilterKeepsOneModelAndLogType) {
  const std::string path =
      write_trace("burstgpt_mixed.csv",
                  "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
                  "1,ChatGPT,100,10,110,Conversation log\n"
                  "2,GPT-4,200,20,220,Conversation log\n"
                  "3,GPT-4,300,30,330,API log\n"
                  "4,GPT-4,400,0,400,Conversation log\n"
                  "5,GPT-4,500,50,550,Conversation log\n");
  const auto inputs = [&](const BurstGptFilter& f) {
    auto src = open_request_trace(path, 1, {}, f);
    EXPECT_TRUE(src) << src.error().to_string();
    std::vector<float> out;
    Request r;
    while (src && *(*src)->next(r)) out.push_back(r.input_tokens);
    return out;
  };
  EXPECT_EQ(inputs({}), (std::vector<float>{100, 200, 300, 500}));
  EXPECT_EQ(inputs({"GPT-4", ""}), (std::vector<float>{200, 300, 500}));
  EXPECT_EQ(inputs({"GPT-4", "Conversation log"}), (std::vector<float>{200, 500}));
  EXPECT_EQ(inputs({"", "API log"}), (std::vector<float>{300}));
  // Arrivals stay relative to the first row kept.
  auto src = open_request_trace(path, 1, {}, {"GPT-4", "Conversation log"});
  ASSERT_TRUE(src);
  Request a, b;
  ASSERT_TRUE(*(*src)->next(a));
  ASSERT_TRUE(*(*src)->next(b));
  EXPECT_EQ(b.arrival - a.arrival, 3'000'000);
  while (*(*src)->next(b)) {
  }
  bool counted = false;
  for (const DropNote& d : (*src)->drops())
    counted |= d.what.find("another model") != std::string::npos && d.count == 2;
  EXPECT_TRUE(counted);
  // A filter on a file of another format, or on a BurstGPT export without
  // the columns it reads, is an error.
  auto azure = open_request_trace(fixture("azure_small.csv"), 1, {}, {"GPT-4", ""});
  ASSERT_FALSE(azure);
  EXPECT_EQ(azure.error().where.field, "burstgpt");
  const std::string bare =
      write_trace("burstgpt_bare.csv", "Timestamp,Request tokens,Response tokens\n1,5,5\n");
  auto no_column = open_request_trace(bare, 1, {}, {"GPT-4", ""});
  ASSERT_FALSE(no_column);
  EXPECT_EQ(no_column.error().where.field, "header");
  // The scenario key: only with a request trace; it reaches the reader.
  auto synthetic =
      serving_with_demand("synthetic: {rate_rps: 1, duration_hours: 1}, burstgpt: {model: GPT-4}");
  ASSERT_FALSE(synthetic);
  EXPECT_EQ(synthetic.error().where.field, "demand.burstgpt");
  auto s = serving_with_demand("request_trace: " + path + ", burstgpt: {log_type: API log}");
  ASSERT_TRUE(s) << s.error().to_string();
  auto r = run_scenario(*s, nullptr, RunOptions{});
  ASSERT_TRUE(r) << r.error().to_string();
  bool noted = false;
  for (const std::string& n : r->notes)
    noted |=
        n.find("requests 1,") != std::string::npos || n.find("requests 1 ") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(Demand, RequestTraceErrorsNameTheLineAndTheField) {
  struct Case {
    const char* name;
    const char* text;
    int line;
    const char* field;
  };
  for (const Case& k : {
           Case{"bad_burst_ts.csv",
                "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
                "1,ChatGPT,5,5,10,Conversation log\n-3,ChatGPT,5,5,10,Conversation log\n",
                3, "Timestamp"},
           Case{"bad_burst_tokens.csv",
                "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
                "1,ChatGPT,many,5,10,Conversation log\n",
                2, "Request tokens"},
           Case{"bad_burst_fields.csv",
                "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n1,2\n", 2,
                ""},
           Case{"bad_mooncake_missing.jsonl",
                "{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 3}\n"
                "{\"timestamp\": 10, \"output_length\": 3}\n",
                2, "input_length"},
           Case{"bad_mooncake_type.jsonl", "{\"timestamp\": \"soon\", \"input_length\": 5}\n", 1,
                "timestamp"},
           Case{"bad_mooncake_json.jsonl",
                "{\"timestamp\": 0, \"input_length\": 5}\n{\"timestamp\": 1,\n", 2, ""},
           // A key given twice on a line: which one is meant is a guess.
           Case{"bad_mooncake_twice.jsonl",
                "{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 3}\n"
                "{\"timestamp\": 10, \"timestamp\": 1, \"input_length\": 5}\n",
                2, "timestamp"},
           // Every reader bounds one request at 10^9 tokens (2^31 prompt
           // tokens in an Azure row simulated 66 hours of one prefill).
           Case{"huge_azure_prompt.csv",
                "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                "2023-11-16 18:15:46.6805900,2147483648,5\n",
                2, "ContextTokens"},
           Case{"huge_burst_answer.csv",
                "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
                "1,ChatGPT,5,2000000000,10,Conversation log\n",
                2, "Response tokens"},
       }) {
    SCOPED_TRACE(k.name);
    const std::string path = write_trace(k.name, k.text);
    auto src = open_request_trace(path, 1);
    ASSERT_TRUE(src) << src.error().to_string();
    Request r;
    Result<bool> more = true;
    while (more && *more) more = (*src)->next(r);
    ASSERT_FALSE(more);
    EXPECT_EQ(more.error().where.file, path);
    EXPECT_EQ(more.error().where.line, k.line);
    EXPECT_EQ(more.error().where.field, k.field);
  }
  // Spreadsheet exports start with a UTF-8 byte order mark: still the header.
  for (const char* header : {"\xEF\xBB\xBFTIMESTAMP,ContextTokens,GeneratedTokens\n",
                             "\xEF\xBB\xBFTimestamp,Model,Request tokens,Response tokens,Total "
                             "tokens,Log Type\n"}) {
    const std::string bom = write_trace("bom_trace.csv", header);
    auto src = open_request_trace(bom, 1);
    EXPECT_TRUE(src) << src.error().to_string();
  }
  // A file in none of the formats: the error names all three.
  const std::string other = write_trace("not_a_trace.csv", "time,prompt,answer\n1,2,3\n");
  auto none = open_request_trace(other, 1);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().where.line, 1);
  for (const char* name : {"Azure", "BurstGPT", "Mooncake"})
    EXPECT_NE(none.error().message.find(name), std::string::npos) << name;
}

TEST(Demand, ScenariosReplayEveryRequestTraceFormatAlike) {
  // serving_small.yaml's trace, given as --trace in another format or named
  // by request_trace: the same fleet, costs and latencies.
  auto s = parse_scenario_file(fixture("serving_small.yaml"));
  ASSERT_TRUE(s) << s.error().to_string();
  auto base = run_scenario(*s, nullptr, RunOptions{});
  ASSERT_TRUE(base) << base.error().to_string();
  const std::string want = to_json(*base)["traces"][0]["policies"].dump();
  for (const char* f : {"burstgpt_small.csv", "mooncake_small.jsonl"}) {
    SCOPED_TRACE(f);
    RunOptions o;
    o.trace = fixture(f);
    auto r = run_scenario(*s, nullptr, o);
    ASSERT_TRUE(r) << r.error().to_string();
    EXPECT_EQ(to_json(*r)["traces"][0]["policies"].dump(), want);
  }
  std::ifstream in(fixture("serving_small.yaml"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = text.find("azure_trace: azure_small.csv");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 28, "request_trace: " + fixture("mooncake_small.jsonl"));
  auto named = parse_scenario_string(text, "named.yaml");
  ASSERT_TRUE(named) << named.error().to_string();
  auto r = run_scenario(*named, nullptr, RunOptions{});
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(to_json(*r)["traces"][0]["policies"].dump(), want);
}

// serving_small.yaml's replica prefills 9,000 tok/s with an 11-ms step: a
// step that carries a 2,048-token chunk takes 11.1 + 227.6 ms, over the
// 50-ms TPOT, and its sequences decoding beside a burst miss it. The report
// says so and names the largest chunk that fits, (0.05 - 0.01111) x 9,000 =
// 350 tokens; with a 256-token chunk (11.1 + 28.4 ms) it says nothing.
TEST(Demand, ReportNamesAChunkOverTheTpot) {
  const auto chunk_note = [](const std::string& extra) {
    std::ifstream in(fixture("serving_small.yaml"));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t at = text.find("azure_trace: azure_small.csv");
    EXPECT_NE(at, std::string::npos);
    text.replace(at, 28, "azure_trace: " + fixture("azure_small.csv"));
    auto s = parse_scenario_string(text + extra, "chunk.yaml");
    EXPECT_TRUE(s) << s.error().to_string();
    auto r = run_scenario(*s, nullptr, RunOptions{});
    EXPECT_TRUE(r) << r.error().to_string();
    bool tpot_missed = false;
    for (const PolicyRow& p : r->policies) tpot_missed |= p.missed_tpot.value_or(0) > 0;
    std::string note;
    for (const std::string& n : r->notes)
      if (n.rfind("a step that carries a whole", 0) == 0) note = n;
    return std::make_pair(tpot_missed, note);
  };
  const auto [missed, note] = chunk_note("");
  ASSERT_TRUE(missed);
  EXPECT_NE(note.find("2048-token prefill chunk takes 238.7 ms"), std::string::npos) << note;
  EXPECT_NE(note.find("prefill_chunk_tokens: 350 or less"), std::string::npos) << note;
  EXPECT_EQ(chunk_note("prefill_chunk_tokens: 256\n").second, "");
}

TEST(Demand, PrefixCacheHoldsLeadingBlocksAndDropsTheLeastRecent) {
  const std::string path = write_trace(
      "mooncake_prefix.jsonl",
      "{\"timestamp\": 0, \"input_length\": 1500, \"output_length\": 9, \"hash_ids\": [1, 2, 3]}\n"
      "{\"timestamp\": 10, \"input_length\": 1500, \"output_length\": 9, \"hash_ids\": [1, 2, 9]}\n"
      "{\"timestamp\": 20, \"input_length\": 1200, \"output_length\": 9, \"hash_ids\": [1, 2, 3]}\n"
      "{\"timestamp\": 30, \"input_length\": 1500, \"output_length\": 9, \"hash_ids\": [7, 1, "
      "2]}\n");
  const auto cached = [&](double capacity_tokens) {
    PrefixCacheSpec spec;
    spec.enabled = true;
    spec.capacity_tokens = capacity_tokens;
    auto src = open_request_trace(path, 1, spec);
    EXPECT_TRUE(src) << src.error().to_string();
    std::vector<float> out;
    Request r;
    while (src && *(*src)->next(r)) {
      EXPECT_FLOAT_EQ(r.prefill_tokens(), r.input_tokens - r.cached_tokens);
      out.push_back(r.cached_tokens);
    }
    return out;
  };
  // Room for every block: [1,2] of the second, all three of the third (but
  // its last token is computed), none of the fourth (its first block is new).
  EXPECT_EQ(cached(1e6), (std::vector<float>{0, 1024, 1199, 0}));
  // Room for two blocks: after [1,2,3] the cache holds 3 and 2; the second
  // request's first block is gone, so nothing of it is held.
  EXPECT_EQ(cached(1024), (std::vector<float>{0, 0, 0, 0}));
  // Without the cache nothing is.
  auto plain = open_request_trace(path, 1);
  ASSERT_TRUE(plain);
  Request r;
  while (*(*plain)->next(r)) EXPECT_EQ(r.cached_tokens, 0);
}

TEST(Demand, PrefixCacheNeedsBlockIds) {
  PrefixCacheSpec spec;
  spec.enabled = true;
  spec.capacity_tokens = 1e6;
  // A trace without block ids: refused when opened.
  auto azure = open_request_trace(fixture("azure_small.csv"), 1, spec);
  ASSERT_FALSE(azure);
  EXPECT_EQ(azure.error().where.field, "prefix_cache");
  // A Mooncake row without them, or with ids that are not integers.
  for (const char* row : {"{\"timestamp\": 0, \"input_length\": 5}\n",
                          "{\"timestamp\": 0, \"input_length\": 5, \"hash_ids\": [\"a\"]}\n"}) {
    SCOPED_TRACE(row);
    const std::string path = write_trace("mooncake_no_ids.jsonl", row);
    auto src = open_request_trace(path, 1, spec);
    ASSERT_TRUE(src);
    Request r;
    auto bad = (*src)->next(r);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().where.line, 1);
    EXPECT_EQ(bad.error().where.field, "hash_ids");
  }
  // The scenario key: only with a request trace, and with a capacity.
  auto synthetic = serving_with_demand(
      "synthetic: {rate_rps: 1, duration_hours: 1}, prefix_cache: {capacity_tokens: 1000}");
  ASSERT_FALSE(synthetic);
  EXPECT_EQ(synthetic.error().where.field, "demand.prefix_cache");
  auto no_capacity =
      serving_with_demand("request_trace: x.jsonl, prefix_cache: {block_tokens: 512}");
  ASSERT_FALSE(no_capacity);
  EXPECT_EQ(no_capacity.error().where.field, "demand.prefix_cache.capacity_tokens");
  // 10^12 tokens in blocks of 16: 6.25 x 10^10 blocks, past the 10^7 cap.
  auto huge = serving_with_demand(
      "request_trace: x.jsonl, prefix_cache: {capacity_tokens: 1000000000000, block_tokens: 16}");
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error().where.field, "demand.prefix_cache.capacity_tokens");
}

TEST(Serving, APrefixCacheShortensPrefillsAndTheFleet) {
  // 2,000 requests at 8 req/s, each a shared 7-block system prompt and one
  // block of its own: 3,968 of 4,096 prompt tokens come from the cache.
  std::string rows;
  for (int i = 0; i < 2000; ++i)
    rows +=
        "{\"timestamp\": " + std::to_string(i * 125) +
        ", \"input_length\": 4096, \"output_length\": 50, \"hash_ids\": [0, 1, 2, 3, 4, 5, 6, " +
        std::to_string(100 + i) + "]}\n";
  const std::string trace = write_trace("mooncake_shared_prefix.jsonl", rows);
  const auto run = [&](const std::string& cache) {
    auto s = parse_scenario_string(
        "kind: serving\nprices: {on_demand_usd_per_hour: 1}\n"
        "replica: {prefill_tokens_per_s: 9000, step_base_ms: 11, step_per_seq_ms: 0.1, "
        "max_batch: 200}\nslo: {ttft_ms: 1000, tpot_ms: 50}\n"
        "demand: {request_trace: " +
            trace + cache +
            "}\nfleet: {startup_seconds: 60, min_replicas: 1, initial_replicas: 1, "
            "max_replicas: 8}\npolicies: [static-peak]\n",
        "x.yaml");
    EXPECT_TRUE(s) << s.error().to_string();
    auto r = run_scenario(*s, nullptr, RunOptions{});
    EXPECT_TRUE(r) << r.error().to_string();
    return *r;
  };
  const SimReport full = run(""), cached = run(", prefix_cache: {capacity_tokens: 1000000}");
  // Without the cache a prompt takes 0.46 s: 8 req/s need 4 replicas of
  // prefill. With it, 128 tokens (14 ms) each: one replica.
  const PolicyRow& a = full.policies[0];
  const PolicyRow& b = cached.policies[0];
  ASSERT_TRUE(a.vm_hours && b.vm_hours && a.p50_ttft_ms && b.p50_ttft_ms);
  EXPECT_GE(*a.vm_hours, 3 * *b.vm_hours);
  EXPECT_LT(*b.p50_ttft_ms, *a.p50_ttft_ms / 10);
  bool noted = false;
  for (const std::string& n : cached.notes)
    noted |= n.find("held by the prefix cache") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(Demand, AlibabaQpsSumsEachContainersLastSample) {
  // Buckets of 60 s from t=1000: {ip1 2, ip2 3} = 5/s, then ip1 -> 4: 7/s,
  // then ip2 -> 1: 5/s. The row without container_ip is dropped.
  auto src = open_alibaba_qps(fixture("qps_small.csv"), 1, 60, TokenDist{}, TokenDist{}, 9);
  ASSERT_TRUE(src) << src.error().to_string();
  std::vector<int> per_bucket(3, 0);
  Request r;
  SimTime last = 0;
  while (*(*src)->next(r)) {
    ASSERT_GE(r.arrival, last);
    last = r.arrival;
    per_bucket.at(static_cast<size_t>(r.arrival / 60'000'000))++;
  }
  // Poisson counts: means 300, 420, 300 (sd ~17-20); 5 vs 7 per second differ by > 5 sd.
  EXPECT_NEAR(per_bucket[0], 300, 70);
  EXPECT_NEAR(per_bucket[1], 420, 80);
  EXPECT_NEAR(per_bucket[2], 300, 70);
  auto drops = (*src)->drops();
  ASSERT_EQ(drops.size(), 1u);
  EXPECT_EQ(drops[0].count, 1);
}

TEST(Demand, PodJobsDropWhatTheyCannotUse) {
  auto jobs = read_pod_jobs(fixture("pods_small.csv"));
  ASSERT_TRUE(jobs) << jobs.error().to_string();
  ASSERT_EQ(jobs->jobs.size(), 3u);
  EXPECT_EQ(jobs->jobs[0].arrival_s, 50);
  EXPECT_EQ(jobs->jobs[0].gpus, 0.5);
  EXPECT_EQ(jobs->jobs[0].duration_s, 990);
  EXPECT_EQ(jobs->jobs[2].gpus, 8);
  EXPECT_EQ(jobs->drops.size(), 2u);
}

TEST(Demand, SyntheticFollowsItsRateAndGrowth) {
  SyntheticDemand d;
  d.rate_rps = 10;
  d.duration_hours = 2 * 168;
  d.growth_per_week = 0.5;
  EXPECT_NEAR(d.rate_at(168 * 3600), 15, 1e-9);
  d.duration_hours = 1;
  auto src = make_synthetic(d, 1, 3);
  Request r;
  int n = 0;
  while (*src->next(r)) ++n;
  EXPECT_NEAR(n, 36000, 600);  // Poisson, mean 36,000 (sd 190)
}

// ---- scenarios, export, determinism ----------------------------------------

TEST(Demand, SyntheticShortcutDrawsTheSameStreamAsExactThinning) {
  // The generator skips evaluating the rate far from the acceptance line;
  // the stream must equal plain thinning (Lewis & Shedler) draw for draw.
  SyntheticDemand d;
  d.rate_rps = 40;
  d.duration_hours = 12;
  d.diurnal_amplitude = 0.6;
  d.diurnal_peak_hour = 3;
  d.growth_per_week = 2.0;
  d.input = {1000, 900, 1, 8000};
  d.output = {200, 150, 1, 1000};
  auto src = make_synthetic(d, 1, 9);
  Rng rng(9);
  const auto in = d.input.prepare(), out = d.output.prepare();
  const double max_rate = d.rate_rps * 1.6 * std::pow(3.0, 12.0 / 168);
  double t = 0;
  int64_t n = 0;
  for (;;) {
    bool accepted = false;
    while (!accepted) {
      t += rng.exponential(1.0 / max_rate);
      if (t >= d.duration_hours * 3600) break;
      accepted = rng.uniform() * max_rate <= d.rate_at(t);
    }
    Request r;
    auto more = src->next(r);
    ASSERT_TRUE(more);
    ASSERT_EQ(*more, accepted) << "request " << n;
    if (!accepted) break;
    ASSERT_EQ(r.arrival, static_cast<SimTime>(t * 1e6));
    ASSERT_EQ(r.input_tokens, static_cast<float>(TokenDist::draw(in, rng)));
    ASSERT_EQ(r.output_tokens, static_cast<float>(TokenDist::draw(out, rng)));
    ++n;
  }
  EXPECT_GT(n, 1'500'000);
}

TEST(Scenario, UnknownKeyHasLineColumnAndSuggestion) {
  auto s = parse_scenario_string("kind: deadline\njob:\n  work_hour: 4\n", "s.yaml");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().where.line, 3);
  EXPECT_EQ(s.error().where.column, 3);
  EXPECT_EQ(s.error().where.field, "job.work_hour");
  EXPECT_NE(s.error().message.find("did you mean 'work_hours'"), std::string::npos)
      << s.error().message;
}

TEST(Scenario, InitialFleetAboveTheCapIsRefused) {
  auto s = parse_scenario_string(
      "kind: serving\nvm: {size: Standard_NC24ads_A100_v4, region: eastus}\n"
      "model: llama-3.1-8b\nslo: {ttft_ms: 1000, tpot_ms: 50}\n"
      "demand: {synthetic: {rate_rps: 1, duration_hours: 1}}\n"
      "fleet:\n  initial_replicas: 9\n  max_replicas: 4\n",
      "s.yaml");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().where.field, "fleet.initial_replicas");
  EXPECT_EQ(s.error().where.line, 7);
}

// Errors found after parsing (the catalog has no such size, no layout of
// the size holds the model, the model is unknown, the demand drew no
// request) name the line and column of the key they are about, as parse
// errors do.
TEST(Scenario, ErrorsFoundWhenRunningNameTheKeysLine) {
  const auto cat = catalog::Catalog::load_embedded();
  ASSERT_TRUE(cat);
  const std::string demand = "demand: {synthetic: {rate_rps: 1, duration_hours: 1}}\n";
  struct Case {
    std::string text, field;
    int line, column;
  };
  const std::vector<Case> cases = {
      {"kind: serving\nvm:\n  region: eastus\n  size: Standard_NOPE\nmodel: llama-3.1-8b\n" +
           demand,
       "vm.size", 4, 9},
      {"kind: serving\nvm: {size: Standard_NC24ads_A100_v4, region: eastus}\nmodel: nosuch\n" +
           demand,
       "model", 3, 8},
      {"kind: serving\nvm: {size: Standard_NC24ads_A100_v4, region: eastus}\n\nmodel: "
       "llama-3.1-70b\nprecision: bf16\n" +
           demand,
       "vm.size", 2, 12},
      // A generated demand too thin for its duration draws no request.
      {serving_text("on_demand_usd_per_hour: 1",
                    "synthetic: {rate_rps: 0.001, duration_hours: 0.01}"),
       "demand", 4, 9},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.field + " " + std::to_string(c.line));
    auto s = parse_scenario_string(c.text, "s.yaml");
    ASSERT_TRUE(s) << s.error().to_string();
    auto r = run_scenario(*s, cat->get(), RunOptions{});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().where.file, "s.yaml");
    EXPECT_EQ(r.error().where.field, c.field);
    EXPECT_EQ(r.error().where.line, c.line) << r.error().to_string();
    EXPECT_EQ(r.error().where.column, c.column) << r.error().to_string();
  }
}

// Scenarios drawn across what users write (sizes of 1 to 8 GPUs, 7B to
// 70B models at four precisions, prompts of 100 to 8,000 tokens, answers of
// 10 to 1,500, TTFT 0.2-10 s, TPOT 20-150 ms, targets of 90 to 99.9 %,
// both routers and admissions, spot mixes, crowds of up to 5x, fleets
// capped from 1 to 64 VMs): every run keeps runs_within_invariants.
// A sweep like this one found the bound above a policy (0.74x) on long
// answers over a capped fleet.
// A scenario drawn by a generated sweep, parsed and run as g.yaml: either
// refused with an error naming g.yaml, a key and its line, or reported with
// every row at a finite non-negative cost, its service share (SLO
// attainment, deadlines met) in [0, 1] and every policy at cost_vs_optimal
// >= 1. Returns whether it ran.
bool runs_within_invariants(const std::string& text, const catalog::Catalog& cat) {
  SCOPED_TRACE(text);
  const auto named = [](const Error& e) {
    EXPECT_EQ(e.where.file, "g.yaml") << e.to_string();
    EXPECT_FALSE(e.where.field.empty()) << e.to_string();
    EXPECT_GT(e.where.line, 0) << e.to_string();
  };
  auto s = parse_scenario_string(text, "g.yaml");
  if (!s) {
    named(s.error());
    return false;
  }
  RunOptions o;
  o.threads = 1;
  auto r = run_scenario(*s, &cat, o);
  if (!r) {
    named(r.error());
    return false;
  }
  for (const PolicyRow& p : r->policies) {
    SCOPED_TRACE(p.policy);
    EXPECT_TRUE(std::isfinite(p.cost_usd) && p.cost_usd >= 0) << p.cost_usd;
    for (const std::optional<double>& share : {p.slo_attainment, p.deadline_met_fraction}) {
      if (!share) continue;
      EXPECT_GE(*share, 0);
      EXPECT_LE(*share, 1);
    }
    if (p.policy == "optimal") continue;
    EXPECT_TRUE(p.cost_vs_optimal);
    if (p.cost_vs_optimal) {
      EXPECT_GE(*p.cost_vs_optimal, 1 - 1e-9);
    }
  }
  return true;
}

// One of `v`, drawn from `rng`.
std::string pick(Rng& rng, const std::vector<std::string>& v) { return v[rng.below(v.size())]; }

TEST(Serving, GeneratedScenariosKeepTheInvariants) {
  const auto cat = catalog::Catalog::load_embedded();
  ASSERT_TRUE(cat);
  Rng rng(20261204);
  int ran = 0;
  for (int i = 0; i < 80; ++i) {
    const std::string prompt = pick(rng, {"100", "500", "2000", "8000"});
    const std::string answer = pick(rng, {"10", "100", "400", "1500"});
    std::string text =
        "kind: serving\nvm: {size: " +
        pick(rng,
             {"Standard_NC24ads_A100_v4", "Standard_NC40ads_H100_v5", "Standard_NC48ads_A100_v4",
              "Standard_ND96isr_H100_v5", "Standard_NC4as_T4_v3"}) +
        ", region: eastus}\nmodel: " + pick(rng, {"llama-3.1-8b", "mistral-7b", "llama-3.1-70b"}) +
        "\nprecision: " + pick(rng, {"bf16", "fp8", "int8", "int4"}) +
        "\nslo: {ttft_ms: " + pick(rng, {"200", "1000", "3000", "10000"}) +
        ", tpot_ms: " + pick(rng, {"20", "40", "80", "150"}) +
        ", attainment: " + pick(rng, {"0.9", "0.99", "0.999"}) +
        "}\ndemand:\n  synthetic:\n    rate_rps: " + pick(rng, {"0.5", "4", "13", "30"}) +
        "\n    duration_hours: " + pick(rng, {"0.1", "0.25"}) +
        "\n    noise_cv: " + pick(rng, {"0", "0.3"}) + "\n    input_tokens: {mean: " + prompt +
        ", stddev: " + prompt + ", min: 1, max: " + prompt +
        "0}\n    output_tokens: {mean: " + answer + ", stddev: " + answer +
        ", min: 1, max: " + answer + "0}\n";
    if (rng.uniform() < 0.5)
      text += "    bursts: [{start_hour: 0.03, duration_hours: 0.05, multiplier: " +
              pick(rng, {"1.5", "3", "5"}) + "}]\n";
    text += "fleet:\n  min_replicas: 1\n  initial_replicas: " + pick(rng, {"0", "1", "3"}) +
            "\n  max_replicas: " + pick(rng, {"1", "4", "16", "64"}) +
            "\n  interval_seconds: " + pick(rng, {"10", "15", "60"}) +
            "\n  startup_seconds: " + pick(rng, {"0", "120", "300"}) + "\n";
    if (rng.uniform() < 0.4) text += "  admission: shed\n";
    if (rng.uniform() < 0.3) text += "  routing: least-sequences\n";
    if (rng.uniform() < 0.3) text += "  spot: {share: 0.5, evictions_per_hour: 1}\n";
    ran += runs_within_invariants(text, *cat->get());
  }
  EXPECT_GE(ran, 40);  // most draws are runnable
}

// Deadline and reserve scenarios drawn across what users write (work of 6
// minutes to 24 hours against deadlines 1-5x it, changeovers of 0 to 2 h,
// checkpoints and eviction notices, spot models of 1-minute to 1-hour
// steps; reserve fleets of 1 to 40 VMs shrinking or growing for 4 to 52
// weeks): every run keeps runs_within_invariants. Half an hour of work
// on hourly steps once crashed the hindsight optimum (its grid had no unit
// of work); it is the first draw.
TEST(Simulate, GeneratedDeadlineAndReserveScenariosKeepTheInvariants) {
  const auto cat = catalog::Catalog::load_embedded();
  ASSERT_TRUE(cat);
  Rng rng(20261204);
  int ran = 0;
  for (int i = 0; i < 40; ++i) {
    std::string text;
    if (i == 0) {
      text =
          "kind: deadline\nvm: {size: Standard_NC24ads_A100_v4, region: eastus}\njob: {work_hours: "
          "0.5, deadline_hours: 0.625, changeover_hours: 0}\nspot:\n  model: {mean_up_hours: 10, "
          "mean_down_hours: 10, gap_seconds: 3600, hours: 1.25}\nruns: 5\n";
    } else if (i % 2 == 1) {
      const double work = std::stod(pick(rng, {"0.1", "4", "24"}));
      const double deadline = work * std::stod(pick(rng, {"1", "1.05", "1.25", "2", "5"}));
      text =
          "kind: deadline\nvm: {size: " +
          pick(rng, {"Standard_NC6s_v3", "Standard_NC24ads_A100_v4", "Standard_ND96isr_H100_v5"}) +
          ", region: eastus}\njob:\n  work_hours: " + std::to_string(work) +
          "\n  deadline_hours: " + std::to_string(deadline) +
          "\n  changeover_hours: " + pick(rng, {"0", "0.05", "0.2", "2"}) +
          "\n  checkpoint_seconds: " + pick(rng, {"0", "30", "600"}) +
          "\n  eviction_notice_seconds: " + pick(rng, {"0", "30", "300"}) +
          "\nspot:\n  model: {mean_up_hours: " + pick(rng, {"0.1", "1", "10"}) +
          ", mean_down_hours: " + pick(rng, {"0.05", "1", "10"}) +
          ", gap_seconds: " + pick(rng, {"60", "600", "3600"}) +
          ", hours: " + std::to_string(2 * deadline + 1) + "}\nruns: 3\n";
    } else {
      text = "kind: reserve\nvm: {size: " +
             pick(rng, {"Standard_NC24ads_A100_v4", "Standard_NC40ads_H100_v5"}) +
             ", region: eastus}\nreservation: {term: " + pick(rng, {"1y", "3y"}) +
             ", review_hours: " + pick(rng, {"24", "168", "720"}) +
             "}\ndemand:\n  synthetic: {base_vms: " + pick(rng, {"1", "4", "40"}) +
             ", weeks: " + pick(rng, {"4", "26", "52"}) +
             ", growth_per_week: " + pick(rng, {"-0.05", "0", "0.1"}) +
             ", diurnal_amplitude: " + pick(rng, {"0", "0.3", "0.9"}) +
             ", noise: " + pick(rng, {"0", "0.1", "0.5"}) + "}\n";
    }
    ran += runs_within_invariants(text, *cat->get());
  }
  EXPECT_GE(ran, 20);
}

// fleet.admission: the two values, a suggestion for a near miss, and no
// queue limit beside shedding (which queues nothing).
TEST(Scenario, AdmissionIsQueueOrShed) {
  const std::string head =
      serving_text("on_demand_usd_per_hour: 1", "synthetic: {rate_rps: 1, duration_hours: 1}");
  auto shed = parse_scenario_string(head + "fleet: {admission: shed}\n", "s.yaml");
  ASSERT_TRUE(shed) << shed.error().message;
  EXPECT_EQ(shed->serving().admission, Admission::kShed);
  auto plain = parse_scenario_string(head, "s.yaml");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->serving().admission, Admission::kQueue);
  auto typo = parse_scenario_string(head + "fleet:\n  admission: shedd\n", "s.yaml");
  ASSERT_FALSE(typo);
  EXPECT_EQ(typo.error().where.field, "fleet.admission");
  EXPECT_EQ(typo.error().where.line, 6);
  EXPECT_NE(typo.error().message.find("did you mean 'shed'"), std::string::npos);
  auto both = parse_scenario_string(head + "fleet: {max_queue: 10, admission: shed}\n", "s.yaml");
  ASSERT_FALSE(both);
  EXPECT_EQ(both.error().where.field, "fleet.max_queue");
  // The client's timeout: 600 s unless given, 0 for none, no queue to time
  // out of beside shedding.
  EXPECT_DOUBLE_EQ(plain->serving().queue_timeout_s, 600);
  auto timeout = parse_scenario_string(head + "fleet: {queue_timeout_seconds: 30}\n", "s.yaml");
  ASSERT_TRUE(timeout) << timeout.error().message;
  EXPECT_DOUBLE_EQ(timeout->serving().queue_timeout_s, 30);
  auto shed_timeout = parse_scenario_string(
      head + "fleet: {queue_timeout_seconds: 30, admission: shed}\n", "s.yaml");
  ASSERT_FALSE(shed_timeout);
  EXPECT_EQ(shed_timeout.error().where.field, "fleet.queue_timeout_seconds");
}

// slo-guard's settings, for measuring its steps (the backlog drain's off
// and on figures in docs/simulate.md): the defaults are the policy, each
// key is range-checked with its line, and only a serving scenario has them.
TEST(Scenario, SloGuardSettingsAreTheScenarios) {
  const std::string head =
      serving_text("on_demand_usd_per_hour: 1", "synthetic: {rate_rps: 1, duration_hours: 1}");
  auto plain = parse_scenario_string(head, "s.yaml");
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_TRUE(plain->serving().slo_guard.drain_backlog);
  auto off = parse_scenario_string(
      head + "slo_guard: {drain_backlog: false, hold_seconds: 600, slot_occupancy: 0.8}\n",
      "s.yaml");
  ASSERT_TRUE(off) << off.error().message;
  EXPECT_FALSE(off->serving().slo_guard.drain_backlog);
  EXPECT_DOUBLE_EQ(off->serving().slo_guard.hold_s, 600);
  EXPECT_DOUBLE_EQ(off->serving().slo_guard.slot_occupancy, 0.8);
  auto bad = parse_scenario_string(head + "slo_guard:\n  drain_backlog: maybe\n", "s.yaml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where.field, "slo_guard.drain_backlog");
  EXPECT_EQ(bad.error().where.line, 6);
  auto range = parse_scenario_string(head + "slo_guard: {slot_occupancy: 2}\n", "s.yaml");
  ASSERT_FALSE(range);
  EXPECT_EQ(range.error().where.field, "slo_guard.slot_occupancy");
  auto typo = parse_scenario_string(head + "slo_guard: {drain_backlogs: false}\n", "s.yaml");
  ASSERT_FALSE(typo);
  EXPECT_NE(typo.error().message.find("drain_backlog"), std::string::npos) << typo.error().message;
  auto deadline = parse_scenario_string(
      "kind: deadline\njob: {gpu_hours: 10, deadline_hours: 20}\nslo_guard: {}\n", "d.yaml");
  ASSERT_FALSE(deadline);
  EXPECT_EQ(deadline.error().where.field, "slo_guard");
}

// autoscale rules take what Azure Monitor deploys: a window of 5 minutes to
// 12 hours, and Last among the aggregations.
TEST(Scenario, AutoscaleRulesTakeAzureMonitorsWindowsAndAggregations) {
  const std::string head =
      serving_text("on_demand_usd_per_hour: 1", "synthetic: {rate_rps: 1, duration_hours: 1}");
  const auto with = [&](const std::string& rule) {
    return parse_scenario_string(
        head +
            "autoscale:\n  rules:\n    - {metric: utilization, operator: GreaterThan, "
            "threshold: 70, direction: out, " +
            rule + "}\n",
        "s.yaml");
  };
  auto last = with("window_seconds: 300, time_aggregation: Last");
  ASSERT_TRUE(last) << last.error().message;
  EXPECT_EQ(last->serving().autoscale.rules[0].time_aggregation, "Last");
  auto minute = with("window_seconds: 60");
  ASSERT_FALSE(minute);
  EXPECT_EQ(minute.error().where.field, "autoscale.rules[0].window_seconds");
  auto total = with("time_aggregation: Totl");
  ASSERT_FALSE(total);
  EXPECT_EQ(total.error().where.field, "autoscale.rules[0].time_aggregation");
}

// The serving report's table: TTFT and TPOT at p50 and p99 on a wide
// terminal (both targets decide the SLO); a narrow one drops the counts and
// p50 TPOT first and keeps cost, attainment and p99 TPOT.
TEST(Report, ServingTableShowsTpotBesideTtft) {
  auto s = parse_scenario_string(
      serving_text("on_demand_usd_per_hour: 1", "synthetic: {rate_rps: 2, duration_hours: 0.2}"),
      "s.yaml");
  ASSERT_TRUE(s) << s.error().message;
  const auto cat = catalog::Catalog::load_embedded();
  ASSERT_TRUE(cat);
  auto r = run_scenario(*s, cat->get(), RunOptions{});
  ASSERT_TRUE(r) << r.error().to_string();
  const std::string wide = to_text(*r, 200);
  for (const char* col : {"p50 TTFT ms", "p99 TTFT ms", "p50 TPOT ms", "p99 TPOT ms", "GPU-h"})
    EXPECT_NE(wide.find(col), std::string::npos) << col << "\n" << wide;
  const std::string narrow = to_text(*r, 100);
  EXPECT_EQ(narrow.find("p50 TPOT ms"), std::string::npos) << narrow;
  EXPECT_NE(narrow.find("p99 TPOT ms"), std::string::npos) << narrow;
  EXPECT_NE(narrow.find("SLO %"), std::string::npos) << narrow;
}

// fleet.spot: what it needs, and a run with it: each policy's cost splits
// into pay-as-you-go and spot, and the bound, priced at the blend the mix
// allows, stays below every policy.
TEST(Scenario, SpotMixRunsAndTheBoundStaysBelow) {
  const std::string head =
      serving_text("on_demand_usd_per_hour: 1, spot_usd_per_hour: 0.2",
                   "synthetic: {rate_rps: 20, duration_hours: 2, noise_cv: 0.2}");
  auto no_rate = parse_scenario_string(head + "fleet: {spot: {share: 0.5}}\n", "s.yaml");
  ASSERT_FALSE(no_rate);
  EXPECT_EQ(no_rate.error().where.field, "fleet.spot");
  auto too_much = parse_scenario_string(
      head + "fleet: {spot: {share: 1.5, evictions_per_hour: 0.1}}\n", "s.yaml");
  ASSERT_FALSE(too_much);
  EXPECT_EQ(too_much.error().where.field, "fleet.spot.share");
  auto storm = parse_scenario_string(
      head + "fleet: {spot: {share: 0.5, evictions_per_hour: 3600}}\n", "s.yaml");
  ASSERT_FALSE(storm);  // each eviction scans the event queue: bounded
  EXPECT_EQ(storm.error().where.field, "fleet.spot.evictions_per_hour");
  auto long_notice = parse_scenario_string(
      head + "fleet: {spot: {share: 0.5, evictions_per_hour: 1, notice_seconds: 3600}}\n",
      "s.yaml");
  ASSERT_FALSE(long_notice);  // every VM would be under notice before it served
  EXPECT_EQ(long_notice.error().where.field, "fleet.spot.notice_seconds");
  auto s = parse_scenario_string(
      head + "fleet: {max_replicas: 12, spot: {share: 0.5, evictions_per_hour: 1}}\n", "s.yaml");
  ASSERT_TRUE(s) << s.error().message;
  const auto cat = catalog::Catalog::load_embedded();
  ASSERT_TRUE(cat);
  auto r = run_scenario(*s, cat->get(), RunOptions{});
  ASSERT_TRUE(r) << r.error().to_string();
  int evictions = 0;
  for (const PolicyRow& p : r->policies) {
    SCOPED_TRACE(p.policy);
    ASSERT_TRUE(p.cost_vs_optimal);
    EXPECT_GE(*p.cost_vs_optimal, 1.0);
    if (p.policy == "optimal") continue;
    EXPECT_GT(p.spot_usd, 0);
    EXPECT_NEAR(p.on_demand_usd + p.spot_usd, p.cost_usd, 1e-6);
    evictions += static_cast<int>(p.evictions);
  }
  EXPECT_GT(evictions, 0);  // one an hour per spot VM, over two hours
  // The timeline says what the billed VMs are (it said payg throughout).
  RunOptions with_timeline;
  with_timeline.timeline = true;
  auto t = run_scenario(*s, cat->get(), with_timeline);
  ASSERT_TRUE(t) << t.error().to_string();
  bool mixed = false;
  for (const TimelineRow& row : t->timeline) {
    EXPECT_TRUE(row.capacity == "payg" || row.capacity == "spot" || row.capacity == "payg+spot")
        << row.capacity;
    mixed = mixed || row.capacity == "payg+spot";
  }
  EXPECT_TRUE(mixed);
  // A fleet of one spot VM and no base: evicted, it is gone until the next
  // decision replaces it, so the bound may not charge min_replicas all along
  // (it did, and sat above such a fleet: cost_vs_optimal 0.981).
  auto lone = parse_scenario_string(
      head +
          "fleet: {max_replicas: 1, admission: shed, spot: {share: 1, base_regular: 0, "
          "evictions_per_hour: 10, notice_seconds: 0}}\n",
      "s.yaml");
  ASSERT_TRUE(lone) << lone.error().message;
  auto lr = run_scenario(*lone, cat->get(), RunOptions{});
  ASSERT_TRUE(lr) << lr.error().to_string();
  for (const PolicyRow& p : lr->policies) {
    SCOPED_TRACE(p.policy);
    if (p.cost_vs_optimal) {
      EXPECT_GE(*p.cost_vs_optimal, 1.0);
    }
  }
  bool noted = false;
  for (const std::string& n : r->notes) noted |= n.rfind("spot (evictions", 0) == 0;
  EXPECT_TRUE(noted);
}

// The scenario and the workload parsers share one reader: a number <= 0
// reads as in a workload file, and '_' groups digits in both.
TEST(Scenario, NumbersReadAsInWorkloadFiles) {
  auto s = parse_scenario_string("kind: deadline\njob:\n  work_hours: -4\n  deadline_hours: 6\n",
                                 "s.yaml");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "must be greater than 0, got -4");
  EXPECT_EQ(s.error().where.line, 3);
  EXPECT_EQ(s.error().where.column, 15);
  EXPECT_EQ(s.error().where.field, "job.work_hours");
  s = parse_scenario_string("kind: deadline\njob: {work_hours: 1_000_000, deadline_hours: 6}\n",
                            "s.yaml");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "expected a number in (0, 87600], got 1_000_000");
}

TEST(Scenario, RejectsUnknownPolicyAndImpossibleDeadline) {
  auto s = parse_scenario_string(
      "kind: deadline\nprices: {on_demand_usd_per_hour: 3, spot_usd_per_hour: 1}\npolicies: "
      "[greedy-spto]\n"
      "job: {work_hours: 4, deadline_hours: 6}\nspot: {traces: [a.json]}\n",
      "s.yaml");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("did you mean 'greedy-spot'"), std::string::npos);
  s = parse_scenario_string(
      "kind: deadline\nprices: {on_demand_usd_per_hour: 3, spot_usd_per_hour: 1}\n"
      "job: {work_hours: 4, deadline_hours: 4.1}\nspot: {traces: [a.json]}\n",
      "s.yaml");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().where.field, "job.deadline_hours");
}

TEST(AutoscaleExport, ThresholdsWindowsAndCooldownsEqualThePolicys) {
  const AutoscaleSettings s = default_autoscale_settings();
  AutoscaleTarget target;
  target.minimum = 1;
  target.maximum = 16;
  target.default_capacity = 2;
  target.target_resource_uri =
      "/subscriptions/x/resourceGroups/g/providers/Microsoft.Compute/virtualMachineScaleSets/serve";
  const auto j = azure_autoscale_settings(s, target);
  EXPECT_EQ(j["type"], "Microsoft.Insights/autoscaleSettings");
  const auto& prof = j["properties"]["profiles"][0];
  EXPECT_EQ(prof["capacity"]["minimum"], "1");
  EXPECT_EQ(prof["capacity"]["maximum"], "16");
  EXPECT_EQ(prof["capacity"]["default"], "2");
  ASSERT_EQ(prof["rules"].size(), s.rules.size());
  for (size_t i = 0; i < s.rules.size(); ++i) {
    const auto& r = prof["rules"][i];
    EXPECT_EQ(r["metricTrigger"]["threshold"].get<double>(), s.rules[i].threshold);
    EXPECT_EQ(r["metricTrigger"]["operator"], s.rules[i].op);
    EXPECT_EQ(r["metricTrigger"]["timeWindow"], iso8601_duration(s.rules[i].window_s));
    EXPECT_EQ(r["metricTrigger"]["timeGrain"], "PT1M");
    EXPECT_EQ(r["scaleAction"]["cooldown"], iso8601_duration(s.rules[i].cooldown_s));
    EXPECT_EQ(r["scaleAction"]["direction"], s.rules[i].scale_out ? "Increase" : "Decrease");
    EXPECT_EQ(r["scaleAction"]["value"], std::to_string(s.rules[i].change));
  }
  EXPECT_EQ(prof["rules"][0]["metricTrigger"]["timeWindow"], "PT5M");
  EXPECT_EQ(prof["rules"][2]["scaleAction"]["cooldown"], "PT10M");
  EXPECT_EQ(iso8601_duration(5400), "PT1H30M");
  EXPECT_EQ(iso8601_duration(45), "PT45S");
}

TEST(Determinism, SameInputsSameReportAndLog) {
  for (const char* file : {"deadline_small.yaml", "serving_small.yaml"}) {
    auto s = parse_scenario_file(fixture(file));
    ASSERT_TRUE(s) << s.error().to_string();
    RunOptions o;
    o.event_log = true;
    o.timeline = true;
    auto a = run_scenario(*s, nullptr, o);
    auto b = run_scenario(*s, nullptr, o);
    ASSERT_TRUE(a) << a.error().to_string();
    ASSERT_TRUE(b);
    EXPECT_EQ(to_json(*a).dump(), to_json(*b).dump());
    EXPECT_EQ(a->event_log, b->event_log);
    EXPECT_EQ(timeline_csv(*a), timeline_csv(*b));
    EXPECT_FALSE(a->event_log.empty());
  }
}

// --timeline and --plot write the timeline a point at a time; the text is
// the DOM's dump byte for byte (indented and compact), for every kind, and
// for a timeline with no points.
TEST(Report, TimelineTextIsTheDomsDump) {
  for (const char* file : {"deadline_small.yaml", "serving_small.yaml"}) {
    auto s = parse_scenario_file(fixture(file));
    ASSERT_TRUE(s) << file << ": " << s.error().to_string();
    RunOptions o;
    o.timeline = true;
    auto r = run_scenario(*s, nullptr, o);
    ASSERT_TRUE(r) << r.error().to_string();
    ASSERT_FALSE(r->timeline.empty()) << file;
    EXPECT_EQ(timeline_json_text(*r, 2), timeline_json(*r).dump(2)) << file;
    EXPECT_EQ(timeline_json_text(*r, -1), timeline_json(*r).dump()) << file;
    r->timeline.clear();
    EXPECT_EQ(timeline_json_text(*r, 2), timeline_json(*r).dump(2)) << file;
    EXPECT_EQ(timeline_json_text(*r, -1), timeline_json(*r).dump()) << file;
  }
}

TEST(Determinism, ThreadsDoNotChangeTheReport) {
  auto s = parse_scenario_file(fixture("deadline_small.yaml"));
  ASSERT_TRUE(s) << s.error().to_string();
  RunOptions o;
  o.runs = 9;
  o.event_log = true;
  o.timeline = true;
  o.threads = 1;
  auto one = run_scenario(*s, nullptr, o);
  ASSERT_TRUE(one) << one.error().to_string();
  for (int threads : {2, 3, 8}) {
    o.threads = threads;
    auto many = run_scenario(*s, nullptr, o);
    ASSERT_TRUE(many);
    EXPECT_EQ(to_text(*one), to_text(*many)) << threads;
    EXPECT_EQ(to_json(*one).dump(), to_json(*many).dump()) << threads;
    EXPECT_EQ(one->event_log, many->event_log) << threads;
    EXPECT_EQ(timeline_csv(*one), timeline_csv(*many)) << threads;
  }
}

TEST(Shards, MergedPartialsEqualTheSingleRun) {
  auto s = parse_scenario_file(fixture("deadline_small.yaml"));
  ASSERT_TRUE(s) << s.error().to_string();
  RunOptions o;
  o.runs = 7;
  auto single = run_scenario(*s, nullptr, o);
  ASSERT_TRUE(single) << single.error().to_string();
  for (int n : {1, 2, 3, 7, 10}) {  // 10 > 7 runs: some slices are empty
    std::vector<nlohmann::json> parts;
    std::vector<std::string> files;
    for (int i = n - 1; i >= 0; --i) {  // any order
      o.shard = RunOptions::Shard{i, n};
      auto part = run_scenario(*s, nullptr, o);
      ASSERT_TRUE(part) << part.error().to_string();
      ASSERT_TRUE(part->partial);
      parts.push_back(nlohmann::json::parse(partial_json(*part).dump()));  // through text
      files.push_back("part" + std::to_string(i) + ".json");
    }
    auto merged = merge_partials(parts, files);
    ASSERT_TRUE(merged) << merged.error().to_string();
    EXPECT_EQ(to_text(*single), to_text(*merged)) << n;
    EXPECT_EQ(to_json(*single).dump(), to_json(*merged).dump()) << n;
    if (n == 3) {  // a missing or repeated slice is an error naming it
      std::vector<nlohmann::json> two(parts.begin(), parts.begin() + 2);
      auto missing = merge_partials(two, {files[0], files[1]});
      ASSERT_FALSE(missing);
      EXPECT_NE(missing.error().message.find("missing shard(s) 0 of 3"), std::string::npos);
      auto twice = merge_partials({parts[0], parts[0]}, {files[0], "again.json"});
      ASSERT_FALSE(twice);
      EXPECT_EQ(twice.error().where.file, "again.json");
      // The shard count is read from the file: past an int it is refused,
      // and a billion shards of which one is given are named in a line
      // (they once allocated 7.8 GB first).
      nlohmann::json huge = parts[0];
      huge["shards"] = int64_t{1000000000000};
      auto wrapped = merge_partials({huge}, {"huge.json"});
      ASSERT_FALSE(wrapped);
      EXPECT_EQ(wrapped.error().where.field, "shards");
      huge["shards"] = 1000000000;
      huge["shard"] = 0;
      auto billion = merge_partials({huge}, {"billion.json"});
      ASSERT_FALSE(billion);
      EXPECT_NE(billion.error().message.find("(999999999 in all) of 1000000000"), std::string::npos)
          << billion.error().message;
    }
    if (n == 1) {  // numbers no run writes: a negative cost, a run past --runs
      for (const auto& [path, value] :
           std::vector<std::pair<std::string, double>>{{"/records/0/rows/0/0", -100},
                                                       {"/records/0/rows/0/0", 1e308},
                                                       {"/records/0/rows/0/2", 1.5},
                                                       {"/records/0/run", 999}}) {
        nlohmann::json tampered = parts[0];
        tampered[nlohmann::json::json_pointer(path)] = value;
        auto r = merge_partials({tampered}, {"t.json"});
        ASSERT_FALSE(r) << path << " " << value;
        EXPECT_EQ(r.error().where.field, "records") << path;
      }
    }
  }
}

}  // namespace
}  // namespace gpuplan::simulate

namespace gpuplan::simulate {
namespace {

// Every serving example: every policy costs at least the bound (at the SLO
// target, or at its own attainment when it fell short), and slo-guard keeps
// the target on the synthetic weeks it was written for.
TEST(Serving, EveryExampleHasCostVsOptimalAtLeastOne) {
  const auto cat = catalog::Catalog::load_embedded();
  ASSERT_TRUE(cat);
  for (const char* name : {"sim-serve-conv.yaml", "sim-serve-week.yaml", "sim-serve-longctx.yaml",
                           "sim-serve-growth.yaml", "sim-serve-day.yaml", "sim-serve-spot.yaml"}) {
    SCOPED_TRACE(name);
    auto s = parse_scenario_file(std::string(GPUPLAN_SOURCE_DIR) + "/examples/" + name);
    ASSERT_TRUE(s) << s.error().to_string();
    auto r = run_scenario(*s, cat->get(), RunOptions{});
    ASSERT_TRUE(r) << r.error().to_string();
    ASSERT_EQ(r->policies.back().policy, "optimal");
    EXPECT_GT(r->policies.back().cost_usd, 0);
    for (const PolicyRow& p : r->policies) {
      SCOPED_TRACE(p.policy);
      ASSERT_TRUE(p.cost_vs_optimal);
      EXPECT_GE(*p.cost_vs_optimal, 1.0);
      // The four scenarios of issue 11, the one-day cut (whose flash
      // crowd, in the first day, before any history, spends most of the
      // day's budget: 99.26 %) and that day half on spot (99.25 %; the
      // bound is priced at the mix's blend).
      if (p.policy == "slo-guard") {
        ASSERT_TRUE(p.slo_attainment);
        EXPECT_GE(*p.slo_attainment, 0.99);
      }
    }
  }
}

// Days generated by bench/serving_generated.py that nobody tuned slo-guard on
// (the files say which, and what the policy met before): it keeps the
// target there too.
TEST(Serving, SloGuardMeetsTheTargetOnGeneratedDays) {
  const auto cat = catalog::Catalog::load_embedded();
  ASSERT_TRUE(cat);
  for (const char* name : {"generated_short_prompts.yaml", "generated_long_answers.yaml"}) {
    SCOPED_TRACE(name);
    auto s = parse_scenario_file(std::string(GPUPLAN_SOURCE_DIR) + "/tests/data/sim/" + name);
    ASSERT_TRUE(s) << s.error().to_string();
    RunOptions o;
    o.policies = {"slo-guard"};
    auto r = run_scenario(*s, cat->get(), o);
    ASSERT_TRUE(r) << r.error().to_string();
    ASSERT_EQ(r->policies.front().policy, "slo-guard");
    ASSERT_TRUE(r->policies.front().slo_attainment);
    EXPECT_GE(*r->policies.front().slo_attainment, 0.99);
  }
}

// The hindsight margin search: 1, 2, doublings while the target is missed,
// then five halvings between the last miss and the first meet. A target
// first met at m = 5 (Azure's LLM code hour on an H100 met it there, where
// m = 2 reached 95.6 %) is found to 1/8; one met at 1.3 never doubles; one
// never met stops at 32; an error ends the search.
TEST(Serving, HindsightSearchDoublesTheMarginUntilTheTargetIsMet) {
  const auto tried = [](double threshold) {
    std::vector<double> ms;
    auto st = search_hindsight_margin([&](double m) -> Result<bool> {
      ms.push_back(m);
      return m >= threshold;
    });
    EXPECT_TRUE(st);
    return ms;
  };
  EXPECT_EQ(tried(5), (std::vector<double>{1, 2, 4, 8, 6, 5, 4.5, 4.75, 4.875}));
  EXPECT_EQ(tried(1.3), (std::vector<double>{1, 2, 1.5, 1.25, 1.375, 1.3125, 1.28125}));
  EXPECT_EQ(tried(1e9), (std::vector<double>{1, 2, 4, 8, 16, 32}));
  EXPECT_EQ(tried(1), (std::vector<double>{1}));
  int calls = 0;
  auto failed = search_hindsight_margin([&](double m) -> Result<bool> {
    ++calls;
    if (m > 3) return internal_error("replay failed");
    return false;
  });
  ASSERT_FALSE(failed);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(static_cast<int>(tried(1e9).size()), 2 + kHindsightDoublings);
  EXPECT_EQ(tried(1e9).back(), kHindsightMaxMargin);
  EXPECT_LE(static_cast<int>(tried(5).size()), kHindsightMaxRuns);
}

// What the search returns: the cheapest run that met the target; when none
// did, the run of the highest attainment from m = 2 on (not m = 1's, which
// is leaner than any margin the search holds to, and whose higher
// attainment hid m = 8's before this was mended: the m = 2 run came back).
// Replays stubbed by call: margins 1, 2, 4, 8, 16, 32 reach 98, 90, 93, 97,
// 95, 94 % of 100 requests.
TEST(Serving, HindsightKeepsItsBestRun) {
  const auto search = [](std::vector<int64_t> met_by_call, double target) {
    ServingConfig c;
    c.slo_attainment = target;
    size_t call = 0;
    auto h = run_hindsight(c, DemandProfile{}, PolicyContext{},
                           [&](ScalingPolicy&) -> Result<ServingRun> {
                             ServingRun r;
                             r.requests = 100;
                             r.slo_met = met_by_call.at(call);
                             r.cost_usd = static_cast<double>(++call);  // dearer each time
                             return r;
                           });
    EXPECT_TRUE(h);
    return *h;
  };
  const HindsightRun none = search({98, 90, 93, 97, 95, 94}, 0.99);
  EXPECT_EQ(none.runs, 6);
  EXPECT_EQ(none.margin, 8);
  EXPECT_EQ(none.run.slo_met, 97);
  // Met first at 8 (the fourth run), then at 6 and 5 of the halvings: the
  // cheapest met is the first, 8, as the stub makes each run dearer.
  const HindsightRun met = search({90, 95, 98, 99, 99, 99, 98, 98, 98}, 0.99);
  EXPECT_EQ(met.runs, 9);
  EXPECT_EQ(met.margin, 8);
  EXPECT_EQ(met.run.cost_usd, 4);
}

// The hindsight schedule, on the examples that replay in well under a
// second: a fleet really reaches its cost, so it meets the attainment
// target, costs at least the bound, and says what it is.
TEST(Serving, HindsightMeetsTheTargetAtACostAboveTheBound) {
  const auto cat = catalog::Catalog::load_embedded();
  ASSERT_TRUE(cat);
  for (const char* name : {"sim-serve-conv.yaml", "sim-serve-longctx.yaml"}) {
    SCOPED_TRACE(name);
    auto s = parse_scenario_file(std::string(GPUPLAN_SOURCE_DIR) + "/examples/" + name);
    ASSERT_TRUE(s) << s.error().to_string();
    RunOptions o;
    o.policies = {"hindsight"};
    auto r = run_scenario(*s, cat->get(), o);
    ASSERT_TRUE(r) << r.error().to_string();
    ASSERT_EQ(r->policies.size(), 2u);
    const PolicyRow& h = r->policies[0];
    EXPECT_EQ(h.policy, "hindsight");
    ASSERT_TRUE(h.slo_attainment);
    EXPECT_GE(*h.slo_attainment, 0.99);
    ASSERT_TRUE(h.cost_vs_optimal);
    EXPECT_GE(*h.cost_vs_optimal, 1.0);
    bool said = false;
    for (const std::string& n : r->notes) said = said || n.rfind("hindsight: ", 0) == 0;
    EXPECT_TRUE(said);
  }
}

// A replay, a deadline sweep and a reserve sweep given a deadline that has
// passed stop with kDeadlineExceeded, saying what they were doing; with none
// they run (the CLI sets none).
TEST(Simulate, APassedDeadlineStopsEveryKindOfScenario) {
  const auto cat = catalog::Catalog::load_embedded();
  ASSERT_TRUE(cat);
  for (const auto& [file, doing] : std::vector<std::pair<std::string, std::string>>{
           {"sim-serve-conv.yaml", "while re"},  // reading the demand or replaying it
           {"sim-serve-day.yaml", "while re"},
           {"sim-deadline-spot.yaml", "while 0 of "},
           {"sim-reserve-growth.yaml", "while 0 of 1 runs done"}}) {
    SCOPED_TRACE(file);
    auto s = parse_scenario_file(std::string(GPUPLAN_SOURCE_DIR) + "/examples/" + file);
    ASSERT_TRUE(s) << s.error().to_string();
    RunOptions o;
    o.runs = 2;
    o.deadline = Deadline::after(0);
    auto r = run_scenario(*s, cat->get(), o);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ErrorCode::kDeadlineExceeded) << r.error().to_string();
    EXPECT_NE(r.error().message.find(doing), std::string::npos) << r.error().message;
  }
}

// hindsight asks, at each decision, for the largest need of the intervals
// from now to one start-up and two intervals ahead. It slides that window
// one interval a decision; the answer must be the one scanning every bin
// ahead gives (which it did, at startup / bin reads a decision).
TEST(Serving, HindsightReadsEveryIntervalAheadOfEachDecision) {
  BoundBins bins;
  bins.bin_s = 0.5;
  Rng rng(7);
  for (int i = 0; i < 4000; ++i) {
    // Mostly idle bins, some busy, a few very busy: the peak moves.
    const double u = rng.uniform();
    const float v =
        u < 0.6 ? 0.0F : static_cast<float>(u < 0.97 ? rng.uniform() : 5 * rng.uniform());
    bins.prefill_s_sum.push_back(v);
    bins.prefill_s_max.push_back(v);
  }
  for (const double startup : {0.0, 7.0, 60.0, 600.0}) {
    SCOPED_TRACE(startup);
    PolicyContext ctx;
    ctx.startup_s = startup;
    ctx.ttft_slo_s = 0.8;
    ctx.tpot_slo_s = 0.05;
    ctx.step_base_s = 0.01;
    ctx.step_per_seq_s = 0.001;
    ctx.replicas_per_vm = 2;
    auto pol = make_hindsight_policy(bins, 1.3);
    pol->reset(ctx);
    const double iv = 4;
    for (int k = 1; k * iv < 2100; ++k) {
      PolicyInput in;
      in.now_s = k * iv;
      in.ready = 1 + k % 5;
      in.sequences = (k * 7) % 40;
      const double batch = std::max(1.0, in.sequences / std::max(1.0, in.ready * 2.0));
      const double share = std::clamp(1 - (0.01 + 0.001 * batch) / 0.05, 0.05, 1.0);
      double need = 1;
      for (double t = in.now_s; t < in.now_s + startup + 2 * iv; t += iv) {
        double sum = 0, peak = 0;
        for (auto b = static_cast<size_t>(t / bins.bin_s);
             b < std::min(bins.prefill_s_sum.size(), static_cast<size_t>((t + iv) / bins.bin_s));
             ++b) {
          sum += bins.prefill_s_sum[b];
          peak = std::max(peak, static_cast<double>(bins.prefill_s_sum[b]));
        }
        need = std::max({need, 1.3 * sum / (share * iv), peak / (bins.bin_s + 0.8)});
      }
      const int want = std::max(1, static_cast<int>(std::ceil(need / 2 - 1e-9)));
      ASSERT_EQ(pol->decide(in).replicas, want) << "at " << in.now_s << " s";
    }
  }
}

TEST(Serving, APolicyNamedTwiceRunsOnce) {
  const auto cat = catalog::Catalog::load_embedded();
  ASSERT_TRUE(cat);
  auto s = parse_scenario_file(std::string(GPUPLAN_SOURCE_DIR) + "/examples/sim-serve-conv.yaml");
  ASSERT_TRUE(s);
  RunOptions o;
  o.policies = {"hindsight", "hpa", "hindsight"};
  auto r = run_scenario(*s, cat->get(), o);
  ASSERT_TRUE(r) << r.error().to_string();
  ASSERT_EQ(r->policies.size(), 3u);  // hindsight, hpa, optimal
  EXPECT_EQ(r->policies[0].policy, "hindsight");
  EXPECT_EQ(r->policies[1].policy, "hpa");
}

TEST(Serving, HindsightRunsOnlyWhenNamed) {
  const auto cat = catalog::Catalog::load_embedded();
  ASSERT_TRUE(cat);
  auto s = parse_scenario_file(std::string(GPUPLAN_SOURCE_DIR) + "/examples/sim-serve-conv.yaml");
  ASSERT_TRUE(s);
  auto r = run_scenario(*s, cat->get(), RunOptions{});
  ASSERT_TRUE(r);
  for (const PolicyRow& p : r->policies) EXPECT_NE(p.policy, "hindsight");
}

}  // namespace
}  // namespace gpuplan::simulate

namespace gpuplan::simulate {
namespace {

TEST(AutoscaleExport, SloGuardExportsTieredRulesOnItsDeficitAndSaysWhatItCannotExpress) {
  AutoscaleTarget t;
  t.target_resource_uri = "vmss";
  const SloGuardExport e = slo_guard_autoscale_settings(SloGuardSettings{}, 300, 15, t);
  const auto& rules = e.resource["properties"]["profiles"][0]["rules"];
  ASSERT_EQ(rules.size(), 5u);  // Azure allows at most 10 per profile
  EXPECT_EQ(rules[0]["metricTrigger"]["metricName"], "SloGuardDeficitVms");
  EXPECT_EQ(rules[0]["metricTrigger"]["timeGrain"], "PT1M");
  EXPECT_EQ(rules[3]["scaleAction"]["value"], "11");
  // Scale-in over the ski-rental hold: one start-up = 5 minutes.
  EXPECT_EQ(rules[4]["metricTrigger"]["timeWindow"], "PT5M");
  EXPECT_EQ(rules[4]["scaleAction"]["direction"], "Decrease");
  ASSERT_EQ(e.not_expressed.size(), 4u);
  EXPECT_NE(e.not_expressed[1].find("15 s"), std::string::npos);
}

// What Azure Monitor accepts in a MetricTrigger (autoscale REST API
// 2022-10-01): statistic Average|Min|Max|Sum|Count; timeAggregation
// Average|Minimum|Maximum|Total|Count|Last; timeWindow 5 minutes to 12
// hours; timeGrain 1 minute to 12 hours. An export that breaks one is
// refused when deployed, after the plan promised the simulated SLO.
void expect_azure_accepts_the_rules(const nlohmann::ordered_json& resource) {
  const std::set<std::string> statistics = {"Average", "Min", "Max", "Sum", "Count"};
  const std::set<std::string> aggregations = {"Average", "Minimum", "Maximum",
                                              "Total",   "Count",   "Last"};
  const auto seconds = [](const std::string& iso) {
    double s = 0, v = 0;
    for (char c : iso.substr(2)) {
      if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
        v = v * 10 + (c - '0');
      } else {
        s += v * (c == 'H' ? 3600 : c == 'M' ? 60 : 1);
        v = 0;
      }
    }
    return s;
  };
  for (const auto& rule : resource["properties"]["profiles"][0]["rules"]) {
    const auto& m = rule["metricTrigger"];
    EXPECT_TRUE(statistics.count(m["statistic"].get<std::string>())) << m.dump();
    EXPECT_TRUE(aggregations.count(m["timeAggregation"].get<std::string>())) << m.dump();
    const double window = seconds(m["timeWindow"].get<std::string>());
    EXPECT_GE(window, 300) << m.dump();
    EXPECT_LE(window, 43200) << m.dump();
    EXPECT_GE(seconds(m["timeGrain"].get<std::string>()), 60) << m.dump();
  }
}

TEST(AutoscaleExport, EveryExportedRuleIsOneAzureMonitorAccepts) {
  AutoscaleTarget t;
  t.target_resource_uri = "vmss";
  expect_azure_accepts_the_rules(azure_autoscale_settings(default_autoscale_settings(), t));
  // Start-ups shorter and longer than Azure's shortest window.
  for (double startup : {60.0, 256.0, 900.0}) {
    const SloGuardExport e = slo_guard_autoscale_settings(SloGuardSettings{}, startup, 15, t);
    expect_azure_accepts_the_rules(e.resource);
    EXPECT_EQ(azure_autoscale_settings(e.rules, t), e.resource);  // what is simulated is exported
  }
}

// "Last" reads the newest grain of the window: a scale-out tier fires once
// per deficit seen, not again for as long as a 5-minute maximum remembers
// it. A rule on utilization > 50 % with Last fires after one grain above it
// and stops at the first grain below.
TEST(AutoscaleExport, LastAggregationReadsTheNewestGrain) {
  AutoscaleSettings s;
  s.time_grain_s = 60;
  s.rules = {{"utilization", "GreaterThan", 50, 300, "Average", "Last", true, 1, 60}};
  auto p = make_azure_autoscale_policy(s);
  p->reset(PolicyContext{});
  PolicyInput in;
  in.ready = 2;
  in.now_s = 60;
  in.utilization = 0.9;  // one grain above: fires at once (no 5 grains needed)
  EXPECT_EQ(p->decide(in).replicas, 3);
  in.ready = 3;
  in.now_s = 120;
  in.utilization = 0.2;  // the newest grain is below: no action
  EXPECT_EQ(p->decide(in).replicas, 3);
  in.now_s = 180;
  in.utilization = 0.6;
  EXPECT_EQ(p->decide(in).replicas, 4);
}

// The plot page carries its scripts and data inline: a "</" inside any of
// them (a string in the library, a policy or scenario name in the data) must
// not close the <script> element early, and the title is HTML-escaped.
TEST(PlotHtml, ScriptsAndDataCannotCloseTheirElement) {
  SimReport r;
  r.scenario = "a</script><b>";
  r.kind = "serving";
  PolicyRow p;
  p.policy = "hpa";
  r.policies.push_back(p);
  r.timeline.push_back({"hpa", 0.5, 2, 1, "payg", 1.5, 120.0, 250.0, 300.0, 20.0, 45.0});
  r.timeline.back().missed = 3;
  const std::string html = plot_html(r, {"var lib = '</script>';", "var charts = 1;"});
  size_t closes = 0;
  for (size_t at = html.find("</script>"); at != std::string::npos;
       at = html.find("</script>", at + 1))
    ++closes;
  EXPECT_EQ(closes, 3u) << html;  // the library, the chart code, the data
  EXPECT_NE(html.find("var lib = '<\\/script>';"), std::string::npos);
  EXPECT_NE(html.find("<title>gpuplan simulate: a&lt;/script&gt;&lt;b&gt;</title>"),
            std::string::npos);
  EXPECT_NE(html.find("\"ttft_max_ms\":300.0"), std::string::npos) << html;
  // The latency charts' series: p99 and mean of TTFT and TPOT per interval.
  EXPECT_NE(html.find("\"ttft_p99_ms\":250.0"), std::string::npos) << html;
  EXPECT_NE(html.find("\"tpot_mean_ms\":20.0"), std::string::npos) << html;
  EXPECT_NE(html.find("\"tpot_p99_ms\":45.0"), std::string::npos) << html;
  // The misses chart's series: requests that missed, per interval.
  EXPECT_NE(html.find("\"missed\":3"), std::string::npos) << html;
  EXPECT_NE(html.find("gpuplanCharts.simulation("), std::string::npos);
}

}  // namespace
}  // namespace gpuplan::simulate

namespace gpuplan::simulate {
namespace {

// Issue 11, item 5: slo-guard is not an autoscale setting, so the report
// says what the export cannot express and names the nearest exportable rule
// set that ran, with its simulated SLO and cost.
TEST(AutoscaleExport, ReportRecommendsTheNearestExportableRuleSetWithItsSlo) {
  const auto cat = catalog::Catalog::load_embedded();
  ASSERT_TRUE(cat);
  auto s = parse_scenario_file(std::string(GPUPLAN_SOURCE_DIR) + "/examples/sim-serve-conv.yaml");
  ASSERT_TRUE(s) << s.error().to_string();
  auto r = run_scenario(*s, cat->get(), RunOptions{});
  ASSERT_TRUE(r) << r.error().to_string();
  std::string note;
  for (const std::string& n : r->notes)
    if (n.rfind("export: slo-guard is not expressible", 0) == 0) note = n;
  ASSERT_FALSE(note.empty());
  EXPECT_NE(note.find("SloGuardDeficitVms"), std::string::npos) << note;
  // The recommended set is the cheapest exportable one meeting the target.
  const PolicyRow* best = nullptr;
  for (const PolicyRow& p : r->policies)
    if ((p.policy == "azure-autoscale" || p.policy == "slo-guard-autoscale") &&
        *p.slo_attainment >= 0.99 && (!best || p.cost_usd < best->cost_usd))
      best = &p;
  ASSERT_NE(best, nullptr);
  EXPECT_NE(note.find("Nearest exportable rule set: " + best->policy + " (" +
                      strings::fixed(*best->slo_attainment * 100, 2) + " % SLO at " +
                      strings::fixed(best->cost_usd, 2) + " USD, meets"),
            std::string::npos)
      << note;
}

}  // namespace
}  // namespace gpuplan::simulate
