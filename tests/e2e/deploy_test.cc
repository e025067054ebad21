// End-to-end tests of `gpuplan stack` and `gpuplan deploy`: golden files of
// everything deploy writes for the five reference plans (NC H100 training on
// spot, multi-node ND with InfiniBand, NV A10 rendering with the GRID driver,
// Windows with Hybrid Benefit, an Arm64 ND GB200 VM), ARM template structure, secure defaults and
// refusals. shellcheck and `cloud-init schema` run on the golden files as
// ctest tests (src/deploy/CMakeLists.txt).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <sys/wait.h>
#include <yaml-cpp/yaml.h>

#include "e2e/e2e_util.h"

namespace gpuplan::e2e {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// nd_gb200_arm64 is a gpuplan.plan/2 document; the others are /1.
const char* const kCases[] = {"nc_h100_train", "nd_multinode_ib", "nv_a10_render", "win_hybrid",
                              "nd_gb200_arm64"};

// Plan paths are relative to the source tree so the generated files (which
// name the plan) are the same on every machine.
void in_source_dir() { fs::current_path(GPUPLAN_SOURCE_DIR); }

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

CliResult deploy(const std::string& plan_case, const std::string& out,
                 std::vector<std::string> extra = {"--ssh-cidr", "203.0.113.0/24"}) {
  std::vector<std::string> args = {"deploy",       "tests/data/plans/" + plan_case + ".json",
                                   "--out",        out,
                                   "--start-date", "2026-12-01"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_cli(args);
}

std::vector<std::string> files_of(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(Deploy, GoldenFilesForTheReferencePlans) {
  in_source_dir();
  for (const char* c : kCases) {
    SCOPED_TRACE(c);
    const std::string out = temp_dir() + "/out";
    const CliResult r = deploy(c, out);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(
        check_golden(std::string("deploy_") + c + "/stdout.txt", replace_all(r.out, out, "OUT")),
        "");
    for (const std::string& f : files_of(out)) {
      EXPECT_EQ(check_golden(std::string("deploy_") + c + "/" + f, read(out + "/" + f)), "") << f;
    }
    const bool windows = std::string(c) == "win_hybrid";
    const std::vector<std::string> expected =
        windows ? std::vector<std::string>{"budget.json", "deploy.sh", "setup.ps1", "template.json"}
                : std::vector<std::string>{"budget.json", "cloud-init.yaml", "deploy.sh",
                                           "template.json"};
    EXPECT_EQ(files_of(out), expected);
    struct stat info {};
    ASSERT_EQ(::stat((out + "/deploy.sh").c_str(), &info), 0);
    EXPECT_TRUE(info.st_mode & S_IXUSR);
  }
}

// ND H100 v5's documentation lists Linux images only: a Windows plan for it
// (one made before the catalog knew, or edited) is refused at the os field
// before any file is written, and cost and plan no longer offer it.
TEST(Deploy, WindowsOnALinuxOnlySizeIsRefused) {
  in_source_dir();
  const std::string out = temp_dir() + "/out";
  const CliResult r = deploy("nd_h100_windows", out);
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("options[0].os: Standard_ND96isr_H100_v5 has no Windows image"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out + "/deploy.sh"));
  const CliResult c = run_cli(
      {"cost", "Standard_ND96isr_H100_v5", "--region", "eastus", "--os", "windows", "--json"});
  ASSERT_EQ(c.code, 0) << c.err;
  const json pricing = json::parse(c.out)["pricing"];
  ASSERT_EQ(pricing.size(), 6u);
  for (const auto& row : pricing) {
    EXPECT_FALSE(row["available"].get<bool>()) << row;
    EXPECT_NE(row["missing"].get<std::string>().find("no Windows"), std::string::npos) << row;
  }
  const CliResult lin = run_cli({"cost", "Standard_ND96isr_H100_v5", "--region", "eastus"});
  EXPECT_NE(lin.out.find("$98.32"), std::string::npos) << lin.out;  // Linux unchanged
}

// ---- ARM template structure ------------------------------------------------

// A tiny evaluator for the ARM expressions the templates use in names:
// parameters('x') (its default), variables('x'), format('{0}/{1}', ...) and
// 'literals'. Enough to resolve every dependsOn to a declared resource.
std::string eval_arg(const std::string& expr, const json& t);

std::vector<std::string> split_args(const std::string& s) {
  std::vector<std::string> out;
  int depth = 0;
  bool quoted = false;
  std::string cur;
  for (char c : s) {
    if (c == '\'') quoted = !quoted;
    if (!quoted && c == '(') ++depth;
    if (!quoted && c == ')') --depth;
    if (!quoted && depth == 0 && c == ',') {
      out.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (!cur.empty()) out.push_back(cur);
  for (std::string& a : out) {
    a.erase(0, a.find_first_not_of(' '));
    a.erase(a.find_last_not_of(' ') + 1);
  }
  return out;
}

std::string eval_arg(const std::string& expr, const json& t) {
  std::smatch m;
  if (std::regex_match(expr, m, std::regex(R"('([^']*)')"))) return m[1];
  if (std::regex_match(expr, m, std::regex(R"(parameters\('([^']+)'\))"))) {
    return t["parameters"]
        .at(m[1].str())
        .value("defaultValue", json("<" + m[1].str() + ">"))
        .dump();
  }
  if (std::regex_match(expr, m, std::regex(R"(variables\('([^']+)'\))"))) {
    return t["variables"].at(m[1].str()).get<std::string>();
  }
  if (std::regex_match(expr, m, std::regex(R"(format\((.*)\))"))) {
    std::vector<std::string> args = split_args(m[1]);
    std::string f = eval_arg(args.at(0), t);
    for (size_t i = 1; i < args.size(); ++i) {
      f = replace_all(f, "{" + std::to_string(i - 1) + "}", eval_arg(args[i], t));
    }
    return f;
  }
  // guid(...) and resourceId(...): a deterministic stand-in built from the
  // evaluated arguments (a name only has to be resolvable and stable).
  if (std::regex_match(expr, m, std::regex(R"((guid|resourceId)\((.*)\))"))) {
    std::string out = m[1].str() + "(";
    for (const std::string& a : split_args(m[2])) out += eval_arg(a, t) + ";";
    return out + ")";
  }
  ADD_FAILURE() << "cannot evaluate " << expr;
  return "?";
}

// "[variables('x')]" → the name; a plain string stays as it is.
std::string eval_name(const std::string& s, const json& t) {
  if (s.size() > 2 && s.front() == '[' && s.back() == ']')
    return eval_arg(s.substr(1, s.size() - 2), t);
  return s;
}

void collect_strings(const json& j, std::vector<std::string>& out) {
  if (j.is_string()) out.push_back(j.get<std::string>());
  if (j.is_structured()) {
    for (const auto& v : j) collect_strings(v, out);
  }
}

TEST(Deploy, ArmTemplatesAreStructurallySound) {
  in_source_dir();
  for (const char* c : kCases) {
    SCOPED_TRACE(c);
    const std::string text =
        read(source_path(std::string("tests/e2e/golden/deploy_") + c + "/template.json"));
    ASSERT_FALSE(text.empty());
    const json t = json::parse(text);
    // Schema and content version.
    EXPECT_EQ(t.value("$schema", ""),
              "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#");
    EXPECT_EQ(t.value("contentVersion", ""), "1.0.0.0");
    // Every resource has type, apiVersion and name; remember them for dependsOn.
    std::set<std::pair<std::string, std::string>> declared;
    ASSERT_TRUE(t["resources"].is_array());
    ASSERT_FALSE(t["resources"].empty());
    for (const json& r : t["resources"]) {
      ASSERT_TRUE(r.contains("type") && r["type"].is_string()) << r.dump();
      ASSERT_TRUE(r.contains("apiVersion") && r["apiVersion"].is_string()) << r.dump();
      ASSERT_TRUE(r.contains("name") && r["name"].is_string()) << r.dump();
      EXPECT_TRUE(std::regex_match(r["apiVersion"].get<std::string>(),
                                   std::regex(R"(\d{4}-\d{2}-\d{2}(-preview)?)")));
      declared.insert({r["type"], eval_name(r["name"], t)});
    }
    // Every dependsOn names a resource of this template.
    for (const json& r : t["resources"]) {
      for (const json& d : r.value("dependsOn", json::array())) {
        std::smatch m;
        const std::string dep = d.get<std::string>();
        ASSERT_TRUE(std::regex_match(dep, m, std::regex(R"(\[resourceId\('([^']+)', (.*)\)\])")))
            << dep;
        std::string name;
        for (const std::string& part : split_args(m[2]))
          name += (name.empty() ? "" : "/") + eval_arg(part, t);
        EXPECT_TRUE(declared.count({m[1], name})) << "dependsOn " << dep << " resolves to " << m[1]
                                                  << " " << name << ", which is not declared";
      }
    }
    // Every parameters('x') and variables('x') reference resolves.
    std::vector<std::string> strings;
    collect_strings(t["resources"], strings);
    collect_strings(t["outputs"], strings);
    collect_strings(t["variables"], strings);
    int references = 0;
    const std::regex reference(R"((parameters|variables)\('([^']+)'\))");
    for (const std::string& s : strings) {
      for (std::sregex_iterator it(s.begin(), s.end(), reference), end; it != end; ++it) {
        ++references;
        const std::string kind = (*it)[1];
        EXPECT_TRUE(t[kind].contains((*it)[2].str()))
            << kind << "('" << (*it)[2] << "') is not declared";
      }
    }
    EXPECT_GT(references, 10);
    // Secrets are parameters without defaults; credentials never inline.
    for (const auto& [name, p] : t["parameters"].items()) {
      if (p["type"] == "securestring") {
        EXPECT_FALSE(p.contains("defaultValue")) << name;
      }
    }
    const bool windows = std::string(c) == "win_hybrid";
    if (windows) {
      EXPECT_EQ(t["parameters"]["adminPassword"]["type"], "securestring");
    } else {
      EXPECT_FALSE(t["parameters"]["adminPublicKey"].contains("defaultValue"));
      EXPECT_FALSE(t["parameters"].contains("adminPassword"));
    }
    // The machine: password auth off (Linux), managed identity, encryption at host.
    for (const json& r : t["resources"]) {
      const std::string type = r["type"];
      if (type != "Microsoft.Compute/virtualMachines" &&
          type != "Microsoft.Compute/virtualMachineScaleSets")
        continue;
      EXPECT_EQ(r["identity"]["type"], "SystemAssigned");
      const json& props = type == "Microsoft.Compute/virtualMachines"
                              ? r["properties"]
                              : r["properties"]["virtualMachineProfile"];
      // Trusted Launch by parameter (Standard only where list-skus says so),
      // encryption at host, Secure Boot off (unsigned DKMS driver), boot diagnostics.
      const std::string sp = props["securityProfile"];
      EXPECT_NE(sp.find("'encryptionAtHost', true()"), std::string::npos);
      // Secure Boot only where the driver is signed (Windows); vTPM always.
      EXPECT_NE(sp.find(windows ? "'secureBootEnabled', true(), 'vTpmEnabled', true()"
                                : "'secureBootEnabled', false(), 'vTpmEnabled', true()"),
                std::string::npos);
      EXPECT_EQ(props["diagnosticsProfile"]["bootDiagnostics"]["enabled"], true);
      if (!windows) {
        EXPECT_EQ(props["osProfile"]["linuxConfiguration"]["disablePasswordAuthentication"], true);
        EXPECT_EQ(props["osProfile"]["linuxConfiguration"]["ssh"]["publicKeys"][0]["keyData"],
                  "[parameters('adminPublicKey')]");
        EXPECT_FALSE(props["osProfile"].contains("adminPassword"));
      } else {
        EXPECT_EQ(props["osProfile"]["adminPassword"], "[parameters('adminPassword')]");
        EXPECT_EQ(props["licenseType"], "Windows_Server");
      }
    }
  }
}

// ---- Secure defaults across every generated file ------------------------------

TEST(Deploy, NoSecretInAnyGeneratedFile) {
  in_source_dir();
  const std::regex secret(
      R"((BEGIN [A-Z ]*PRIVATE KEY|AccountKey=|SharedAccessSignature|[?&]sig=|"adminPassword"\s*:\s*"[^\[]|--admin-password\s+[^"$ ]|password\s*=\s*['"][^'"$]))",
      std::regex::icase);
  for (const char* c : kCases) {
    for (const char* f :
         {"deploy.sh", "template.json", "cloud-init.yaml", "setup.ps1", "budget.json"}) {
      const std::string text =
          read(source_path(std::string("tests/e2e/golden/deploy_") + c + "/" + f));
      if (text.empty()) continue;
      EXPECT_FALSE(std::regex_search(text, secret)) << c << "/" << f;
      // No e-mail address either: deploy.sh fills in $BUDGET_EMAIL at run time.
      EXPECT_FALSE(
          std::regex_search(text, std::regex(R"([A-Za-z0-9._%+-]+@[A-Za-z0-9-]+\.[A-Za-z.]+)")))
          << c << "/" << f;
    }
  }
}

TEST(Deploy, SecureDefaultsInTheGoldenScripts) {
  in_source_dir();
  auto golden = [](const char* c, const char* f) {
    return read(source_path(std::string("tests/e2e/golden/deploy_") + c + "/" + f));
  };
  for (const char* c : kCases) {
    SCOPED_TRACE(c);
    const std::string sh = golden(c, "deploy.sh");
    EXPECT_NE(sh.find("set -euo pipefail"), std::string::npos);
    EXPECT_NE(sh.find("--source-address-prefixes \"$SSH_CIDR\""), std::string::npos);
    EXPECT_NE(sh.find("SSH_CIDR=${SSH_CIDR:-'203.0.113.0/24'}"), std::string::npos);
    EXPECT_NE(sh.find("--assign-identity \"[system]\""), std::string::npos);
    EXPECT_NE(sh.find("--encryption-at-host true"), std::string::npos);
    // Idempotent: each non-PUT create sits under an `if ! az ... show` guard.
    std::istringstream lines(sh);
    std::string line, last_guard;
    while (std::getline(lines, line)) {
      if (line.rfind("if ! az ", 0) == 0) last_guard = line;
      for (const char* create : {"az network nsg create", "az network vnet create", "az ppg create",
                                 "az vm create", "az vmss create"}) {
        if (line.find(create) != std::string::npos) {
          EXPECT_NE(last_guard.find(" show "), std::string::npos) << create;
        }
      }
    }
  }
  // Spot.
  EXPECT_NE(golden("nc_h100_train", "deploy.sh")
                .find("--priority Spot --eviction-policy Deallocate --max-price -1"),
            std::string::npos);
  EXPECT_EQ(golden("nd_multinode_ib", "deploy.sh").find("--priority Spot"), std::string::npos);
  // Hybrid Benefit.
  EXPECT_NE(golden("win_hybrid", "deploy.sh").find("--license-type Windows_Server"),
            std::string::npos);
  // Multi-node InfiniBand: HPC image, scale set, proximity placement group.
  const std::string nd = golden("nd_multinode_ib", "deploy.sh");
  EXPECT_NE(nd.find("IMAGE=${IMAGE:-'microsoft-dsvm:ubuntu-hpc:2204:22.04.2024102301'}"),
            std::string::npos);
  EXPECT_EQ(nd.find(":latest"), std::string::npos);  // images are pinned
  EXPECT_NE(nd.find("az vmss create"), std::string::npos);
  EXPECT_NE(nd.find("--ppg \"$PPG_NAME\""), std::string::npos);
  EXPECT_NE(nd.find("--instance-count 4"), std::string::npos);
  EXPECT_NE(golden("nd_multinode_ib", "cloud-init.yaml").find("--expect-gpus 8 --expect-cuda 12.6"),
            std::string::npos);
  // GRID: the Azure NVIDIA driver extension, CUDA from cloud-init.
  const std::string nv = golden("nv_a10_render", "deploy.sh");
  EXPECT_NE(nv.find("--name NvidiaGpuDriverLinux"), std::string::npos);
  EXPECT_NE(nv.find("--publisher Microsoft.HpcCompute"), std::string::npos);
  EXPECT_EQ(golden("nv_a10_render", "cloud-init.yaml").find("cuda-drivers-"), std::string::npos);
  // Data-center single VM: the pinned driver from cloud-init, no extension.
  EXPECT_EQ(golden("nc_h100_train", "deploy.sh").find("NvidiaGpuDriver"), std::string::npos);
  EXPECT_NE(golden("nc_h100_train", "cloud-init.yaml").find("cuda-drivers-580"), std::string::npos);
  // Windows: driver extension then the setup script; setup.ps1 runs the doctor.
  const std::string win = golden("win_hybrid", "deploy.sh");
  EXPECT_LT(win.find("NvidiaGpuDriverWindows"), win.find("CustomScriptExtension"));
  EXPECT_NE(
      golden("win_hybrid", "setup.ps1").find("gpuplan doctor --expect-gpus 1 --expect-cuda 12.6"),
      std::string::npos);
}

TEST(Deploy, GuestScriptsInCloudInitAreShellcheckClean) {
  in_source_dir();
  if (std::system("command -v shellcheck >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "shellcheck is not installed (scripts/install-deps.sh installs it)";
  }
  for (const char* c : {"nc_h100_train", "nd_multinode_ib", "nv_a10_render"}) {
    const YAML::Node doc = YAML::LoadFile(
        source_path(std::string("tests/e2e/golden/deploy_") + c + "/cloud-init.yaml"));
    ASSERT_TRUE(doc["write_files"].IsSequence());
    for (const YAML::Node& f : doc["write_files"]) {
      // Scripts only: systemd units are not shell; the autostop settings
      // (shell, sourced) are checked together with the script that reads them.
      const std::string name = f["path"].as<std::string>();
      if (name.size() < 3 || name.substr(name.size() - 3) != ".sh") continue;
      const std::string path = temp_dir() + "/script.sh";
      std::ofstream(path) << f["content"].as<std::string>();
      EXPECT_EQ(std::system(("shellcheck " + path + " >&2").c_str()), 0)
          << c << " " << f["path"].as<std::string>();
    }
  }
}

// ---- Refusals and bad input -------------------------------------------------

// deploy.sh run again over a VM of another size (another option of the
// same workload: the names are the workload's) stops and says so, instead
// of keeping the old VM and printing "done". Run against a stub `az` that
// reports the VM as an existing NC24ads_A100_v4.
TEST(Deploy, RerunOverAnotherSizeStops) {
  namespace fs = std::filesystem;
  const fs::path dir = temp_dir() + "/rerun";
  fs::create_directories(dir / "bin");
  fs::copy(source_path("tests/e2e/golden/deploy_nc_h100_train"), dir / "out",
           fs::copy_options::recursive);
  std::ofstream(dir / "bin" / "az")
      << "#!/bin/bash\n"
         "echo \"az $*\" >> \"$(dirname \"$0\")/calls.log\"\n"
         "case \"$*\" in\n"
         "  *'vm show'*'--query hardwareProfile.vmSize'*) echo Standard_NC24ads_A100_v4 ;;\n"
         "  *'feature show'*) echo Registered ;;\n"
         "  *'account show'*) echo 00000000-0000-0000-0000-000000000000 ;;\n"
         "esac\n"
         "exit 0\n";
  fs::permissions(dir / "bin" / "az", fs::perms::owner_all);
  std::ofstream(dir / "key.pub")
      << "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFTiQbwKtxWZKSH90yxD1fvxI7vLYxjz/K2XnVhCbEsf t@t\n";
  const std::string cmd = "cd '" + dir.string() + "' && HOME='" + dir.string() + "' PATH='" +
                          (dir / "bin").string() + ":/usr/bin:/bin' SSH_PUBLIC_KEY_FILE='" +
                          (dir / "key.pub").string() +
                          "' timeout 60 bash out/deploy.sh > out.txt 2> err.txt";
  const int rc = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 1);
  std::ifstream err(dir / "err.txt");
  std::stringstream e;
  e << err.rdbuf();
  EXPECT_NE(
      e.str().find("already exists as Standard_NC24ads_A100_v4, not Standard_NC40ads_H100_v5"),
      std::string::npos)
      << e.str();
  std::ifstream calls(dir / "bin" / "calls.log");
  std::stringstream c;
  c << calls.rdbuf();
  EXPECT_EQ(c.str().find("vm create"), std::string::npos);
}

TEST(Deploy, WithoutAnSshChoiceExits2AndWritesNothing) {
  in_source_dir();
  const std::string out = temp_dir() + "/out";
  const CliResult r = deploy("nc_h100_train", out, {});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--ssh-cidr"), std::string::npos);
  EXPECT_NE(r.err.find("--allow-ssh-from-anywhere"), std::string::npos);
  EXPECT_FALSE(fs::exists(out));
}

TEST(Deploy, TheWholeInternetOnlyWhenAskedForByName) {
  in_source_dir();
  const std::string out = temp_dir() + "/out";
  const CliResult world = deploy("nc_h100_train", out, {"--ssh-cidr", "0.0.0.0/0"});
  EXPECT_EQ(world.code, 2);
  EXPECT_NE(world.err.find("--allow-ssh-from-anywhere"), std::string::npos);
  EXPECT_FALSE(fs::exists(out));
  const CliResult open = deploy("nc_h100_train", out, {"--allow-ssh-from-anywhere"});
  ASSERT_EQ(open.code, 0) << open.err;
  EXPECT_NE(read(out + "/deploy.sh").find("SSH_CIDR=${SSH_CIDR:-'0.0.0.0/0'}"), std::string::npos);
  EXPECT_NE(open.out.find("SSH is open to the whole internet"), std::string::npos);
  const CliResult both =
      deploy("nc_h100_train", out, {"--ssh-cidr", "203.0.113.0/24", "--allow-ssh-from-anywhere"});
  EXPECT_EQ(both.code, 2);
}

TEST(Deploy, BadInputsExit2NamingWhere) {
  in_source_dir();
  const std::string dir = temp_dir();
  const std::string bad_plan = dir + "/bad.json";
  std::ofstream(bad_plan)
      << R"({"schema": "gpuplan.plan/1", "options": [{"size": "Standard_NC40ads_H100_v5", "count": 0}]})";
  const CliResult r =
      run_cli({"deploy", bad_plan, "--out", dir + "/o1", "--ssh-cidr", "203.0.113.0/24"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("options[0].count"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/o1"));

  const CliResult option =
      deploy("nc_h100_train", dir + "/o2", {"--ssh-cidr", "203.0.113.0/24", "--option", "3"});
  EXPECT_EQ(option.code, 2);
  EXPECT_NE(option.err.find("has 2 option(s)"), std::string::npos);

  const CliResult date =
      run_cli({"deploy", "tests/data/plans/nc_h100_train.json", "--out", dir + "/o3", "--ssh-cidr",
               "203.0.113.0/24", "--start-date", "2026-12-15"});
  EXPECT_EQ(date.code, 2);
  EXPECT_NE(date.err.find("first of a month"), std::string::npos);

  const std::string private_key = dir + "/id_rsa";
  std::ofstream(private_key)
      << "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n";
  const CliResult key = deploy("nc_h100_train", dir + "/o4",
                               {"--ssh-cidr", "203.0.113.0/24", "--ssh-public-key", private_key});
  EXPECT_EQ(key.code, 2);
  EXPECT_NE(key.err.find("private key"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir + "/o4"));

  const CliResult missing = deploy("does_not_exist", dir + "/o5");
  EXPECT_EQ(missing.code, 2);

  // A key given twice: JSON readers keep the last, and "count": 1, "count":
  // 64 deployed 64 VMs under a plan whose cost was for 1.
  const std::string twice = dir + "/twice.json";
  std::ofstream(twice) << R"({"schema": "gpuplan.plan/1", "options": [)"
                          "\n"
                       << R"({"size": "Standard_NC40ads_H100_v5", "count": 1, "count": 64}]})";
  const CliResult dup =
      run_cli({"deploy", twice, "--out", dir + "/o6", "--ssh-cidr", "203.0.113.0/24"});
  EXPECT_EQ(dup.code, 2) << dup.err;
  EXPECT_NE(dup.err.find("twice.json:2:"), std::string::npos) << dup.err;
  EXPECT_NE(dup.err.find("count: key given twice"), std::string::npos) << dup.err;
  EXPECT_FALSE(fs::exists(dir + "/o6"));
}

// Review finding 5: a plan option the catalog does not offer (an edited
// region, a size retired since the plan was made) exited 0 and failed at
// `az vm create`, after the resource group, NSG and VNet existed.
TEST(Deploy, AnOptionTheCatalogDoesNotOfferExits2BeforeWritingAnything) {
  in_source_dir();
  const std::string dir = temp_dir();
  const std::string plan = read("tests/data/plans/nc_h100_train.json");
  auto edited = [&](const std::string& name, const std::string& from, const std::string& to) {
    const std::string path = dir + "/" + name + ".json";
    std::ofstream(path) << replace_all(plan, from, to);
    return path;
  };
  struct Case {
    std::string plan, field, says;
  };
  const Case cases[] = {
      {edited("moon", "\"eastus\"", "\"moon\""), "options[0].region",
       "'moon' is not an Azure region"},
      {edited("brazilsouth", "\"eastus\"", "\"brazilsouth\""), "options[0].region",
       "Standard_NC40ads_H100_v5 is not offered in brazilsouth"},
      {edited("retired", "Standard_NC40ads_H100_v5", "Standard_NC6s_v3"), "options[0].size",
       "Standard_NC6s_v3 was retired on 2025-09-30"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.plan);
    const std::string out = dir + "/out";
    const CliResult r = run_cli({"deploy", c.plan, "--out", out, "--ssh-cidr", "203.0.113.0/24"});
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.err.find(c.field), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--skip-catalog-check"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
    const CliResult skipped = run_cli({"deploy", c.plan, "--out", out, "--ssh-cidr",
                                       "203.0.113.0/24", "--skip-catalog-check", "--json"});
    ASSERT_EQ(skipped.code, 0) << skipped.err;
    const json j = json::parse(skipped.out);
    ASSERT_EQ(j["warnings"].size(), 1u) << j["warnings"].dump();
    EXPECT_EQ(j["warnings"][0].get<std::string>().rfind(c.field + ": ", 0), 0u);
    fs::remove_all(out);
  }
}

// Review finding 8: keys Azure refuses (ECDSA, RSA under 2048 bits, a
// cut-short blob) exited 0; az vm create failed after the network existed.
TEST(Deploy, SshKeysAzureRejectsExit2NamingTheFile) {
  in_source_dir();
  const std::string dir = temp_dir();
  const std::pair<const char*, const char*> keys[] = {
      {"ecdsa.pub",
       "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBLQiL8az8O6mSIns"
       "wwoKH+H6v25Wt+pqboktPhRzGNGk5KJ6lV+miG+yU02fbD8u7ZxM5QIiTnRIJFKO3KMCUok= root@vm\n"},
      {"rsa1024.pub",
       "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDOap4tQfUat+eWgxp+VXqB/mray1+R2lt0uQEGUXcwHfmkXIEAf"
       "UqFgyviqEUKDKJ+IuTYu0FZ4JPhZtLS47iFeMBvJ/lxKF5cwM9R+94AnRyxzUXicyL78Kw9JgzNZgZ4ueMsTOH68m"
       "Ovqfum7RvhqG1Sm3LSgqoRCK2WthxFHw== root@vm\n"},
      {"shortrsa.pub", "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ== a\n"},
  };
  for (const auto& [name, line] : keys) {
    SCOPED_TRACE(name);
    const std::string key = dir + "/" + name;
    std::ofstream(key) << line;
    const std::string out = dir + "/out";
    const CliResult r =
        deploy("nc_h100_train", out, {"--ssh-cidr", "203.0.113.0/24", "--ssh-public-key", key});
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.err.find(key), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--ssh-public-key"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("ssh-rsa keys of at least 2048 bits and ssh-ed25519"), std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
}

// Review finding 11: a Windows deployment written over a Linux one kept the
// Linux cloud-init.yaml beside setup.ps1.
TEST(Deploy, AnExistingOutDirectoryKeepsOnlyTheNewDeploymentsFiles) {
  in_source_dir();
  const std::string out = temp_dir() + "/out";
  ASSERT_EQ(deploy("nc_h100_train", out).code, 0);
  std::ofstream(out + "/README.txt") << "the user's\n";
  const CliResult r = deploy("win_hybrid", out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(files_of(out), (std::vector<std::string>{"README.txt", "budget.json", "deploy.sh",
                                                     "setup.ps1", "template.json"}));
}

TEST(Deploy, PublicKeyPathAndSecondOptionAreUsed) {
  in_source_dir();
  const std::string out = temp_dir() + "/out";
  const CliResult r = deploy("nc_h100_train", out,
                             {"--ssh-cidr", "198.51.100.7", "--option", "2", "--ssh-public-key",
                              "tests/data/plans/test_key.pub"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string sh = read(out + "/deploy.sh");
  EXPECT_NE(sh.find("SSH_PUBLIC_KEY_FILE=${SSH_PUBLIC_KEY_FILE:-'tests/data/plans/test_key.pub'}"),
            std::string::npos);
  EXPECT_NE(sh.find("SSH_CIDR=${SSH_CIDR:-'198.51.100.7/32'}"), std::string::npos);
  EXPECT_EQ(sh.find("--priority Spot"), std::string::npos);  // option 2 is pay-as-you-go
  // The key's content never lands in a file: deploy.sh reads it at run time.
  EXPECT_EQ(sh.find("AAAAC3NzaC1lZDI1NTE5"), std::string::npos);
  EXPECT_EQ(read(out + "/template.json").find("AAAAC3NzaC1lZDI1NTE5"), std::string::npos);
}

TEST(Deploy, AnOutPathThatIsAFileFailsWithoutWriting) {
  in_source_dir();
  const std::string file = temp_dir() + "/taken";
  std::ofstream(file) << "x";
  const CliResult r = deploy("nc_h100_train", file);
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(read(file), "x");
}

TEST(Deploy, JsonSummary) {
  in_source_dir();
  const std::string out = temp_dir() + "/out";
  const CliResult r = deploy("nd_multinode_ib", out, {"--ssh-cidr", "203.0.113.0/24", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["schema"], "gpuplan.deploy/1");
  EXPECT_EQ(j["count"], 4);
  EXPECT_EQ(j["image"], "microsoft-dsvm:ubuntu-hpc:2204:22.04.2024102301");
  EXPECT_EQ(j["security"]["type"], "TrustedLaunch");
  EXPECT_EQ(j["security"]["secure_boot"], false);
  EXPECT_EQ(j["security"]["boot_diagnostics"], true);
  EXPECT_EQ(j["stack"]["driver_source"], "image");
  EXPECT_EQ(j["files"].size(), 4u);
}

TEST(Deploy, FromAWorkloadThroughThePlannerMatchesThePlanJson) {
  in_source_dir();
  const std::string dir = temp_dir();
  const std::string workload = "examples/windows-hybrid.yaml";
  // The planner's own JSON for the workload; pick its best NVIDIA option.
  const CliResult plan = run_cli({"plan", workload, "--json"});
  ASSERT_EQ(plan.code, 0) << plan.err;
  std::ofstream(dir + "/plan.json") << plan.out;
  const json p = json::parse(plan.out);
  int option = 0;
  for (size_t i = 0; i < p["options"].size() && option == 0; ++i) {
    const std::string model = p["options"][i].value("gpu", "");
    if (model.rfind("MI", 0) != 0 && model != "V620" && model != "V710")
      option = static_cast<int>(i) + 1;
  }
  ASSERT_GT(option, 0) << "no NVIDIA option in the plan";
  const std::vector<std::string> common = {"--option",       std::to_string(option), "--ssh-cidr",
                                           "203.0.113.0/24", "--start-date",         "2026-12-01"};
  std::vector<std::string> from_yaml = {"deploy", workload, "--out", dir + "/a"};
  std::vector<std::string> from_json = {"deploy", dir + "/plan.json", "--out", dir + "/b"};
  from_yaml.insert(from_yaml.end(), common.begin(), common.end());
  from_json.insert(from_json.end(), common.begin(), common.end());
  const CliResult a = run_cli(from_yaml);
  ASSERT_EQ(a.code, 0) << a.err;
  const CliResult b = run_cli(from_json);
  ASSERT_EQ(b.code, 0) << b.err;
  ASSERT_EQ(files_of(dir + "/a"), files_of(dir + "/b"));
  for (const std::string& f : files_of(dir + "/a")) {
    // Identical but for the plan file each names.
    EXPECT_EQ(read(dir + "/a/" + f),
              replace_all(read(dir + "/b/" + f), dir + "/plan.json", workload))
        << f;
  }
}

TEST(Deploy, AnAmdOptionIsRefusedAndTheFirstDeployableOneNamed) {
  in_source_dir();
  const std::string dir = temp_dir();
  const std::string plan = dir + "/plan.json";
  std::ofstream(plan) << R"({"schema": "gpuplan.plan/1", "workload": {"name": "w", "kind": "train"},
    "options": [
      {"size": "Standard_ND96isr_MI300X_v5", "count": 1, "gpus": 8, "region": "eastus2", "pricing": "spot",
       "os": "linux", "hours": 6.5, "cost_usd": 58.34, "cost_low_usd": 56.24, "cost_high_usd": 65.77,
       "usd_per_hour": 8.87},
      {"size": "Standard_NC40ads_H100_v5", "count": 1, "gpus": 1, "region": "eastus", "pricing": "payg",
       "os": "linux", "hours": 14.2, "cost_usd": 99.12, "cost_low_usd": 99.12, "cost_high_usd": 99.12,
       "usd_per_hour": 6.98}]})";
  const CliResult r =
      run_cli({"deploy", plan, "--out", dir + "/out", "--ssh-cidr", "203.0.113.0/24"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("no ROCm rows"), std::string::npos) << r.err;
  EXPECT_NE(
      r.err.find("The first option gpuplan can deploy is --option 2 (1 x Standard_NC40ads_H100_v5"),
      std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir + "/out"));
}

// ---- gpuplan stack ----------------------------------------------------------

TEST(Stack, RefusesCuda13OnV100WithExit1) {
  const CliResult r = run_cli({"stack", "--size", "Standard_NC6s_v3", "--cuda", "13.0"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("CUDA 13 dropped Maxwell, Pascal and Volta"), std::string::npos) << r.err;
}

TEST(Stack, RefusesAmdSizesWithExit1) {
  const CliResult r = run_cli({"stack", "--size", "ND96isr_MI300X_v5"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("no ROCm rows"), std::string::npos);
  const CliResult j = run_cli({"stack", "--size", "ND96isr_MI300X_v5", "--json"});
  EXPECT_EQ(j.code, 1);
  EXPECT_EQ(json::parse(j.out)["refused"], true);
}

TEST(Stack, GoldenH100AndGridA10) {
  const CliResult h = run_cli({"stack", "--size", "Standard_NC40ads_H100_v5"});
  ASSERT_EQ(h.code, 0) << h.err;
  EXPECT_EQ(check_golden("stack_nc40ads_h100.txt", h.out), "");
  const CliResult a =
      run_cli({"stack", "--size", "Standard_NV36ads_A10_v5", "--pytorch", "2.11", "--json"});
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(check_golden("stack_nv36ads_a10_pytorch211.json", a.out), "");
  const json j = json::parse(a.out);
  EXPECT_EQ(j["driver_kind"], "grid");
  EXPECT_EQ(j["wheel"], "cu128");  // 12.8 needs 570.26 <= GRID 570.195.03
}

TEST(Stack, BadFlagsExit2) {
  const CliResult size = run_cli({"stack", "--size", "Standard_NC40ads_H100_v6"});
  EXPECT_EQ(size.code, 2);
  EXPECT_NE(size.err.find("did you mean 'Standard_NC40ads_H100_v5'"), std::string::npos)
      << size.err;
  EXPECT_EQ(run_cli({"stack", "--size", "Standard_NC40ads_H100_v5", "--pytorch", "two"}).code, 2);
  EXPECT_EQ(run_cli({"stack", "--size", "Standard_NC40ads_H100_v5", "--pytorch", "3.0"}).code, 2);
  EXPECT_EQ(run_cli({"stack"}).code, 2);
}

}  // namespace
}  // namespace gpuplan::e2e
