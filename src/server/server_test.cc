#include "server/server.h"

#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "cost/cost.h"
#include "deploy/deploy.h"
#include "estimate/estimate.h"
#include "plan/plan.h"
#include "server/web_files.h"
#include "simulate/scenario.h"
#include "simulate/simulate.h"
#include "workload/workload.h"

namespace gpuplan::server {
namespace {

class ServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto cat = catalog::Catalog::load_embedded();
    ASSERT_TRUE(cat) << cat.error().to_string();
    catalog_ = cat->release();
    auto rates = cost::Rates::load_embedded();
    ASSERT_TRUE(rates) << rates.error().to_string();
    rates_ = new cost::Rates(std::move(*rates));
  }
  static Response call(const std::string& method, const std::string& path,
                       std::map<std::string, std::string> params = {}, std::string body = "") {
    return handle(*catalog_, *rates_, Request{method, path, std::move(params), std::move(body)});
  }
  static std::string example(const std::string& name) {
    auto r = call("GET", "/api/examples");
    for (const auto& e : nlohmann::json::parse(r.body))
      if (e["name"] == name) return e["yaml"];
    return "";
  }
  static inline catalog::Catalog* catalog_ = nullptr;
  static inline cost::Rates* rates_ = nullptr;
};

TEST_F(ServerTest, HealthAndPage) {
  auto h = call("GET", "/api/health");
  EXPECT_EQ(h.status, 200);
  EXPECT_EQ(nlohmann::json::parse(h.body)["status"], "ok");
  auto page = call("GET", "/");
  EXPECT_EQ(page.status, 200);
  EXPECT_NE(page.content_type.find("text/html"), std::string::npos);
  EXPECT_NE(page.body.find("/static/app.js"), std::string::npos);
  const std::string app = call("GET", "/static/app.js").body;
  for (const char* route : {"/api/plan?", "/api/cost?", "/api/estimate?", "/api/simulate?",
                            "/api/prices?", "/api/examples", "/api/sizes"})
    EXPECT_NE(app.find(route), std::string::npos) << route;
}

// The page's scripts are embedded; Chart.js is read from disk when the server
// starts (web_files.h). Without it /static/chart.js is a 404 saying where the
// server looked and what to install, which the page shows (app.js), and
// /api/health says so too.
TEST_F(ServerTest, StaticFilesAndChartJsFoundOrExplained) {
  for (const char* name : {"app.js", "charts.js", "style.css"}) {
    auto r = call("GET", std::string("/static/") + name);
    EXPECT_EQ(r.status, 200) << name;
    EXPECT_FALSE(r.body.empty()) << name;
  }
  EXPECT_NE(call("GET", "/static/app.js").content_type.find("javascript"), std::string::npos);
  EXPECT_EQ(call("GET", "/static/nope.js").status, 404);
  EXPECT_NE(call("GET", "/").body.find("/static/chart.js"), std::string::npos);
  EXPECT_NE(call("GET", "/static/app.js").body.find("Charts are off"), std::string::npos);

  const std::string dir = ::testing::TempDir() + "/gpuplan_web_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir + "/empty");
  std::filesystem::create_directories(dir + "/lib");
  std::ofstream(dir + "/lib/chart.min.js") << "/* Chart.js test double */";

  const WebAssets found = WebAssets::load({dir + "/empty", dir + "/lib"});
  EXPECT_EQ(found.chart_js_path, dir + "/lib/chart.min.js");
  auto chart = handle(*catalog_, *rates_, Request{"GET", "/static/chart.js", {}, ""}, &found);
  EXPECT_EQ(chart.status, 200);
  EXPECT_EQ(chart.body, "/* Chart.js test double */");
  auto health = nlohmann::json::parse(
      handle(*catalog_, *rates_, Request{"GET", "/api/health", {}, ""}, &found).body);
  EXPECT_EQ(health["chart_js"], dir + "/lib/chart.min.js");

  const WebAssets missing = WebAssets::load({dir + "/empty"});
  auto none = handle(*catalog_, *rates_, Request{"GET", "/static/chart.js", {}, ""}, &missing);
  EXPECT_EQ(none.status, 404);
  const std::string text = nlohmann::json::parse(none.body)["error"]["message"];
  EXPECT_NE(text.find(dir + "/empty/chart.min.js"), std::string::npos) << text;
  EXPECT_NE(text.find("libjs-chart.js"), std::string::npos) << text;
  health = nlohmann::json::parse(
      handle(*catalog_, *rates_, Request{"GET", "/api/health", {}, ""}, &missing).body);
  EXPECT_TRUE(health["chart_js"].is_null());
  EXPECT_EQ(health["chart_js_error"], text);
  std::filesystem::remove_all(dir);
}

// The installed layout: PREFIX/bin/gpuplan finds PREFIX/share/gpuplan/web.
TEST(WebFiles, SearchOrderFromTheBinary) {
  ::unsetenv("GPUPLAN_WEB_DIR");
  auto dirs = web_dirs("/opt/gp/bin/gpuplan");
  ASSERT_GE(dirs.size(), 2u);
  EXPECT_EQ(dirs.front(), std::filesystem::path("/opt/gp/share/gpuplan/web"));
  EXPECT_EQ(dirs.back(), std::filesystem::path(kDebianChartJsDir));
  ::setenv("GPUPLAN_WEB_DIR", "/x/web", 1);
  EXPECT_EQ(web_dirs("/opt/gp/bin/gpuplan"), std::vector<std::filesystem::path>{"/x/web"});
  ::unsetenv("GPUPLAN_WEB_DIR");
}

TEST_F(ServerTest, PricesByRegionMatchTheCatalog) {
  auto r = call("GET", "/api/prices", {{"size", "NC40ads_H100_v5"}});
  ASSERT_EQ(r.status, 200) << r.body;
  auto j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j["size"], "Standard_NC40ads_H100_v5");
  EXPECT_EQ(j["os"], "linux");
  const auto regions = catalog_->regions_for("Standard_NC40ads_H100_v5");
  ASSERT_EQ(j["regions"].size(), regions.size());
  for (const auto& row : j["regions"]) {
    for (catalog::Pricing p : catalog::kAllPricing) {
      const catalog::Offer* o = catalog_->offer(
          "Standard_NC40ads_H100_v5", row["region"].get<std::string>(), catalog::Os::kLinux, p);
      const auto& got = row["prices"][std::string(catalog::to_string(p))];
      if (o == nullptr || !o->usd_per_hour) {
        EXPECT_TRUE(got.is_null());
        continue;
      }
      EXPECT_DOUBLE_EQ(got["usd_per_hour"].get<double>(), *o->usd_per_hour);
      EXPECT_EQ(got["source"], o->source);
      EXPECT_EQ(got["as_of"], o->as_of);
    }
  }
  auto bad = call("GET", "/api/prices", {{"size", "NC40ads_H100_v6"}});
  EXPECT_GE(bad.status, 400);
  EXPECT_EQ(nlohmann::json::parse(bad.body)["error"]["field"], "size");
  EXPECT_EQ(call("GET", "/api/prices").status, 400);
  EXPECT_EQ(call("GET", "/api/prices", {{"size", "NC40ads_H100_v5"}, {"os", "beos"}}).status, 400);
}

TEST_F(ServerTest, SimulateTimelineOnRequest) {
  const std::string serving =
      "kind: serving\nvm: {size: Standard_NC24ads_A100_v4, region: eastus}\n"
      "model: llama-3.1-8b\nfleet: {timeline_seconds: 300}\n"
      "demand: {synthetic: {rate_rps: 2, duration_hours: 1}}\n";
  auto plain = nlohmann::json::parse(call("POST", "/api/simulate", {}, serving).body);
  EXPECT_FALSE(plain.contains("timeline"));
  auto r = call("POST", "/api/simulate", {{"timeline", "true"}, {"policy", "hpa"}}, serving);
  ASSERT_EQ(r.status, 200) << r.body;
  auto j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j["timeline"]["demand_unit"], "requests/s");
  const auto& points = j["timeline"]["points"];
  ASSERT_EQ(points.size(), 13u);  // one per 300 s of the hour, and one as the last request ends
  EXPECT_DOUBLE_EQ(points[11]["t_hours"].get<double>(), 1.0);
  for (const auto& p : points) {
    EXPECT_EQ(p["policy"], "hpa");
    EXPECT_TRUE(p.contains("ttft_max_ms"));
  }
  EXPECT_EQ(call("POST", "/api/simulate", {{"timeline", "yes"}}, serving).status, 400);
}

// Where no policy meets the target the CLI replays fixed fleets to name
// the one that does; the server's work caps count the policies' replays
// only, so it does not search and says where to get the answer.
TEST_F(ServerTest, SimulateDoesNotSearchForAFixedFleet) {
  const std::string serving =
      "kind: serving\nvm: {size: Standard_NC40ads_H100_v5, region: eastus}\n"
      "model: llama-3.1-8b\nslo: {ttft_ms: 1000, tpot_ms: 50}\n"
      "fleet: {startup_seconds: 600, min_replicas: 1, initial_replicas: 1, max_replicas: 8}\n"
      "demand: {synthetic: {rate_rps: 3, duration_hours: 0.5, input_tokens: {mean: 2000, "
      "stddev: 500, min: 100, max: 4000}, output_tokens: {mean: 100, stddev: 50, min: 5, max: "
      "400}, bursts: [{start_hour: 0.02, duration_hours: 0.1, multiplier: 8}]}}\n";
  auto r = call("POST", "/api/simulate", {}, serving);
  ASSERT_EQ(r.status, 200) << r.body;
  auto j = nlohmann::json::parse(r.body);
  std::string fixed;
  for (const auto& n : j["notes"])
    if (n.get<std::string>().rfind("fixed fleet:", 0) == 0) fixed = n.get<std::string>();
  EXPECT_NE(fixed.find("not searched here"), std::string::npos) << fixed;
  EXPECT_NE(fixed.find("`gpuplan simulate` names"), std::string::npos) << fixed;
}

TEST_F(ServerTest, ExamplesOfBothKindsRunOnTheServer) {
  auto j = nlohmann::json::parse(call("GET", "/api/examples").body);
  int scenarios = 0;
  for (const auto& e : j) {
    ASSERT_TRUE(e["kind"] == "workload" || e["kind"] == "scenario") << e["name"];
    if (e["kind"] != "scenario") continue;
    ++scenarios;
    // The page offers it: the server must accept it (generated demand, under the caps).
    auto s = simulate::parse_scenario_string(e["yaml"].get<std::string>(), "request body");
    ASSERT_TRUE(s) << s.error().to_string();
    EXPECT_TRUE(s->trace_files().empty()) << e["name"];
    EXPECT_LE(simulate::estimate_work(*s).requests * s->runs, 5e6) << e["name"];
    EXPECT_EQ(call("POST", "/api/simulate", {{"policy", "hpa"}}, e["yaml"]).status, 200)
        << e["name"];
  }
  EXPECT_GE(scenarios, 1);
}

TEST_F(ServerTest, SizesListTheCatalog) {
  auto r = call("GET", "/api/sizes");
  ASSERT_EQ(r.status, 200);
  auto j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j.size(), catalog_->sizes().size());
  bool h100 = false;
  for (const auto& s : j) h100 = h100 || s["size"] == "Standard_ND96isr_H100_v5";
  EXPECT_TRUE(h100);
}

TEST_F(ServerTest, EstimateMatchesTheLibrary) {
  const std::string yaml = example("finetune-llama3-8b.yaml");
  auto w = workload::parse_string(yaml, "request body");
  ASSERT_TRUE(w) << w.error().to_string();
  // Every size, as `gpuplan estimate --json`.
  auto all = call("POST", "/api/estimate", {}, yaml);
  ASSERT_EQ(all.status, 200) << all.body;
  EXPECT_EQ(
      nlohmann::json::parse(all.body),
      nlohmann::json::parse(estimate::to_json(*w, estimate::estimate_all(*w, *catalog_)).dump()));
  // One size at a count: the memory breakdown of that option.
  auto one = call("POST", "/api/estimate", {{"size", "NC40ads_H100_v5"}, {"count", "2"}}, yaml);
  ASSERT_EQ(one.status, 200) << one.body;
  auto j = nlohmann::json::parse(one.body);
  ASSERT_EQ(j["options"].size(), 1u);
  EXPECT_EQ(j["options"][0]["size"], "Standard_NC40ads_H100_v5");
  EXPECT_EQ(j["options"][0]["count"], 2);
  // Errors name the parameter; GET is refused.
  auto bad = call("POST", "/api/estimate", {{"size", "NC40ads_H100_v9"}}, yaml);
  EXPECT_EQ(bad.status, 404);
  EXPECT_EQ(nlohmann::json::parse(bad.body)["error"]["field"], "size");
  EXPECT_EQ(call("POST", "/api/estimate", {{"count", "2"}}, yaml).status, 400);
  EXPECT_EQ(
      call("POST", "/api/estimate", {{"size", "NC40ads_H100_v5"}, {"count", "0"}}, yaml).status,
      400);
  EXPECT_EQ(call("GET", "/api/estimate").status, 405);
  // A service by its trace alone: the server opens no file a request names,
  // and says so (it sized such a service at 0 req/s).
  const std::string traced =
      "kind: infer\nmodel: llama-3.1-8b\nserving:\n  trace: /etc/passwd\n"
      "  input_tokens: 1000\n  output_tokens: 200\n";
  for (const char* route : {"/api/estimate", "/api/plan"}) {
    auto no_rate = call("POST", route, {}, traced);
    EXPECT_EQ(no_rate.status, 400) << route;
    EXPECT_EQ(nlohmann::json::parse(no_rate.body)["error"]["field"], "serving.request_rate")
        << no_rate.body;
  }
  auto yaml_error = call("POST", "/api/estimate", {}, "kind: train\nmodle: x\n");
  EXPECT_EQ(yaml_error.status, 400);
  EXPECT_EQ(nlohmann::json::parse(yaml_error.body)["error"]["line"], 2);
  // A job past the bound make_plan applies (8.7e15 h on a T4): the same
  // answer as `estimate` and /api/plan, not an estimate no plan may hold.
  const std::string huge =
      "kind: batch\ndata: {items: 1e15}\nbatch: {seconds_per_item: 604800, reference_gpu: T4}\n";
  for (const char* route : {"/api/estimate", "/api/plan"}) {
    auto past = call("POST", route, {}, huge);
    EXPECT_EQ(past.status, 400) << route << ": " << past.body.substr(0, 200);
    const auto e = nlohmann::json::parse(past.body)["error"];
    EXPECT_EQ(e["field"], "data.items") << past.body;
    EXPECT_NE(e["message"].get<std::string>().find("a plan may hold"), std::string::npos)
        << past.body;
  }
}

TEST_F(ServerTest, CostMatchesTheLibrary) {
  auto r =
      call("GET", "/api/cost",
           {{"size", "Standard_NC40ads_H100_v5"}, {"region", "eastus"}, {"utilization", "0.5"}});
  ASSERT_EQ(r.status, 200) << r.body;
  const catalog::VmSize* size = catalog_->find_size("Standard_NC40ads_H100_v5");
  ASSERT_NE(size, nullptr);
  auto sc = cost::cost_size(*catalog_, *rates_, *size, "eastus", catalog::Os::kLinux, false,
                            std::nullopt, 0.5, 1);
  ASSERT_TRUE(sc) << sc.error().to_string();
  EXPECT_EQ(nlohmann::json::parse(r.body), nlohmann::json::parse(cost::to_json(*sc).dump()));
  auto win = call("GET", "/api/cost",
                  {{"size", "NC40ads_H100_v5"},
                   {"region", "eastus"},
                   {"os", "windows"},
                   {"hybrid_benefit", "true"},
                   {"hours", "10"},
                   {"count", "2"}});
  ASSERT_EQ(win.status, 200) << win.body;
  auto w = nlohmann::json::parse(win.body);
  EXPECT_EQ(w["os"], "windows");
  EXPECT_EQ(w["hybrid_benefit"], true);
  EXPECT_EQ(w["count"], 2);
  for (const auto& [params, field] :
       std::vector<std::pair<std::map<std::string, std::string>, std::string>>{
           {{{"region", "eastus"}}, "size"},
           {{{"size", "NC40ads_H100_v5"}}, "region"},
           {{{"size", "NC40ads_H100_v5"}, {"region", "eastus"}, {"utilization", "2"}},
            "utilization"},
           {{{"size", "NC40ads_H100_v5"}, {"region", "eastus"}, {"os", "mac"}}, "os"},
           {{{"size", "NC40ads_H100_v5"}, {"region", "eastus"}, {"hybrid_benefit", "yes"}},
            "hybrid_benefit"},
           // Hybrid Benefit is a Windows licence (issue 15, item 7).
           {{{"size", "NC40ads_H100_v5"}, {"region", "eastus"}, {"hybrid_benefit", "true"}},
            "hybrid_benefit"},
           {{{"size", "NC40ads_H100_v5"}, {"region", "eastus"}, {"hours", "1e300"}}, "hours"}}) {
    auto e = call("GET", "/api/cost", params);
    EXPECT_EQ(e.status, 400) << field;
    EXPECT_EQ(nlohmann::json::parse(e.body)["error"]["field"], field);
  }
}

TEST_F(ServerTest, StackAnswersAndRefusals) {
  auto ok = call("GET", "/api/stack", {{"size", "NC40ads_H100_v5"}});
  ASSERT_EQ(ok.status, 200) << ok.body;
  auto j = nlohmann::json::parse(ok.body);
  EXPECT_EQ(j["refused"], false);
  EXPECT_EQ(j["size"], "Standard_NC40ads_H100_v5");
  auto lib = deploy::stack_for_size(*catalog_, "NC40ads_H100_v5", catalog::Os::kLinux, "", "");
  ASSERT_TRUE(lib) << lib.error().to_string();
  EXPECT_EQ(j, nlohmann::json::parse(lib->to_json().dump()));
  // CUDA 13 on a V100 cannot work: an answer, not an error.
  auto no = call("GET", "/api/stack", {{"size", "NC6s_v3"}, {"cuda", "13.0"}});
  ASSERT_EQ(no.status, 200) << no.body;
  auto n = nlohmann::json::parse(no.body);
  EXPECT_EQ(n["refused"], true);
  EXPECT_NE(n["reason"].get<std::string>().find("Volta"), std::string::npos);
  auto bad = call("GET", "/api/stack", {{"size", "NC6s_v3"}, {"pytorch", "2"}});
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(nlohmann::json::parse(bad.body)["error"]["field"], "pytorch");
  EXPECT_EQ(call("GET", "/api/stack").status, 400);
  EXPECT_EQ(call("GET", "/api/stack", {{"size", "NC6s_v9"}}).status, 404);
}

TEST_F(ServerTest, SimulatesGeneratedScenariosOnly) {
  const std::string reserve =
      "kind: reserve\nvm: {size: Standard_NC24ads_A100_v4, region: eastus}\n"
      "demand: {synthetic: {base_vms: 3, weeks: 6, growth_per_week: 0.1}}\n";
  auto r = call("POST", "/api/simulate", {{"runs", "2"}}, reserve);
  ASSERT_EQ(r.status, 200) << r.body;
  auto j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j["kind"], "reserve");
  EXPECT_EQ(j["runs"], 2);
  EXPECT_EQ(j["policies"].back()["policy"], "optimal");
  auto s = simulate::parse_scenario_string(reserve, "request body");
  ASSERT_TRUE(s) << s.error().to_string();
  simulate::RunOptions o;
  o.runs = 2;
  auto lib = simulate::run_scenario(*s, catalog_, o);
  ASSERT_TRUE(lib) << lib.error().to_string();
  EXPECT_EQ(j, nlohmann::json::parse(simulate::to_json(*lib).dump()));
  // A scenario naming a file is refused: the server reads no path a request gives.
  auto files = call("POST", "/api/simulate", {},
                    "kind: reserve\nprices: {on_demand_usd_per_hour: 3, reserved_usd_per_hour: 2}\n"
                    "demand: {alibaba_pods: /etc/passwd}\n");
  EXPECT_EQ(files.status, 400);
  EXPECT_EQ(nlohmann::json::parse(files.body)["error"]["field"], "demand");
  for (const char* key : {"azure_trace", "request_trace"}) {
    auto serving = call("POST", "/api/simulate", {},
                        std::string("kind: serving\nvm: {size: Standard_NC40ads_H100_v5, region: "
                                    "eastus}\nmodel: llama-3.1-8b\ndemand: {") +
                            key + ": /etc/passwd}\n");
    EXPECT_EQ(serving.status, 400) << key;
    EXPECT_EQ(nlohmann::json::parse(serving.body)["error"]["field"], "demand") << key;
  }
  auto spot = call("POST", "/api/simulate", {},
                   "kind: deadline\nprices: {on_demand_usd_per_hour: 3, spot_ratio: 0.3}\n"
                   "job: {work_hours: 10, deadline_hours: 20}\nspot: {traces: [x.json]}\n");
  EXPECT_EQ(spot.status, 400);
  EXPECT_EQ(call("POST", "/api/simulate", {{"runs", "101"}}, reserve).status, 400);
  auto huge =
      call("POST", "/api/simulate", {},
           "kind: serving\nvm: {size: Standard_NC40ads_H100_v5, region: eastus}\n"
           "model: llama-3.1-8b\ndemand: {synthetic: {rate_rps: 1000, duration_hours: 24}}\n");
  EXPECT_EQ(huge.status, 400);
  // Few requests, but a fleet the router would scan for each: 180,000 x
  // 100,000 took 21 s on one core; refused, naming the fleet's cap.
  auto wide = call("POST", "/api/simulate", {{"policy", "hpa"}},
                   "kind: serving\nprices: {on_demand_usd_per_hour: 1}\nreplica: "
                   "{prefill_tokens_per_s: 9000, step_base_ms: 11, step_per_seq_ms: 0.1, "
                   "max_batch: 100}\ndemand: {synthetic: {rate_rps: 50, duration_hours: 1}}\n"
                   "fleet: {min_replicas: 100000, max_replicas: 100000}\n");
  EXPECT_EQ(wide.status, 400);
  EXPECT_EQ(nlohmann::json::parse(wide.body)["error"]["field"], "fleet.max_replicas");
  auto model = call("POST", "/api/simulate", {{"runs", "3"}},
                    "kind: deadline\nprices: {on_demand_usd_per_hour: 3, spot_ratio: 0.3}\n"
                    "job: {work_hours: 10, deadline_hours: 20}\n"
                    "spot: {model: {mean_up_hours: 5, mean_down_hours: 1, gap_seconds: 600}}\n");
  ASSERT_EQ(model.status, 200) << model.body;
  EXPECT_EQ(nlohmann::json::parse(model.body)["policies"].back()["deadline_met_fraction"], 1.0);
  EXPECT_EQ(call("POST", "/api/simulate", {{"runs", "100"}},
                 "kind: deadline\nprices: {on_demand_usd_per_hour: 3, spot_ratio: 0.3}\n"
                 "job: {work_hours: 100, deadline_hours: 2000}\n"
                 "spot: {model: {gap_seconds: 60}}\n")
                .status,
            400);
  EXPECT_EQ(call("GET", "/api/simulate").status, 405);
}

// Issue 15, item 2a: requests that used to abort the process (rate 1e-12 over
// 1e12 hours; a sub-microsecond deadline grid: SIGFPE) or to allocate without
// bound (a 1-second grid: 9.7 GB; bursts and reserve growth not counted) are
// 400 answers naming the field, decided before anything runs.
// Work within every cap that still holds a worker too long (a 100,000-VM
// fleet walked at every decision once took 52 s): the request's deadline
// frees the worker with a 504 that says where to run it instead.
TEST_F(ServerTest, SimulatePastItsDeadlineIsA504ThatSaysWhereToRunIt) {
  const std::string body = example("sim-serve-day.yaml");
  ASSERT_FALSE(body.empty());
  auto r = handle(*catalog_, *rates_, Request{"POST", "/api/simulate", {}, body}, nullptr,
                  Deadline::after(0));
  ASSERT_EQ(r.status, 504) << r.body;
  const std::string m = nlohmann::json::parse(r.body)["error"].value("message", "");
  EXPECT_NE(m.find("the server gives a request 0 s of a worker"), std::string::npos) << m;
  EXPECT_NE(m.find("run it with `gpuplan simulate` instead"), std::string::npos) << m;
  // The same request with its client gone stops too; with time, it runs.
  std::atomic<bool> gone{true};
  auto left = handle(*catalog_, *rates_, Request{"POST", "/api/simulate", {}, body}, nullptr,
                     Deadline::after(3600, &gone));
  EXPECT_EQ(left.status, 504) << left.body;
  gone = false;
  auto ran = handle(*catalog_, *rates_, Request{"POST", "/api/simulate", {}, body}, nullptr,
                    Deadline::after(3600, &gone));
  EXPECT_EQ(ran.status, 200) << ran.body;
}

TEST_F(ServerTest, SimulateRefusesUnboundedWorkBeforeRunning) {
  const std::string serving_head =
      "kind: serving\nvm: {size: Standard_NC40ads_H100_v5, region: eastus}\nmodel: llama-3.1-8b\n";
  auto field_of = [](const Response& r) {
    return nlohmann::json::parse(r.body)["error"].value("field", std::string());
  };
  auto tiny_rate =
      call("POST", "/api/simulate", {},
           serving_head + "demand: {synthetic: {rate_rps: 1e-12, duration_hours: 1e12}}\n");
  EXPECT_EQ(tiny_rate.status, 400) << tiny_rate.body;
  EXPECT_EQ(field_of(tiny_rate), "demand.synthetic.rate_rps");
  auto long_run =
      call("POST", "/api/simulate", {},
           serving_head + "demand: {synthetic: {rate_rps: 0.001, duration_hours: 1e12}}\n");
  EXPECT_EQ(long_run.status, 400);
  EXPECT_EQ(field_of(long_run), "demand.synthetic.duration_hours");
  // A modest base rate whose bursts multiply it past the cap.
  auto bursts = call("POST", "/api/simulate", {},
                     serving_head +
                         "demand: {synthetic: {rate_rps: 1, duration_hours: 2, bursts: ["
                         "{start_hour: 0, duration_hours: 2, multiplier: 1000}]}}\n");
  EXPECT_EQ(bursts.status, 400) << bursts.body;
  EXPECT_EQ(field_of(bursts), "demand.synthetic");
  // Few arrivals, but the generator thins them from its bound, the rate's
  // largest factors together: 101x growth a week for two weeks and a 100x
  // burst early on drew 3e9 candidates a replay (minutes a request).
  auto thinning = call("POST", "/api/simulate", {},
                       serving_head +
                           "demand:\n  synthetic: {rate_rps: 0.002, duration_hours: 346, "
                           "growth_per_week: 100, bursts: [{start_hour: 100, duration_hours: 25, "
                           "multiplier: 100}]}\n  time_scale: 1e6\n");
  EXPECT_EQ(thinning.status, 400) << thinning.body;
  EXPECT_EQ(field_of(thinning), "demand.synthetic");
  EXPECT_NE(thinning.body.find("arrival candidates"), std::string::npos) << thinning.body;
  const std::string deadline_head =
      "kind: deadline\nprices: {on_demand_usd_per_hour: 3, spot_ratio: 0.3}\n"
      "job: {work_hours: 10, deadline_hours: 20}\n";
  // markov-lookahead re-solves its programme every 12 simulated hours from
  // where it is to the deadline: a 67-day window on 10,000-s steps solved
  // ~67 programmes a run (20 runs: 24 s of a worker), counted as one.
  const std::string resolves =
      "kind: deadline\nprices: {on_demand_usd_per_hour: 3.06, spot_ratio: 1}\n"
      "job: {work_hours: 1289.7, deadline_hours: 1612.33, changeover_hours: 0.2, "
      "eviction_notice_seconds: 3600}\n"
      "spot: {model: {gap_seconds: 10001.1, hours: 1612.33, mean_up_hours: 4.55}}\n";
  auto resolving = call("POST", "/api/simulate", {{"runs", "20"}}, resolves);
  EXPECT_EQ(resolving.status, 400) << resolving.body;
  EXPECT_EQ(field_of(resolving), "spot.model.gap_seconds");
  EXPECT_NE(resolving.body.find("markov-lookahead's re-solves"), std::string::npos);
  auto resolves_parsed = simulate::parse_scenario_string(resolves, "body");
  ASSERT_TRUE(resolves_parsed) << resolves_parsed.error().message;
  const double with = simulate::estimate_work(*resolves_parsed).lookahead_states;
  EXPECT_GT(with * 20, 1e9);
  resolves_parsed->policies = {"greedy-spot"};  // ?policy=greedy-spot: no programme to solve
  EXPECT_EQ(simulate::estimate_work(*resolves_parsed).lookahead_states, 0);
  auto sub_micro =
      call("POST", "/api/simulate", {}, deadline_head + "spot: {model: {gap_seconds: 1e-7}}\n");
  EXPECT_EQ(sub_micro.status, 400);
  EXPECT_EQ(field_of(sub_micro), "spot.model.gap_seconds");
  auto one_second =
      call("POST", "/api/simulate", {}, deadline_head + "spot: {model: {gap_seconds: 1}}\n");
  EXPECT_EQ(one_second.status, 400) << one_second.body;
  EXPECT_EQ(field_of(one_second), "spot.model.gap_seconds");
  auto reserve = call("POST", "/api/simulate", {},
                      "kind: reserve\nvm: {size: Standard_NC24ads_A100_v4, region: eastus}\n"
                      "demand: {synthetic: {base_vms: 1000, weeks: 52, growth_per_week: 10}}\n");
  EXPECT_EQ(reserve.status, 400) << reserve.body;
  EXPECT_EQ(field_of(reserve), "demand.synthetic.growth_per_week");
  auto big_fleet = call("POST", "/api/simulate", {{"runs", "100"}},
                        "kind: reserve\nvm: {size: Standard_NC24ads_A100_v4, region: eastus}\n"
                        "demand: {synthetic: {base_vms: 50000, weeks: 52}}\n");
  EXPECT_EQ(big_fleet.status, 400) << big_fleet.body;
  // Work that no request count shows: a year of decisions every second at
  // almost no traffic (130 s before the cap), a timeline row a second (a
  // 2.1 GB reply), a 10-year spot trace at a 1 s gap and hourly reserve
  // reviews of 3 years' history (212 s and 42 s).
  auto ticks = call("POST", "/api/simulate", {},
                    serving_head +
                        "demand: {synthetic: {rate_rps: 0.000001, duration_hours: 8760}}\n"
                        "fleet: {interval_seconds: 1, timeline_seconds: 86400}\n");
  EXPECT_EQ(ticks.status, 400) << ticks.body;
  EXPECT_EQ(field_of(ticks), "fleet.interval_seconds");
  auto timeline = call("POST", "/api/simulate", {{"timeline", "true"}},
                       serving_head +
                           "demand: {synthetic: {rate_rps: 0.05, duration_hours: 277}}\n"
                           "fleet: {interval_seconds: 60, timeline_seconds: 1}\n");
  EXPECT_EQ(timeline.status, 400) << timeline.body;
  EXPECT_EQ(field_of(timeline), "fleet.timeline_seconds");
  auto spot_trace = call("POST", "/api/simulate", {{"runs", "100"}},
                         "kind: deadline\nprices: {on_demand_usd_per_hour: 3, spot_ratio: 0.3}\n"
                         "job: {work_hours: 0.0999, deadline_hours: 0.1, changeover_hours: 0}\n"
                         "spot: {model: {gap_seconds: 1, hours: 87600}}\n");
  EXPECT_EQ(spot_trace.status, 400) << spot_trace.body;
  // The scenario itself refuses a trace of 315 million steps (the CLI too).
  EXPECT_EQ(field_of(spot_trace), "spot.model.hours");
  auto reviews = call("POST", "/api/simulate", {},
                      "kind: reserve\nvm: {size: Standard_NC24ads_A100_v4, region: eastus}\n"
                      "reservation: {term: 3y, review_hours: 1, lookback_hours: 26280, "
                      "projection_hours: 26280}\n"
                      "demand: {synthetic: {base_vms: 1, weeks: 156}}\n");
  EXPECT_EQ(reviews.status, 400) << reviews.body;
  EXPECT_EQ(field_of(reviews), "reservation.review_hours");
  // ?policy= replaces the scenario's policies, and the caps count those: a
  // timeline that one policy keeps under the cap and all six do not.
  auto all = call("POST", "/api/simulate", {{"timeline", "true"}, {"policy", "all"}},
                  serving_head + "policies: static-peak\n" +
                      "demand: {synthetic: {rate_rps: 0.05, duration_hours: 5.6}}\n"
                      "fleet: {interval_seconds: 60, timeline_seconds: 1}\n");
  EXPECT_EQ(all.status, 400) << all.body.substr(0, 300);
  EXPECT_EQ(field_of(all), "fleet.timeline_seconds");
  // time_scale stretches the replay's clock, and the caps count its span: an
  // hour at 1e-4 is 10,000 hours of decisions (the server counted one).
  auto stretched = call("POST", "/api/simulate", {},
                        serving_head +
                            "demand: {synthetic: {rate_rps: 0.001, duration_hours: 1}, "
                            "time_scale: 0.0001}\n"
                            "fleet: {interval_seconds: 1, timeline_seconds: 86400}\n");
  EXPECT_EQ(stretched.status, 400) << stretched.body;
  EXPECT_EQ(field_of(stretched), "fleet.interval_seconds");
  // A backlog drains after the last arrival, which the caps do not count:
  // half an hour of 10x overload on two VMs whose clients wait for ever drains
  // for 45 days of one-second decisions (a longer one held a worker 14 s under one policy,
  // 100 s under all). The replay stops where the caps would, naming the
  // queue timeout (without the stop it ran to the end: a 200).
  auto drain =
      call("POST", "/api/simulate", {{"policy", "hpa"}},
           "kind: serving\nvm: {size: Standard_ND96asr_v4, region: eastus}\n"
           "model: llama-3.1-405b\n"
           "replica: {prefill_tokens_per_s: 10000, prefill_fixed_ms: 68, step_base_ms: 330, "
           "step_per_seq_ms: 86, max_batch: 1}\n"
           "slo: {ttft_ms: 124, tpot_ms: 446, attainment: 0.95}\n"
           "demand: {synthetic: {rate_rps: 15, duration_hours: 0.5, "
           "input_tokens: {mean: 3738, stddev: 0}, output_tokens: {mean: 700, stddev: 0}}}\n"
           "fleet: {min_replicas: 1, max_replicas: 2, interval_seconds: 1, "
           "queue_timeout_seconds: 0}\n");
  EXPECT_EQ(drain.status, 400) << drain.body.substr(0, 300);
  EXPECT_EQ(field_of(drain), "fleet.queue_timeout_seconds");
  EXPECT_NE(drain.body.find("after the last arrival"), std::string::npos) << drain.body;
  // The estimate is an upper bound of the real work: a scenario under the caps
  // simulates no more requests than estimated.
  const std::string ok =
      serving_head +
      "demand: {synthetic: {rate_rps: 2, duration_hours: 0.5, diurnal_amplitude: 0.5, "
      "growth_per_week: 0.5, bursts: [{start_hour: 0.1, duration_hours: 0.1, "
      "multiplier: 3}]}}\n";
  auto parsed = simulate::parse_scenario_string(ok, "request body");
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  const double bound = simulate::estimate_work(*parsed).requests;
  const double mean = 2 * 3600 * 0.5 * (1 + 0.2);  // rough mean with the burst
  EXPECT_GT(bound, mean);
  EXPECT_LT(bound, 3 * mean);
  auto ran = call("POST", "/api/simulate", {}, ok);
  ASSERT_EQ(ran.status, 200) << ran.body;
}

// Bytes that are not UTF-8 in a path or a query are the client's error,
// echoed back as U+FFFD: before, writing the error's JSON threw and the
// answer was a 500.
TEST_F(ServerTest, NonUtf8InThePathOrQueryIsTheClientsError) {
  for (const Response& r : {call("GET", "/api/cost", {{"size", "\xFF"}, {"region", "eastus"}}),
                            call("GET", "/\xFF"), call("GET", "/api/prices", {{"size", "\xFE"}})}) {
    EXPECT_GE(r.status, 400) << r.body;
    EXPECT_LT(r.status, 500) << r.body;
    const auto j = nlohmann::json::parse(r.body);
    EXPECT_TRUE(j.contains("error")) << r.body;
  }
}

// A route asked with a method it does not take is 405 with Allow; what a
// request's body names and the server lacks is the client's error, 400.
TEST_F(ServerTest, WrongMethodsAre405AndUnknownNamesInABodyAre400) {
  const Response put = call("PUT", "/api/sizes");
  EXPECT_EQ(put.status, 405);
  EXPECT_EQ(put.allow, "GET, HEAD");
  const Response get_plan = call("GET", "/api/plan");
  EXPECT_EQ(get_plan.status, 405);
  EXPECT_EQ(get_plan.allow, "POST");
  EXPECT_EQ(call("DELETE", "/nowhere").status, 404);
  // Every route answers a method it does not take with the ones it does.
  for (const char* path : {"/", "/index.html", "/static/chart.umd.js", "/api/health", "/api/sizes",
                           "/api/prices", "/api/examples", "/api/cost", "/api/stack"}) {
    const Response r = call("POST", path);
    EXPECT_EQ(r.status, 405) << path;
    EXPECT_EQ(r.allow, "GET, HEAD") << path;
  }
  for (const char* path : {"/api/estimate", "/api/simulate", "/api/plan"}) {
    const Response r = call("PUT", path);
    EXPECT_EQ(r.status, 405) << path;
    EXPECT_EQ(r.allow, "POST") << path;
    EXPECT_NE(r.body.find("use POST"), std::string::npos) << r.body;
  }
  // A path that only begins like a route is not one.
  EXPECT_EQ(call("GET", "/api/sizesx").status, 404);
  EXPECT_EQ(call("GET", "/static").status, 404);
  const Response model = call("POST", "/api/plan", {}, "kind: train\nmodel: nosuchmodel\n");
  EXPECT_EQ(model.status, 400) << model.body;
  EXPECT_NE(model.body.find("unknown model"), std::string::npos) << model.body;
}

TEST_F(ServerTest, PlanMatchesTheLibrary) {
  std::string yaml = example("finetune-llama3-8b.yaml");
  ASSERT_FALSE(yaml.empty());
  auto r = call("POST", "/api/plan", {{"objective", "time"}, {"top", "3"}}, yaml);
  ASSERT_EQ(r.status, 200) << r.body;
  auto j = nlohmann::json::parse(r.body);
  ASSERT_EQ(j["options"].size(), 3u);
  // The route is the library call, not a second implementation.
  auto w = workload::parse_string(yaml, "request body");
  ASSERT_TRUE(w);
  plan::PlanOptions o;
  o.objective = plan::Objective::kTime;
  o.top = 3;
  auto p = plan::make_plan(*w, *catalog_, *rates_, o);
  ASSERT_TRUE(p);
  EXPECT_EQ(j, nlohmann::json::parse(plan::to_json(*p).dump()));
  // Ranked by time: hours never decrease down the list.
  EXPECT_LE(j["options"][0]["hours"].get<double>(), j["options"][1]["hours"].get<double>());
  EXPECT_LE(j["options"][1]["hours"].get<double>(), j["options"][2]["hours"].get<double>());
}

TEST_F(ServerTest, InfeasibleIsAnEmptyPlanWithReasons) {
  auto r = call("POST", "/api/plan", {}, example("infeasible-budget.yaml"));
  ASSERT_EQ(r.status, 200);
  auto j = nlohmann::json::parse(r.body);
  EXPECT_TRUE(j["options"].empty());
  EXPECT_FALSE(j["dropped"].empty());
}

TEST_F(ServerTest, BadInputIs400WithLineAndField) {
  auto r = call("POST", "/api/plan", {}, "kind: finetune\nmodle: llama3-8b\n");
  EXPECT_EQ(r.status, 400);
  auto e = nlohmann::json::parse(r.body)["error"];
  EXPECT_EQ(e["line"], 2);
  EXPECT_FALSE(e["message"].get<std::string>().empty());
  EXPECT_EQ(call("POST", "/api/plan", {{"top", "0"}}, "kind: train\n").status, 400);
  EXPECT_EQ(call("POST", "/api/plan", {{"objective", "cheap"}}, "kind: train\n").status, 400);
  EXPECT_EQ(call("GET", "/api/plan").status, 405);
  EXPECT_EQ(call("GET", "/api/nope").status, 404);
}

TEST_F(ServerTest, ServesOverLoopbackAndRefusesHugeBodies) {
  auto cat = catalog::Catalog::load_embedded();
  ASSERT_TRUE(cat);
  ServerOptions options;
  options.port = 0;
  options.limits.max_body_bytes = 4096;
  auto s = Server::create(std::move(*cat), options);
  ASSERT_TRUE(s) << s.error().to_string();
  auto port = (*s)->bind();
  ASSERT_TRUE(port) << port.error().to_string();
  std::thread t([&] { (*s)->listen(); });
  httplib::Client client("127.0.0.1", *port);
  auto health = client.Get("/api/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  auto big = client.Post("/api/plan", std::string(8192, 'x'), "application/yaml");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  (*s)->stop();
  t.join();
}

}  // namespace
}  // namespace gpuplan::server
