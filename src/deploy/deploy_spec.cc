// Deciding a deployment from a plan option: names, layout (single VM, scale
// set, proximity placement group), image, GPU stack and the secure-default
// inputs (SSH CIDR, public key, budget start) — everything validated before a
// single file is generated.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <optional>
#include <string_view>

#include "core/files.h"
#include "core/names.h"
#include "core/strings.h"
#include "cost/cost.h"
#include "deploy/deploy.h"
#include "deploy/internal/generate.h"

namespace gpuplan::deploy {
namespace {

// Marketplace images, pinned by version (publisher:offer:sku:version): a
// deployment made today and one made next month boot the same bits. deploy.sh
// checks the version is still offered (`az vm image show`) and says how to
// pick the current one; IMAGE=... overrides it.
// Ubuntu 22.04 LTS Gen2: CUDA 13 dropped Ubuntu 20.04 (cuda_driver.csv os_support),
// and the GRID extension supports 22.04/24.04 (hpccompute-gpu-linux.md).
// Version 22.04.202510230: a release build seen deployed in Azure migration
// output (2025-10); Canonical keeps release builds listed.
constexpr const char* kUbuntuImage =
    "Canonical:0001-com-ubuntu-server-jammy:22_04-lts-gen2:22.04.202510230";
// Ubuntu 22.04 for Confidential VMs (the -cvm SKU; Azure/az-cgpu-onboarding
// deploys NCCads_H100_v5 on it).
constexpr const char* kUbuntuCvmImage =
    "Canonical:0001-com-ubuntu-confidential-vm-jammy:22_04-lts-cvm:22.04.202510230";
// Ubuntu-HPC 22.04: MOFED, HPC-X, NCCL, driver + fabric manager (Azure/azhpc-images).
// Version 22.04.2024102301: the one Microsoft's CycleCloud Slurm GPU guide pins.
constexpr const char* kHpcImage = "microsoft-dsvm:ubuntu-hpc:2204:22.04.2024102301";
constexpr const char* kHpcImageRow = "ubuntu-hpc-2204";
// Ubuntu 24.04 LTS for Arm64 (the ND GB200 v6 and ND GB300 v6 sizes: two
// Grace CPUs with their Blackwell GPUs, catalog::is_arm64). Canonical
// publishes it as offer ubuntu-24_04-lts, SKU server-arm64 (`az vm image
// list --publisher Canonical --offer ubuntu-24_04-lts --sku server-arm64
// --all`); the x64 images above do not boot on an Arm64 size. Version
// 24.04.202609040: a release build pinned by Azure deployments seen in
// public repositories (2026-09); deploy.sh checks it is still offered.
constexpr const char* kUbuntuArm64Image = "Canonical:ubuntu-24_04-lts:server-arm64:24.04.202609040";
// Windows Server 2022 Gen2: the newest Server the NvidiaGpuDriverWindows
// extension lists (Server 2012 R2-2022, hpccompute-gpu-windows.md).
// Version 20348.5622.260906: listed Active (x64, V2) in eastus2, 2026-09.
constexpr const char* kWindowsImage =
    "MicrosoftWindowsServer:WindowsServer:2022-datacenter-g2:20348.5622.260906";

std::string sanitize_name(const std::string& name) {
  std::string out;
  for (char c : strings::to_lower(name)) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (ok) {
      out += c;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  if (out.size() > 40) out.resize(40);
  while (!out.empty() && out.back() == '-') out.pop_back();
  if (out.empty()) out = "gpuplan";
  if (out[0] >= '0' && out[0] <= '9') out = "w-" + out;
  return out;
}

// The security type (issue 15): Trusted Launch is Azure's default for new
// Gen2 VMs (learn.microsoft.com trusted-launch: "Trusted Launch is selected
// as the default state for newly created Azure VMs"); a confidential size is
// a Confidential VM. Secure Boot stays off: the NVIDIA driver gpuplan
// installs (Azure's driver extension, or NVIDIA's cuda-drivers package) is
// built by DKMS and unsigned, and Secure Boot refuses unsigned kernel
// modules (the extension "does not work with Secure Boot",
// hpccompute-gpu-linux.md); vTPM stays on (measured boot, attestation) unless
// the stack's GRID driver is one Azure runs with it off (the stack matrix's
// no-secure-boot-vtpm: RTX PRO 6000 BSE v6). Runs once the stack is known.
void decide_security(DeploySpec& spec) {
  if (catalog::is_confidential(spec.size)) {
    spec.security_type = SecurityType::kConfidentialVm;
    spec.vtpm = true;  // required by a Confidential VM
    spec.secure_boot = false;
    spec.encryption_at_host = false;  // a CVM encrypts its guest state instead
    if (spec.option.os == catalog::Os::kLinux) spec.image_urn = kUbuntuCvmImage;
    spec.security_note =
        "security: Confidential VM (VMGuestStateOnly, vTPM on, Secure Boot off: the NVIDIA "
        "driver gpuplan installs is DKMS-built and unsigned); the GPU's confidential mode and "
        "attestation follow Azure/az-cgpu-onboarding, which gpuplan does not run";
    return;
  }
  spec.security_type = SecurityType::kTrustedLaunch;
  spec.vtpm = true;
  // Said by every Trusted Launch note.
  const std::string standard_fallback =
      "deploy.sh uses Standard where `az vm list-skus` says the size has TrustedLaunchDisabled";
  if (spec.option.os == catalog::Os::kWindows) {
    // 64-bit Windows loads only signed kernel drivers anyway (driver signature
    // enforcement), and the NvidiaGpuDriverWindows extension installs NVIDIA's
    // signed driver: Secure Boot costs nothing there.
    spec.secure_boot = true;
    spec.security_note =
        "security: Trusted Launch with Secure Boot and vTPM on (Windows loads only signed "
        "drivers, and the NVIDIA driver extension installs a signed one); " +
        standard_fallback;
    return;
  }
  spec.secure_boot = false;
  if (spec.stack.no_secure_boot_vtpm) {
    spec.vtpm = false;
    spec.security_note =
        "security: Trusted Launch with Secure Boot and vTPM off (Azure's driver "
        "setup for " +
        spec.size.series + " runs its GRID driver that way: the stack matrix's grid row); " +
        standard_fallback;
    return;
  }
  spec.security_note =
      "security: Trusted Launch with vTPM on and Secure Boot off (the NVIDIA driver gpuplan "
      "installs is DKMS-built and unsigned, and Secure Boot would refuse to load it); " +
      standard_fallback;
}

// SSH/RDP source ranges broader than /8 need --allow-ssh-from-anywhere; broader
// than /16 get a warning (issue 15: a /1 is half the internet, not narrow).
constexpr int kNarrowestRefusedPrefix = 8;
constexpr int kWarnBroaderThanPrefix = 16;

// What an Arm64 deployment sets up and what it leaves to the user: the
// x64 Ubuntu-HPC image would have brought InfiniBand (DOCA-OFED), NCCL's
// tuning and the NVLink multi-node services; Canonical's arm64 image has none.
void add_arm64_notes(DeploySpec& spec) {
  spec.notes.push_back(
      spec.size.name + " is Arm64 (Grace CPUs): image " + spec.image_urn + "; the NVIDIA driver (" +
      spec.stack.driver_package + ") and CUDA " + spec.stack.cuda.to_string() +
      " come from NVIDIA's sbsa (Arm64 server) repository, PyTorch from its aarch64 wheels");
  spec.notes.push_back(
      "not set up on Arm64: InfiniBand drivers (DOCA-OFED), NCCL's InfiniBand tuning and the "
      "NVLink multi-node (IMEX) service that the x64 Ubuntu-HPC image ships; a single VM's four "
      "GPUs work without them, multi-VM training needs them (Azure's ND GB200 v6 / GB300 v6 "
      "guidance)");
}

bool is_serving(const std::string& kind) {
  return kind == "infer" || kind == "serve" || kind == "serving" || kind == "inference";
}

}  // namespace

Result<std::string> parse_ipv4_cidr(const std::string& text, const std::string& field) {
  const std::string s(strings::trim(text));
  const Where where{"", 0, 0, field};
  const auto slash = s.find('/');
  const std::string addr = s.substr(0, slash);
  int prefix = 32;
  if (slash != std::string::npos) {
    const std::string p = s.substr(slash + 1);
    if (p.empty() || p.size() > 2 || p.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(p) > 32) {
      return invalid_argument("'" + s +
                                  "' is not an IPv4 CIDR: the prefix length must be 0-32 "
                                  "(e.g. 203.0.113.0/24)",
                              where);
    }
    prefix = std::stoi(p);
  }
  const std::vector<std::string> octets = strings::split(addr, '.');
  // A leading zero (01.2.3.0) reads as octal to some tools and decimal to
  // others: written verbatim into deploy.sh, it meant whatever az made of it.
  for (const std::string& o : octets)
    if (o.size() > 1 && o[0] == '0')
      return invalid_argument("'" + s +
                                  "' has an octet with a leading zero, which some tools read as "
                                  "octal; write it without (e.g. 1.2.3.0/24)",
                              where);
  uint32_t value = 0;
  bool ok = octets.size() == 4;
  for (const std::string& o : octets) {
    if (!ok) break;
    if (o.empty() || o.size() > 3 || o.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(o) > 255) {
      ok = false;
      break;
    }
    value = (value << 8) | static_cast<uint32_t>(std::stoi(o));
  }
  if (!ok) {
    return invalid_argument("'" + s +
                                "' is not an IPv4 CIDR (expected a.b.c.d/n, e.g. "
                                "203.0.113.0/24, or one address such as 203.0.113.7)",
                            where);
  }
  const uint32_t mask = prefix == 0 ? 0u : ~0u << (32 - prefix);
  if ((value & ~mask) != 0) {
    const uint32_t net = value & mask;
    std::ostringstream fix;
    fix << (net >> 24) << '.' << ((net >> 16) & 255) << '.' << ((net >> 8) & 255) << '.'
        << (net & 255) << '/' << prefix;
    return invalid_argument("'" + s + "' has host bits set; did you mean " + fix.str() + "?",
                            where);
  }
  return addr + "/" + std::to_string(prefix);
}

Status check_budget_start_date(const std::string& date, const std::string& today) {
  const Where where{"", 0, 0, "--start-date"};
  auto bad = [&](const std::string& why) {
    return invalid_argument("'" + date + "' " + why, where);
  };
  if (date.size() != 10 || date[4] != '-' || date[7] != '-')
    return bad("is not a date (YYYY-MM-DD)");
  for (int i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (date[i] < '0' || date[i] > '9') return bad("is not a date (YYYY-MM-DD)");
  }
  const int year = std::stoi(date.substr(0, 4));
  const int month = std::stoi(date.substr(5, 2));
  const int day = std::stoi(date.substr(8, 2));
  if (year < 2017 || month < 1 || month > 12 || day < 1 || day > 31) {
    return bad("is not a valid date from 2017 on (YYYY-MM-DD)");
  }
  if (day != 1) {
    return bad(
        "is not the first of a month: Azure budgets start on the first day of a month "
        "(use " +
        date.substr(0, 8) + "01)");
  }
  if (today.size() < 7) return {};
  // Dates of one form compare as text.
  const std::string first = internal::add_months(today, 0), last = internal::add_months(today, 12);
  if (date < first)
    return bad(
        "is in a past month: Azure starts a monthly budget no earlier than the current "
        "month's first (use " +
        first + ")");
  if (date > last)
    return bad(
        "is more than twelve months ahead: Azure starts a budget at most twelve months "
        "on (" +
        last + " at the latest)");
  return {};
}

namespace {

// Azure accepts SSH-2 RSA keys of at least 2048 bits and Ed25519 keys ("Other
// key formats such as ECDSA are not supported", learn.microsoft.com,
// "Supported SSH key formats"); anything else fails at `az vm create`, after
// the resource group, NSG and VNet exist.
constexpr int kMinRsaBits = 2048;
constexpr const char* kAccepted =
    "Azure accepts ssh-rsa keys of at least 2048 bits and ssh-ed25519 keys only "
    "(learn.microsoft.com, \"Supported SSH key formats\"; e.g. ssh-keygen -t ed25519)";

// RFC 4648 base64 (padding optional at the end); nullopt on any other byte.
std::optional<std::string> decode_base64(std::string_view text) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  size_t padding = 0;
  for (char c : text) {
    int v = -1;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    if (c >= '0' && c <= '9') v = c - '0' + 52;
    if (c == '+') v = 62;
    if (c == '/') v = 63;
    if (c == '=') {
      ++padding;
      continue;
    }
    if (v < 0 || padding > 0) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  if (padding > 2 || (text.size() % 4 != 0 && padding > 0)) return std::nullopt;
  return out;
}

// The SSH wire format's `string` / `mpint` (RFC 4251 section 5): a 32-bit
// big-endian length, then that many bytes. Advances `at`; nullopt when the
// blob ends first.
std::optional<std::string_view> read_ssh_string(std::string_view blob, size_t& at) {
  if (blob.size() - at < 4) return std::nullopt;
  uint32_t len = 0;
  for (int i = 0; i < 4; ++i) len = (len << 8) | static_cast<unsigned char>(blob[at + i]);
  at += 4;
  if (blob.size() - at < len) return std::nullopt;
  std::string_view s = blob.substr(at, len);
  at += len;
  return s;
}

// Bits in a non-negative mpint: leading zero bytes dropped.
int mpint_bits(std::string_view n) {
  size_t i = 0;
  while (i < n.size() && n[i] == 0) ++i;
  if (i == n.size()) return 0;
  int top = 0;
  for (auto b = static_cast<unsigned char>(n[i]); b != 0; b >>= 1) ++top;
  return static_cast<int>(n.size() - i - 1) * 8 + top;
}

}  // namespace

Status check_ssh_public_key_file(const std::string& path) {
  const Where where{path, 0, 0, "--ssh-public-key"};
  auto text = files::read_text(path);
  if (!text) return invalid_argument("cannot read the SSH public key file", where);
  if (text->find("PRIVATE KEY") != std::string::npos) {
    return invalid_argument(
        "this is a private key; pass the public key (the .pub file) — "
        "gpuplan never puts a private key into generated files",
        where);
  }
  // The first line: key type, base64 key, comment (whitespace-separated).
  const std::string body(strings::trim(*text));
  std::vector<std::string> fields;
  std::string field;
  for (char c : body.substr(0, body.find('\n')) + " ") {
    if (c == ' ' || c == '\t' || c == '\r') {
      if (!field.empty()) fields.push_back(field);
      field.clear();
    } else {
      field += c;
    }
  }
  const std::string type = fields.empty() ? std::string() : fields[0];
  if (type != "ssh-rsa" && type != "ssh-ed25519") {
    const bool other_key =
        type.rfind("ecdsa-sha2-", 0) == 0 || type.rfind("sk-", 0) == 0 || type == "ssh-dss";
    return invalid_argument(
        (other_key ? names::printable(type, 40) + " keys are not accepted by Azure: "
                   : std::string("not an OpenSSH public key (expected one line: key type, "
                                 "base64 key, comment): ")) +
            kAccepted,
        where);
  }
  // The base64 blob repeats the type, then holds the key: for ssh-ed25519 a
  // 32-byte point, for ssh-rsa the exponent and the modulus (RFC 4253 6.6,
  // RFC 8709 4).
  const auto blob = fields.size() < 2 ? std::nullopt : decode_base64(fields[1]);
  auto malformed = [&](const std::string& why) {
    return invalid_argument("not a valid " + type + " public key (" + why + "): " + kAccepted,
                            where);
  };
  if (!blob) return malformed("the key is not base64");
  size_t at = 0;
  const auto inner = read_ssh_string(*blob, at);
  if (!inner || *inner != type) return malformed("the key data does not start with its type");
  if (type == "ssh-ed25519") {
    const auto point = read_ssh_string(*blob, at);
    if (!point || point->size() != 32 || at != blob->size())
      return malformed("an Ed25519 key is 32 bytes");
    return {};
  }
  const auto exponent = read_ssh_string(*blob, at);
  const auto modulus = exponent ? read_ssh_string(*blob, at) : std::nullopt;
  if (!modulus || at != blob->size()) return malformed("the key data is cut short");
  const int bits = mpint_bits(*modulus);
  if (bits < kMinRsaBits) {
    return invalid_argument("an RSA key of " + std::to_string(bits) + " bits: " + kAccepted +
                                " (ssh-keygen -t rsa -b 4096)",
                            where);
  }
  return {};
}

StackTarget deployment_target(const catalog::VmSize& size, const catalog::Gpu* gpu,
                              catalog::Os os) {
  const bool hpc =
      os == catalog::Os::kLinux && size.infiniband_gbps > 0 && !catalog::is_arm64(size);
  return make_target(size, gpu, os, hpc ? kHpcImageRow : "");
}

const char* to_string(SecurityType t) {
  switch (t) {
    case SecurityType::kStandard:
      return "Standard";
    case SecurityType::kTrustedLaunch:
      return "TrustedLaunch";
    case SecurityType::kConfidentialVm:
      return "ConfidentialVM";
  }
  return "Standard";
}

namespace {

// Step 2: who may reach the VM over SSH — a CIDR, or an explicit "from
// anywhere" — into spec.ssh_cidr, with a note when the range is broad.
Status decide_ssh(const DeployOptions& options, DeploySpec& spec) {
  if (options.allow_ssh_from_anywhere && !options.ssh_cidr.empty()) {
    return invalid_argument("give either --ssh-cidr or --allow-ssh-from-anywhere, not both",
                            Where{"", 0, 0, "--ssh-cidr"});
  }
  if (options.allow_ssh_from_anywhere) {
    spec.ssh_cidr = "0.0.0.0/0";
    spec.ssh_from_anywhere = true;
    spec.notes.push_back("SSH is open to the whole internet (--allow-ssh-from-anywhere)");
  } else {
    if (options.ssh_cidr.empty()) {
      return invalid_argument(
          "choose who may reach the VM: --ssh-cidr CIDR (e.g. your office "
          "203.0.113.0/24) or, knowingly, --allow-ssh-from-anywhere",
          Where{"", 0, 0, "--ssh-cidr"});
    }
    GPUPLAN_TRY(spec.ssh_cidr, parse_ipv4_cidr(options.ssh_cidr, "--ssh-cidr"));
    // Breadth: below /8 (0.0.0.0/1 is half the internet) only by name; below
    // /16 (65,536 addresses) a warning — an office or VPN range is narrower.
    const int prefix = std::stoi(spec.ssh_cidr.substr(spec.ssh_cidr.find('/') + 1));
    if (prefix < kNarrowestRefusedPrefix) {
      return invalid_argument(
          "'" + options.ssh_cidr + "' opens SSH to " +
              (prefix == 0 ? std::string("the whole internet")
                           : "2^" + std::to_string(32 - prefix) + " addresses") +
              "; pass --allow-ssh-from-anywhere instead if that is really "
              "meant",
          Where{"", 0, 0, "--ssh-cidr"});
    }
    if (prefix < kWarnBroaderThanPrefix) {
      spec.notes.push_back("--ssh-cidr " + spec.ssh_cidr + " admits " +
                           std::to_string(1ull << (32 - prefix)) +
                           " addresses; an office or VPN range is usually /24 or narrower");
    }
  }
  return {};
}

// Step 3b: the option against the catalog. A plan is a file users keep and
// edit, and one made before a retirement date is deployed after it; an
// option Azure does not offer fails only at `az vm create`, after the
// resource group, NSG and VNet exist. So deploy refuses what the catalog
// (embedded, or --db) does not list: an unknown region, a size no price
// source places in the region, a size retired at the catalog's date
// (catalog::today: $GPUPLAN_TODAY or the clock). --skip-catalog-check
// turns each refusal into a warning, for a catalog that is behind Azure.
Status check_option_in_catalog(const PlanDocument& plan, const catalog::Catalog& catalog,
                               const DeployOptions& options, const catalog::VmSize& size,
                               DeploySpec& spec) {
  const std::string opath = "options[" + std::to_string(options.option - 1) + "]";
  const std::string& region = spec.option.region;
  std::vector<Error> problems;
  // Windows on a size whose documentation lists Linux images only (the
  // catalog's no_windows rule; Azure still lists a Windows meter for it).
  if (spec.option.os == catalog::Os::kWindows) {
    const catalog::Offer* w =
        catalog.offer(size.name, region, catalog::Os::kWindows, catalog::Pricing::kPayg);
    if (w && w->not_offered)
      problems.push_back(
          Error{ErrorCode::kFailedPrecondition,
                size.name + " has no Windows image: " + w->source + "; plan it with os: linux",
                Where{plan.file, 0, 0, opath + ".os"}});
  }
  if (auto known = catalog.check_region_name(region, Where{plan.file, 0, 0, opath + ".region"});
      !known) {
    problems.push_back(known.error());
  } else {
    const std::vector<std::string> regions = catalog.regions_for(size.name);
    const bool offered = std::any_of(regions.begin(), regions.end(), [&](const std::string& r) {
      return strings::fold(r) == strings::fold(region);
    });
    if (!offered) {
      std::string where_offered;
      for (const std::string& r : regions) where_offered += (where_offered.empty() ? "" : ", ") + r;
      problems.push_back(
          Error{ErrorCode::kNotFound,
                size.name + " is not offered in " + region + " (the catalog lists it in " +
                    (regions.empty() ? std::string("no region") : where_offered) +
                    "; `gpuplan catalog --series " + size.series + " --include-retired`)",
                Where{plan.file, 0, 0, opath + ".region"}});
    }
  }
  if (size.status == catalog::SizeStatus::kRetired) {
    problems.push_back(Error{
        ErrorCode::kNotFound,
        size.name + " was retired on " + size.retire_date +
            (catalog.today().empty() ? std::string() : " (today is " + catalog.today() + ")") +
            ": Azure no longer deploys it; plan the workload again",
        Where{plan.file, 0, 0, opath + ".size"}});
  }
  if (problems.empty()) return {};
  if (!options.skip_catalog_check) {
    Error e = problems.front();
    for (size_t i = 1; i < problems.size(); ++i) e.message += "; and " + problems[i].message;
    e.message += " (--skip-catalog-check deploys it anyway)";
    return tl::unexpected(e);
  }
  for (const Error& p : problems) {
    spec.warnings.push_back(
        p.where.field + ": " + p.message +
        " — deployed anyway (--skip-catalog-check); az vm create may refuse it");
  }
  return {};
}

// Step 4, the layout: InfiniBand sizes run the HPC image; several VMs form a
// scale set, kept close by a proximity placement group when they talk over
// IB. Arm64 sizes boot Canonical's arm64 image: the Ubuntu-HPC image is x64.
Status decide_layout(const PlanDocument& plan, const DeployOptions& options,
                     const catalog::VmSize& size, DeploySpec& spec) {
  const catalog::Os os = spec.option.os;
  spec.arm64 = catalog::is_arm64(size);
  if (spec.arm64 && os == catalog::Os::kWindows) {
    return failed_precondition(
        size.name +
            " is an Arm64 size (Grace CPUs): the Windows Server images gpuplan deploys "
            "are x64 only; plan it with os: linux",
        Where{plan.file, 0, 0, "options[" + std::to_string(options.option - 1) + "].os"});
  }
  spec.hpc_image = os == catalog::Os::kLinux && size.infiniband_gbps > 0 && !spec.arm64;
  spec.serving = is_serving(spec.workload_kind);
  // Serving gets a scale set even at one VM, so autoscale has something to scale.
  spec.scale_set = spec.option.count > 1 || spec.serving;
  spec.proximity_group = spec.scale_set && size.infiniband_gbps > 0;
  spec.image_urn = os == catalog::Os::kWindows ? kWindowsImage
                   : spec.arm64                ? kUbuntuArm64Image
                   : spec.hpc_image            ? kHpcImage
                                               : kUbuntuImage;
  spec.encryption_at_host = size.encryption_at_host;
  return {};
}

// Autostop (on by default for jobs that end, off for serving: its
// autoscale settings govern it) and the daily shutdown backstop.
Status decide_autostop(const DeployOptions& options, DeploySpec& spec) {
  // autoscale settings govern it).
  spec.autostop_minutes =
      options.autostop_minutes.value_or(spec.serving ? 0 : kDefaultAutostopMinutes);
  if (spec.autostop_minutes < 0 || spec.autostop_minutes > kMaxAutostopMinutes) {
    return invalid_argument(
        "--autostop must be 1-" + std::to_string(kMaxAutostopMinutes) + " minutes or 'off'",
        Where{"", 0, 0, "--autostop"});
  }
  const std::string& t = options.shutdown_time;
  if (t.size() != 4 || t.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(t.substr(0, 2)) > 23 || std::stoi(t.substr(2)) > 59) {
    return invalid_argument("'" + names::printable(t, 20) + "' is not a time HHMM (UTC), e.g. 2300",
                            Where{"", 0, 0, "--shutdown-time"});
  }
  spec.shutdown_time = t;
  spec.shutdown_backstop = !spec.serving && !spec.scale_set && spec.autostop_minutes > 0 &&
                           spec.option.hours <= kShutdownBackstopMaxJobHours;
  return {};
}

// Step 5: the GPU stack of the option's size; when there is none, the error
// points at the first option gpuplan can deploy, so the user is not stuck.
Result<Stack> deployable_stack(const PlanDocument& plan, const catalog::Catalog& catalog,
                               const StackMatrix& matrix, const DeployOptions& options,
                               const catalog::VmSize& size, catalog::Os os) {
  StackTarget target = deployment_target(size, catalog.find_gpu(size.gpu_model), os);
  auto stack = resolve_stack(matrix, target, StackRequest{});
  if (!stack) {
    Error e = stack.error();
    for (size_t i = 0; i < plan.options.size(); ++i) {
      const catalog::VmSize* other = catalog.find_size(plan.options[i].size);
      if (other == nullptr || other->driver == catalog::DriverKind::kAmd) continue;
      if (static_cast<int>(i) + 1 == options.option) break;
      e.message += "\nThe first option gpuplan can deploy is --option " + std::to_string(i + 1) +
                   " (" + std::to_string(plan.options[i].count) + " x " + other->name + " in " +
                   plan.options[i].region + ", " +
                   std::string(catalog::to_string(plan.options[i].pricing)) + ").";
      break;
    }
    return tl::unexpected(e);
  }
  return stack;
}

// Step 6: the resource names, from the workload's name.
void name_resources(DeploySpec& spec, catalog::Os os) {
  spec.prefix = sanitize_name(spec.workload_name);
  spec.resource_group = spec.prefix + "-rg";
  spec.vm_name = spec.prefix + (spec.scale_set ? "-vmss" : "-vm");
  if (os == catalog::Os::kWindows) {
    // Windows host names: at most 15 characters (scale sets: a 9-character prefix).
    std::string host = spec.prefix.substr(0, spec.scale_set ? 9 : 15);
    while (!host.empty() && host.back() == '-') host.pop_back();
    spec.computer_name = host;
  } else {
    spec.computer_name = spec.prefix;
  }
}

// Step 7: the data disk: --data-disk-gib, else the plan's, else the disk the
// plan prices by default.
Status decide_data_disk(const PlanDocument& plan, const DeployOptions& options, DeploySpec& spec) {
  if (options.data_disk_gib) {
    spec.data_disk_gib = *options.data_disk_gib;
    spec.data_disk_source = "--data-disk-gib";
  } else if (plan.data_disk_gib) {
    spec.data_disk_gib = *plan.data_disk_gib;
    spec.data_disk_source = "plan";
  } else {
    // The disk the plan prices by default (cost::data_disk: one function for both).
    auto rates = cost::Rates::load_embedded();
    if (!rates) return tl::unexpected(rates.error());
    GPUPLAN_TRY(cost::DataDisk disk, cost::data_disk(*rates, std::nullopt));
    spec.data_disk_gib = disk.gib;
    spec.data_disk_source = "default";
    spec.notes.push_back("data disk: " + strings::fixed(disk.gib, 0) + " GiB Premium SSD (" +
                         disk.sku + ", " + disk.tier +
                         ") per VM (the plan's default; it names none)");
  }
  if (spec.data_disk_gib < 4 || spec.data_disk_gib > 32767 ||
      spec.data_disk_gib != std::floor(spec.data_disk_gib)) {
    return invalid_argument("data disk must be a whole number of GiB in 4-32767",
                            Where{"", 0, 0, "--data-disk-gib"});
  }
  return {};
}

// The notes deploy prints about what it decided: disks, security,
// autostop and shutdown, autoscale, quota.
void add_decision_notes(const catalog::VmSize& size, DeploySpec& spec) {
  spec.notes.push_back(
      "OS disk: 128 GiB Premium SSD per VM (room for the CUDA toolkit and PyTorch)");
  spec.notes.push_back(spec.security_note);
  if (spec.autostop_minutes > 0) {
    spec.notes.push_back(
        "autostop: the VM deallocates itself after " + std::to_string(spec.autostop_minutes) +
        " minutes without GPU work, a login or " +
        (spec.option.os == catalog::Os::kWindows ? std::string("C:\\gpuplan\\busy")
                                                 : std::string(internal::kAutostopBusyFile)) +
        " (--autostop MINUTES|off); its identity gets Virtual Machine Contributor on itself only");
  } else {
    spec.notes.push_back(spec.serving
                             ? "autostop: off for serving (autoscale.json governs the fleet)"
                             : "autostop: off (--autostop off)");
  }
  if (!spec.scale_set && spec.autostop_minutes > 0) {
    spec.notes.push_back(
        std::string("daily auto-shutdown at ") + spec.shutdown_time + " UTC (backstop): " +
        (spec.shutdown_backstop ? "enabled (the job is expected to end within " +
                                      strings::fixed(kShutdownBackstopMaxJobHours, 0) + " h)"
                                : "in the template but disabled: the job runs " +
                                      strings::fixed(spec.option.hours, 0) +
                                      " h and a daily shutdown would cut it; set "
                                      "autoShutdownStatus=Enabled to use it"));
  }
  if (!spec.encryption_at_host && spec.security_type != SecurityType::kConfidentialVm) {
    spec.notes.push_back(size.name +
                         " does not support encryption at host; disks use "
                         "platform-managed encryption at rest only");
  }
  if (spec.serving) {
    spec.notes.push_back(
        "autoscale.json: the simulator's azure-autoscale rules (default "
        "settings); capacity 1.." +
        std::to_string(2 * spec.option.count) + " VMs, starting at the plan's " +
        std::to_string(spec.option.count) +
        "; the serving engine must publish the gpuplan/serving metrics");
  }
  // The budget window (budget.json): Monthly resets when the work spans months.
  const internal::BudgetWindow window = internal::budget_window(spec);
  if (window.months > 1) {
    spec.notes.push_back(
        "budget: " + window.start + " to " + window.end + " (the work, started " +
        spec.work_start_date + ", may run " + strings::fixed(window.worst_hours, 0) +
        " h at the plan's high end, until " + window.last_work_day +
        "); its grain is Monthly, so each calendar month's spend is compared with the amount "
        "(one month's cost at the high end) on its own and the alerts start again on each "
        "month's first");
  }
  if (!spec.option.quota_ok) {
    spec.notes.push_back(
        "the plan says quota is short for this option; request it first "
        "(see the plan's quota_requests)");
  }
}

}  // namespace

Result<DeploySpec> make_deploy_spec(const PlanDocument& plan, const catalog::Catalog& catalog,
                                    const StackMatrix& matrix, const DeployOptions& options) {
  // 1. The option.
  if (plan.options.empty()) {
    return failed_precondition(plan.file +
                               " has no feasible option to deploy (its options[] is "
                               "empty; see its dropped[] for why)");
  }
  if (options.option < 1 || options.option > static_cast<int>(plan.options.size())) {
    return invalid_argument("option " + std::to_string(options.option) +
                                " does not exist: " + plan.file + " has " +
                                std::to_string(plan.options.size()) + " option(s), numbered from 1",
                            Where{"", 0, 0, "--option"});
  }
  DeploySpec spec;
  spec.plan_file = plan.file;
  spec.option_index = options.option;
  spec.option = plan.options[static_cast<size_t>(options.option - 1)];
  spec.workload_name = plan.workload_name;
  spec.workload_kind = spec.option.kind.empty() ? plan.workload_kind : spec.option.kind;
  // The names written into the generated files: checked here as well as where
  // they were read, so no caller can hand a generator shell or template syntax.
  const std::string opath = "options[" + std::to_string(options.option - 1) + "]";
  GPUPLAN_RETURN_IF_ERROR(
      names::check_region(spec.option.region, Where{plan.file, 0, 0, opath + ".region"}));
  GPUPLAN_RETURN_IF_ERROR(
      names::check_size(spec.option.size, Where{plan.file, 0, 0, opath + ".size"}));

  // 2. SSH access: a CIDR, or an explicit "from anywhere".
  GPUPLAN_RETURN_IF_ERROR(decide_ssh(options, spec));
  if (!options.ssh_public_key_file.empty()) {
    GPUPLAN_RETURN_IF_ERROR(check_ssh_public_key_file(options.ssh_public_key_file));
    spec.ssh_public_key_file = options.ssh_public_key_file;
  }
  GPUPLAN_RETURN_IF_ERROR(check_budget_start_date(options.start_date, options.today));
  spec.start_date = options.start_date;
  // The work starts today when the budget starts this month, else (a budget
  // for a later month) on that month's first.
  spec.work_start_date =
      options.today.size() == 10 && options.today.substr(0, 7) == options.start_date.substr(0, 7)
          ? options.today
          : options.start_date;

  // 3. The size and its GPU.
  const catalog::VmSize* size = catalog.find_size(spec.option.size);
  if (size == nullptr) {
    return not_found(
        "size '" + spec.option.size + "' of option " + std::to_string(options.option) +
            " is not in the catalog",
        Where{plan.file, 0, 0, "options[" + std::to_string(options.option - 1) + "].size"});
  }
  spec.size = *size;
  const catalog::Os os = spec.option.os;
  GPUPLAN_RETURN_IF_ERROR(check_option_in_catalog(plan, catalog, options, *size, spec));

  // 4. Layout: image, scale set, placement.
  GPUPLAN_RETURN_IF_ERROR(decide_layout(plan, options, *size, spec));

  GPUPLAN_RETURN_IF_ERROR(decide_autostop(options, spec));
  spec.gpus_per_vm = size->gpu_count < 1 ? 1 : static_cast<int>(std::lround(size->gpu_count));

  // 5. The GPU stack.
  GPUPLAN_TRY(spec.stack, deployable_stack(plan, catalog, matrix, options, *size, os));
  if (spec.arm64) add_arm64_notes(spec);
  // Security: the type, Secure Boot and vTPM, which the stack's driver decides too.
  decide_security(spec);

  // 6. Names.
  name_resources(spec, os);
  // 7. Data disk, then the notes on what was decided.
  GPUPLAN_RETURN_IF_ERROR(decide_data_disk(plan, options, spec));
  add_decision_notes(*size, spec);
  return spec;
}

}  // namespace gpuplan::deploy
