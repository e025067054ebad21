// The data pipeline check: can the storage feed the winner's GPUs?
//
// Problem. A GPU waiting on input is billed all the same. The planner sizes
// the GPUs for the model's arithmetic; nothing checked that the data arrives
// as fast as they consume it.
//
// Approach (training and fine-tuning; serving and batch say nothing about
// their input's size). The GPUs consume
//   bytes/s = tokens/s x bytes_per_token              (pre-tokenized text), or
//           = tokens/s / seq_len x data.bytes_per_sample (images, clips, ...)
// with tokens/s the estimator's throughput for the option. Each VM reads its
// share from its own data disk — the Premium SSD that cost::data_disk picks
// and deploy builds — whose provisioned throughput is a per-tier figure
// (rates.csv disk_premium_ssd_tier_mbps, Azure's Premium SSD size table).
// Without a data disk the VMs read Blob directly, and the account's egress
// limit (rates.csv blob_account_egress_gbps: 200 Gbps in the large regions,
// 50 Gbps elsewhere, Azure's standard-account scale targets) bounds them all
// together. When demand exceeds supply the plan warns with the fixes and
// their cost: stage the dataset to the size's local temporary (NVMe) disk
// when it fits (no extra cost), a larger Premium SSD tier that delivers the
// rate (its monthly price), Premium SSD v2 provisioned at the rate (price per
// MB/s above the free baseline; zonal VMs only), or more parallel Blob
// readers. Data in another region than the compute is also a warning: its
// transfer is in the bill and the fix is to copy it once beforehand.
//
// Trade-offs: the VM size's own uncached disk throughput cap and its network
// bandwidth are not in the catalog, so a disk that passes here can still be
// capped by the VM; the warning errs on the side of the disk's own figure.
#include <algorithm>
#include <cmath>

#include "core/format.h"
#include "core/strings.h"
#include "plan/internal/planner.h"

namespace gpuplan::plan::internal {
namespace {

using strings::fixed;

std::string mbps(double v) { return fixed(v, v >= 100 ? 0 : 1) + " MB/s"; }

// The fixes for a data disk too slow for `need_per_vm` MB/s, each with its
// cost: stage to the size's temporary disk when the dataset fits, a faster
// Premium SSD tier, Premium SSD v2 at the rate, more parallel Blob readers.
std::vector<std::string> data_disk_fixes(const cost::Rates& rates, const catalog::VmSize* size,
                                         const cost::DataDisk& disk, const std::string& region,
                                         double need_per_vm, double dataset_gb) {
  std::vector<std::string> fixes;
  if (size != nullptr && size->temp_disk_gib * 1.073741824 >= dataset_gb) {
    fixes.push_back("stage the dataset (" + fixed(dataset_gb, 0) + " GB) to the local " +
                    fixed(size->temp_disk_gib, 0) + " GiB temporary disk of " + size->name +
                    " at start-up (no extra cost; it is erased on deallocation)");
  }
  for (const cost::Rate* r : rates.all_named("disk_premium_ssd_tier_mbps")) {
    if (r->value < need_per_vm) continue;
    const cost::Rate* gib = rates.find("disk_premium_ssd_tier_gib", r->key);
    const cost::Rate* price = rates.find("disk_premium_ssd_usd_per_month", r->key, region);
    const cost::Rate* now = rates.find("disk_premium_ssd_usd_per_month", disk.tier, region);
    if (gib == nullptr) break;
    std::string fix = "a " + r->key + " data disk (--data-disk-gib " + fixed(gib->value, 0) + ", " +
                      mbps(r->value) + ")";
    if (price != nullptr && now != nullptr) {
      fix += ": +" + format::usd(price->value - now->value) + " a month per VM";
    }
    fixes.push_back(fix);
    break;
  }
  const cost::Rate* v2_free = rates.find("disk_premium_ssd_v2_free_mbps");
  const cost::Rate* v2_mbps = rates.find("disk_premium_ssd_v2_usd_per_mbps_month", "", region);
  if (v2_free != nullptr && v2_mbps != nullptr) {
    const double extra = std::max(0.0, std::ceil(need_per_vm) - v2_free->value) * v2_mbps->value;
    fixes.push_back("Premium SSD v2 provisioned at " + mbps(std::ceil(need_per_vm)) + " (" +
                    format::usd(extra) + " a month per VM for the MB/s above the free " +
                    fixed(v2_free->value, 0) + "; zonal VMs only, which deploy does not build)");
  }
  fixes.push_back(
      "read from Blob with more parallel readers (DataLoader workers, "
      "blobfuse2 block cache)");
  return fixes;
}

// What the winner's GPUs consume: MB/s per VM, how that figure was reached
// (for the messages), and the dataset's size in GB.
struct DataDemand {
  double need_per_vm = 0;
  std::string basis;
  double dataset_gb = 0;
};

DataDemand data_demand(const workload::Workload& w, const Option& best, double bytes_per_token) {
  DataDemand d;
  const double seq_len = std::max(1, w.data.seq_len);
  const double bytes_per_s = w.data.bytes_per_sample
                                 ? best.throughput / seq_len * *w.data.bytes_per_sample
                                 : best.throughput * bytes_per_token;
  d.need_per_vm = bytes_per_s / best.count / 1e6;  // MB/s
  d.basis = w.data.bytes_per_sample
                ? fixed(best.throughput / seq_len, 1) + " samples/s x " +
                      fixed(*w.data.bytes_per_sample / 1e6, 3) + " MB (data.bytes_per_sample)"
                : fixed(best.throughput, 0) + " tokens/s x " + fixed(bytes_per_token, 0) +
                      " bytes (bytes_per_token)";
  // The dataset one VM must hold to read it locally.
  const double epochs = w.data.epochs > 0 ? w.data.epochs : 1;
  const double samples = w.total_tokens() / epochs / seq_len;
  d.dataset_gb = (w.data.bytes_per_sample ? samples * *w.data.bytes_per_sample
                                          : w.total_tokens() / epochs * bytes_per_token) /
                 1e9;
  return d;
}

}  // namespace

void Planner::check_data_pipeline(const Plan& plan) {
  using workload::Kind;
  if (plan.options.empty() || (w_.kind != Kind::kTrain && w_.kind != Kind::kFinetune)) return;
  const Option& best = plan.options.front();

  // Data in another region: the transfer is billed on every run.
  if (!data_region_.empty() && best.region != data_region_) {
    for (const cost::CostLine& l : best.lines) {
      if (l.name != "data transfer" || l.usd <= 0) continue;
      warnings_.push_back("the data lives in " + data_region_ + " and the top option runs in " +
                          best.region + ": the run pays " + format::usd(l.usd) +
                          " to move it; copy it once to " + best.region +
                          " (Blob or the data disk) before runs that repeat, or choose an option "
                          "in " +
                          data_region_);
    }
  }

  if (best.throughput_unit != "tokens/s" || best.throughput <= 0 || best.count < 1) return;
  const cost::Rate* bpt = rates_.find("bytes_per_token");
  if (bpt == nullptr) return;
  const DataDemand demand = data_demand(w_, best, bpt->value);
  const double need_per_vm = demand.need_per_vm;
  const std::string& basis = demand.basis;
  const double dataset_gb = demand.dataset_gb;
  const catalog::VmSize* size = catalog_.find_size(best.size);

  auto disk = cost::data_disk(rates_, usage_.data_disk_gib);
  if (!disk || disk->gib <= 0) {
    // No data disk: every VM reads Blob; the account's egress bounds them all.
    const cost::Rate* egress = rates_.find("blob_account_egress_gbps", "", best.region);
    if (egress == nullptr) return;
    const double supply = egress->value * 1e9 / 8 / 1e6;  // Gbps -> MB/s
    const double need = need_per_vm * best.count;
    if (w_.data.bytes_per_sample || need > supply) {
      add_assumption("data_pipeline",
                     "the GPUs read " + mbps(need) + " (" + basis +
                         ") from Blob; a storage "
                         "account delivers up to " +
                         mbps(supply),
                     egress->source);
    }
    if (need > supply) {
      warnings_.push_back("the GPUs would read " + mbps(need) +
                          " from Blob, above one storage "
                          "account's " +
                          fixed(egress->value, 0) +
                          " Gbps egress: spread the "
                          "dataset over several accounts, or ask Azure Support for a higher "
                          "limit");
    }
    return;
  }
  const cost::Rate* tier_mbps = rates_.find("disk_premium_ssd_tier_mbps", disk->tier);
  if (tier_mbps == nullptr) return;
  const double supply = tier_mbps->value;
  // Said when the user described the samples, or when it fails: pre-tokenized
  // text needs a few MB/s, which any disk delivers.
  if (w_.data.bytes_per_sample || need_per_vm > supply) {
    add_assumption("data_pipeline",
                   "each VM's GPUs read " + mbps(need_per_vm) + " (" + basis + ", over " +
                       std::to_string(best.count) + " VM" + (best.count > 1 ? "s" : "") +
                       "); its " + disk->tier + " data disk delivers " + mbps(supply),
                   tier_mbps->source);
  }
  if (need_per_vm <= supply) return;

  // The fixes, each with its cost.
  const std::vector<std::string> fixes =
      data_disk_fixes(rates_, size, *disk, best.region, need_per_vm, dataset_gb);
  std::string text = "the data cannot keep up: each VM's GPUs read " + mbps(need_per_vm) + " (" +
                     basis + ") but its " + disk->tier + " data disk delivers " + mbps(supply) +
                     ", so the GPUs would wait on input about " +
                     fixed((1 - supply / need_per_vm) * 100, 0) + "% of the time. Fix: ";
  for (size_t i = 0; i < fixes.size(); ++i) text += (i ? "; or " : "") + fixes[i];
  warnings_.push_back(text);
}

}  // namespace gpuplan::plan::internal
