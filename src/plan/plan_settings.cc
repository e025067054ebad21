// The planner's settings: what the command line (PlanOptions), the workload's
// constraints and data/cost/rates.csv say, resolved once before the pass —
// OS and licence, spot, pricing models, deadline, budget, node-count limits,
// the cost model's Usage (setup, evictions, disks, billing, data moved) — and
// each value used recorded as an Assumption with where it came from, so no
// number in a plan is silently assumed.
#include <algorithm>
#include <cmath>
#include <utility>

#include "core/format.h"
#include "core/strings.h"
#include "plan/internal/planner.h"

namespace gpuplan::plan::internal {

using catalog::Os;
using strings::fixed;

Status Planner::settle() {
  GPUPLAN_RETURN_IF_ERROR(check_options());
  GPUPLAN_RETURN_IF_ERROR(settle_os_spot_limits());
  GPUPLAN_RETURN_IF_ERROR(settle_usage());
  GPUPLAN_RETURN_IF_ERROR(settle_data_moved());
  GPUPLAN_RETURN_IF_ERROR(settle_blob());
  add_assumption("hours",
                 "wall-clock = setup + the estimator's hours of work (+ spot eviction stretch)",
                 "docs/cost.md");
  return {};
}

void Planner::add_assumption(std::string name, std::string value, std::string source) {
  assumptions_.push_back({std::move(name), std::move(value), std::move(source)});
}

std::string Planner::rate_source(std::string_view name, std::string_view key) const {
  const cost::Rate* r = rates_.find(name, key);
  return r ? "data/cost/rates.csv " + std::string(name) + " (" + r->source + ")" : std::string();
}

std::string Planner::workload_source() const { return w_.file.empty() ? "workload" : w_.file; }

Status Planner::check_options() const {
  if (opt_.top < 1) return invalid_argument("--top must be at least 1");
  // The high end of the eviction band is the pessimistic one (docs/cost.md);
  // one given alone moves the other with it (settle_usage), both given
  // upside down is an error, not a band to fix silently.
  if (opt_.eviction_rate && opt_.eviction_rate_high &&
      *opt_.eviction_rate_high < *opt_.eviction_rate)
    return invalid_argument("the high eviction rate " + strings::general(*opt_.eviction_rate_high) +
                                " is below the expected one " +
                                strings::general(*opt_.eviction_rate),
                            Where{"", 0, 0, "--eviction-rate-high"});
  // A service runs for serving.duration_hours: it has no deadline (the
  // workload's deadline_hours is refused by the workload's parser).
  if (w_.kind == workload::Kind::kInfer && opt_.deadline_hours)
    return invalid_argument(
        "a service has no deadline: it runs for serving.duration_hours; set that in the "
        "workload instead",
        Where{"", 0, 0, "--deadline-hours"});
  if (opt_.max_count < 1) return invalid_argument("the most VMs per option must be at least 1");
  if (opt_.utilization && (*opt_.utilization <= 0 || *opt_.utilization > 1)) {
    return invalid_argument("--utilization must be in (0, 1]");
  }
  for (const auto& [name, v] : {std::pair{"--eviction-rate", opt_.eviction_rate},
                                {"--restart-hours", opt_.restart_hours},
                                {"--checkpoint-hours", opt_.checkpoint_hours},
                                {"--setup-hours", opt_.setup_hours},
                                {"--data-disk-gib", opt_.data_disk_gib},
                                {"--egress-gb", opt_.egress_gb},
                                {"--dataset-gb", opt_.dataset_gb},
                                {"--blob-gb", opt_.blob_gb},
                                {"--blob-usd-per-gb-month", opt_.blob_usd_per_gb_month},
                                {"--billing-minimum-seconds", opt_.billing_minimum_seconds},
                                {"--eviction-rate-high", opt_.eviction_rate_high}}) {
    if (v && (*v < 0 || !std::isfinite(*v))) {
      return invalid_argument(std::string(name) + " cannot be negative");
    }
  }
  return {};
}

// OS and licence, spot and pricing models, deadline, budget and limits.
Status Planner::settle_os_spot_limits() {
  const workload::Constraints& k = w_.constraints;
  const std::string wfile = workload_source();
  GPUPLAN_TRY(os_, opt_.os ? Result<Os>(*opt_.os) : catalog::parse_os(k.os));
  hybrid_ = opt_.hybrid_benefit.value_or(k.hybrid_benefit);
  add_assumption("os", std::string(catalog::to_string(os_)), opt_.os ? "--os" : wfile);
  if (os_ == Os::kWindows) {
    add_assumption("hybrid_benefit", hybrid_ ? "yes: Windows VMs pay the Linux compute rate" : "no",
                   opt_.hybrid_benefit ? "--hybrid-benefit" : wfile);
  }
  spot_allowed_ = opt_.allow_spot.value_or(k.spot != workload::Spot::kNever);
  add_assumption("spot", spot_allowed_ ? std::string(workload::to_string(k.spot)) : "never",
                 opt_.allow_spot ? "--no-spot" : wfile);
  if (opt_.pricings.empty()) {
    pricings_.assign(std::begin(catalog::kAllPricing), std::end(catalog::kAllPricing));
  } else {
    pricings_ = opt_.pricings;
  }
  deadline_ = opt_.deadline_hours ? opt_.deadline_hours : k.deadline_hours;
  budget_ = opt_.budget_usd ? opt_.budget_usd : k.budget_usd;
  add_assumption("deadline", deadline_ ? hours_text(*deadline_) + " h" : "none",
                 opt_.deadline_hours ? "--deadline-hours" : wfile);
  add_assumption("budget", budget_ ? format::usd(*budget_) : "none",
                 opt_.budget_usd ? "--budget" : wfile);
  // Node counts: --max-nodes, else the workload's max_nodes, else the
  // default cap — each honoured as given, never capped silently.
  const bool from_workload = !opt_.max_count_given && k.max_nodes > 0;
  max_count_ = from_workload ? k.max_nodes : opt_.max_count;
  if (max_count_ > kMaxVmsPerOption) {
    return invalid_argument(
        std::string(from_workload ? "" : "--max-nodes ") + std::to_string(max_count_) +
            " is above " + std::to_string(kMaxVmsPerOption) +
            ", the most VMs one scale set holds; split the work or lower it",
        Where{from_workload ? wfile : "", 0, 0, from_workload ? "constraints.max_nodes" : ""});
  }
  max_gpus_ = k.max_gpus;
  add_assumption("node counts", "1.." + std::to_string(max_count_) + " VMs per option",
                 opt_.max_count_given ? "--max-nodes"
                 : from_workload      ? wfile + " (max_nodes)"
                                 : "gpuplan default (at most " + std::to_string(opt_.max_count) +
                                       "; constraints.max_nodes or --max-nodes raise it)");
  if (max_gpus_ > 0) add_assumption("max_gpus", std::to_string(max_gpus_), wfile);
  if (!k.series.empty()) {
    std::string list;
    for (const std::string& s : k.series) list += (list.empty() ? "" : ", ") + s;
    add_assumption("series", list, wfile);
  }
  data_region_ = strings::to_lower(k.data_region);
  confidential_ = k.confidential;
  horizon_weeks_ = opt_.horizon_weeks.value_or(k.horizon_weeks);
  if (horizon_weeks_ < 1 || horizon_weeks_ > workload::kMaxHorizonWeeks) {
    return invalid_argument("--horizon-weeks must be 1.." +
                            std::to_string(workload::kMaxHorizonWeeks));
  }
  if (w_.data.growth_per_week > 0) {
    add_assumption("growth",
                   percent(w_.data.growth_per_week) + " a week over " +
                       std::to_string(horizon_weeks_) + " weeks (compounded continuously)",
                   opt_.horizon_weeks ? "--horizon-weeks" : wfile);
  }
  if (confidential_) {
    add_assumption("confidential",
                   "yes: only confidential-computing sizes (NCC*) are offered, as Confidential VMs",
                   wfile + " (constraints.confidential)");
  }
  return {};
}

// The cost model's Usage: rates.csv defaults, then the command line.
Status Planner::settle_usage() {
  GPUPLAN_TRY(usage_, cost::default_usage(rates_));
  GPUPLAN_TRY(const cost::Rate* lic, rates_.require("windows_licence_usd_per_vcpu_hour"));
  licence_per_vcpu_ = lic->value;
  usage_.os = os_;
  usage_.hybrid_benefit = hybrid_;
  if (opt_.eviction_rate) usage_.eviction.rate_per_hour = *opt_.eviction_rate;
  if (opt_.eviction_rate_high) usage_.eviction.rate_high_per_hour = *opt_.eviction_rate_high;
  usage_.eviction.rate_high_per_hour =
      std::max(usage_.eviction.rate_high_per_hour, usage_.eviction.rate_per_hour);
  if (opt_.restart_hours) usage_.eviction.restart_hours = *opt_.restart_hours;
  if (opt_.checkpoint_hours) {
    usage_.eviction.checkpoint_interval_hours = *opt_.checkpoint_hours;
  } else if (w_.constraints.checkpoint_hours) {
    usage_.eviction.checkpoint_interval_hours = *w_.constraints.checkpoint_hours;
  }
  if (opt_.setup_hours) usage_.setup_hours = *opt_.setup_hours;
  if (opt_.data_disk_gib) usage_.data_disk_gib = *opt_.data_disk_gib;
  if (opt_.billing_minimum_seconds) usage_.billing_minimum_seconds = *opt_.billing_minimum_seconds;
  usage_.utilization = opt_.utilization;
  bool serving = w_.kind == workload::Kind::kInfer;
  bool independent = w_.kind == workload::Kind::kBatch;
  usage_.eviction.gang = !independent;
  usage_.eviction.stretches_hours = !serving;
  if (serving) usage_.eviction.checkpoint_interval_hours = 0;
  // Batch items are independent: what an eviction loses is the item in
  // flight on the VM, not half of a training checkpoint interval (it was
  // charged "half a 1 h checkpoint" for 2.5-s images). Unless given, the
  // "interval" is one item's time on the option's own worker (set_work):
  // the reference GPU's time undercharged a 1/6 slice, where a 1-h frame
  // takes 6 h, by a factor of six.
  batch_items_ = independent && !opt_.checkpoint_hours && !w_.constraints.checkpoint_hours &&
                 w_.batch.seconds_per_item > 0;
  if (batch_items_) usage_.eviction.checkpoint_interval_hours = w_.batch.seconds_per_item / 3600;
  rates_overridden_ = opt_.eviction_rate || opt_.eviction_rate_high;
  usage_.eviction.basis =
      rates_overridden_
          ? std::string("--eviction-rate / --eviction-rate-high (replaces Azure's bands)")
          : "gpuplan's default, no Azure eviction band imported for this size and region (risk "
            "unknown)";
  base_eviction_ = usage_.eviction;
  settle_usage_assumptions();
  return {};
}

void Planner::set_work(const estimate::Estimate& e) {
  usage_.work_hours = e.hours;
  if (batch_items_ && e.item_hours > 0) usage_.eviction.checkpoint_interval_hours = e.item_hours;
}

void Planner::settle_usage_assumptions() {
  const bool serving = w_.kind == workload::Kind::kInfer;
  add_assumption("setup_hours",
                 hours_text(usage_.setup_hours) + " h per VM launch (billed, no work)",
                 opt_.setup_hours ? "--setup-hours" : rate_source("setup_hours"));
  if (spot_allowed_) {
    const std::string per_vm = usage_.eviction.gang ? " (any VM's eviction stops a multi-VM job)"
                                                    : " (VMs evicted independently)";
    if (rates_overridden_) {
      add_assumption(
          "eviction_rate",
          fixed(usage_.eviction.rate_per_hour, 3) + " per VM-hour" + per_vm +
              ", for every size and region (Azure's bands not used)",
          opt_.eviction_rate ? "--eviction-rate" : rate_source("spot_eviction_rate_per_hour"));
      add_assumption("eviction_rate_high",
                     fixed(usage_.eviction.rate_high_per_hour, 3) + " per VM-hour (cost_high)",
                     opt_.eviction_rate_high ? "--eviction-rate-high"
                                             : rate_source("spot_eviction_rate_high_per_hour"));
    } else {
      add_assumption("eviction_rate",
                     "Azure's eviction band of each size and region where imported (percent of "
                     "VMs evicted within an hour; rate = -ln(1 - p) at the band's middle, its "
                     "upper edge for cost_high: docs/cost.md)" +
                         per_vm,
                     "gpuplan catalog import spot (Azure Resource Graph SpotResources)");
      add_assumption(
          "eviction_rate_default",
          fixed(usage_.eviction.rate_per_hour, 3) + "-" +
              fixed(usage_.eviction.rate_high_per_hour, 3) +
              " per VM-hour where no band was imported (spot risk 'unknown')",
          rate_source("spot_eviction_rate_per_hour") + "; --eviction-rate, --eviction-rate-high");
    }
    add_assumption("restart_hours", hours_text(usage_.eviction.restart_hours) + " h per eviction",
                   opt_.restart_hours ? "--restart-hours" : rate_source("spot_restart_hours"));
    if (!serving) {
      add_assumption(
          "checkpoint_interval",
          batch_items_ ? "one item's time on each option's GPU or slice (" +
                             hours_text(w_.batch.seconds_per_item / 3600) + " h on " +
                             w_.batch.reference_gpu + "); half is lost per eviction on average"
                       : hours_text(usage_.eviction.checkpoint_interval_hours) +
                             " h (half is lost per eviction on average)",
          opt_.checkpoint_hours             ? "--checkpoint-hours"
          : w_.constraints.checkpoint_hours ? workload_source() + " (constraints.checkpoint_hours)"
          : batch_items_ ? "batch.seconds_per_item over the option's spec ratio: items are "
                           "independent, an eviction loses the one in flight"
                         : rate_source("checkpoint_interval_hours"));
    }
  }
  add_assumption("utilization",
                 opt_.utilization
                     ? percent(*opt_.utilization) + " of a reservation/savings plan term"
                     : "reservations and savings plans serve this work only (the whole "
                       "term is paid)",
                 opt_.utilization ? "--utilization" : "gpuplan default");
  add_assumption(
      "billing",
      "per second, minimum " + fixed(usage_.billing_minimum_seconds, 0) + " s per launch",
      opt_.billing_minimum_seconds ? "--billing-minimum-seconds"
                                   : rate_source("billing_minimum_seconds"));
  add_assumption("os_disk", "Premium SSD " + usage_.os_disk_tier + " per VM",
                 rate_source("os_disk_tier", "P10"));
  // Named data_disk_gib with the size first: deploy reads it back from the
  // plan's JSON and builds this disk (cost::data_disk, the one definition).
  auto disk = cost::data_disk(rates_, usage_.data_disk_gib);
  add_assumption("data_disk_gib",
                 usage_.data_disk_gib > 0 && disk
                     ? fixed(disk->gib, 0) + " GiB Premium SSD (" + disk->sku + ", billed as " +
                           disk->tier + ") per VM, the disk gpuplan deploy builds"
                     : "none",
                 opt_.data_disk_gib ? "--data-disk-gib" : rate_source("data_disk_gib"));
}

// Data moved: responses to the internet (serving) and the dataset from the
// workload's data_region to the option's region (training, fine-tuning).
Status Planner::settle_data_moved() {
  const bool serving = w_.kind == workload::Kind::kInfer;
  if (opt_.egress_gb) {
    usage_.egress_internet_gb = *opt_.egress_gb;
    add_assumption("egress_internet", fixed(*opt_.egress_gb, 0) + " GB", "--egress-gb");
  } else if (serving && w_.serving.request_rate > 0) {
    GPUPLAN_TRY(const cost::Rate* bpt, rates_.require("bytes_per_token"));
    double gb = w_.serving.request_rate * w_.serving.duration_hours * 3600.0 *
                w_.serving.output_tokens.mean * bpt->value / 1e9;
    usage_.egress_internet_gb = gb;
    add_assumption("egress_internet",
                   fixed(gb, 1) + " GB of responses (" + fixed(w_.serving.request_rate, 1) +
                       " req/s x " + hours_text(w_.serving.duration_hours) + " h x " +
                       fixed(w_.serving.output_tokens.mean, 0) + " tokens x " +
                       fixed(bpt->value, 0) + " bytes)",
                   rate_source("bytes_per_token"));
  }
  if (data_region_.empty()) return {};
  usage_.data_region = data_region_;
  if (opt_.dataset_gb) {
    usage_.transfer_gb = *opt_.dataset_gb;
    add_assumption("dataset", fixed(*opt_.dataset_gb, 0) + " GB moved from " + data_region_,
                   "--dataset-gb");
  } else if (w_.kind == workload::Kind::kTrain || w_.kind == workload::Kind::kFinetune) {
    GPUPLAN_TRY(const cost::Rate* bpt, rates_.require("bytes_per_token"));
    if (w_.data.bytes_per_sample) {
      const double samples = w_.total_tokens() / std::max(1, w_.data.seq_len);
      usage_.transfer_gb = samples * *w_.data.bytes_per_sample / 1e9;
      add_assumption("dataset",
                     fixed(usage_.transfer_gb, 1) + " GB moved from " + data_region_ +
                         " to other regions (" + fixed(samples / 1e6, 2) + " M samples x " +
                         fixed(*w_.data.bytes_per_sample, 0) + " bytes)",
                     "data.bytes_per_sample");
      return {};
    }
    usage_.transfer_gb = w_.total_tokens() * bpt->value / 1e9;
    add_assumption("dataset",
                   fixed(usage_.transfer_gb, 1) + " GB moved from " + data_region_ +
                       " to other regions (" + fixed(w_.total_tokens() / 1e9, 2) + " B tokens x " +
                       fixed(bpt->value, 0) + " bytes)",
                   rate_source("bytes_per_token"));
  }
  return {};
}

// Blob storage for the job's data while it runs: for training and
// fine-tuning the dataset (one epoch's tokens at bytes_per_token) and the
// latest checkpoint (estimate::checkpoint_bytes: trainable weights and
// optimizer states); for serving the model's weights, which every replica
// loads from the account. Batch work says nothing about its items' size, so
// it has Blob only with --blob-gb. Priced by --blob-usd-per-gb-month, else
// by an imported Retail Prices Storage page (the option's region); otherwise
// a warning and the line say "no listed price".
Status Planner::settle_blob() {
  using workload::Kind;
  usage_.blob_tier = opt_.blob_tier.value_or("hot");
  usage_.blob_usd_per_gb_month = opt_.blob_usd_per_gb_month;
  if (opt_.blob_usd_per_gb_month) usage_.blob_price_source = "--blob-usd-per-gb-month";
  std::string source;
  if (opt_.blob_gb) {
    usage_.blob_gb = *opt_.blob_gb;
    usage_.blob_what = "given";
    source = "--blob-gb";
  } else if (w_.kind == Kind::kTrain || w_.kind == Kind::kFinetune) {
    GPUPLAN_TRY(const cost::Rate* bpt, rates_.require("bytes_per_token"));
    const double epochs = w_.data.epochs > 0 ? w_.data.epochs : 1;
    // One epoch's data: samples x data.bytes_per_sample when given, else tokens x bytes_per_token.
    const double epoch_bytes =
        w_.data.bytes_per_sample
            ? w_.total_tokens() / epochs / std::max(1, w_.data.seq_len) * *w_.data.bytes_per_sample
            : w_.total_tokens() / epochs * bpt->value;
    const double dataset_gb = opt_.dataset_gb ? *opt_.dataset_gb : epoch_bytes / 1e9;
    const double checkpoint_gb = estimate::checkpoint_bytes(w_) / 1e9;
    usage_.blob_gb = dataset_gb + checkpoint_gb;
    usage_.blob_what = "dataset " + fixed(dataset_gb, 1) + " GB + latest checkpoint " +
                       fixed(checkpoint_gb, 1) + " GB";
    source = (opt_.dataset_gb            ? std::string("--dataset-gb; ")
              : w_.data.bytes_per_sample ? std::string("data.bytes_per_sample; ")
                                         : rate_source("bytes_per_token") + "; ") +
             "checkpoint = trainable weights + optimizer states (Rajbhandari et al. 2020 §3.1)";
  } else if (w_.kind == Kind::kInfer) {
    usage_.blob_gb = w_.model.params_b * workload::bytes_per_value(w_.precision);
    usage_.blob_what = "model weights";
    source = "parameters x bytes at the serving precision";
  }
  if (usage_.blob_gb <= 0) return {};
  usage_.blob_prices = catalog_.blob_prices();
  GPUPLAN_TRY(cost::BlobStorage blob, cost::blob_storage(usage_));
  if (!blob.priced && !usage_.blob_prices.empty()) {
    // Priced per option from the imported Retail Prices Storage page: each
    // option's cost line names its region's price, source and date.
    add_assumption("blob_storage",
                   fixed(blob.gb, blob.gb < 10 ? 1 : 0) + " GB " + blob.tier + " LRS Blob (" +
                       usage_.blob_what + ") at each option's region price from the imported " +
                       "Retail Prices Storage page (" + usage_.blob_prices.front().source + ")",
                   source);
    return {};
  }
  add_assumption("blob_storage", blob.basis, source);
  if (!blob.priced) {
    warnings_.push_back("Blob storage (" + fixed(blob.gb, 0) + " GB " + blob.tier +
                        ") has no listed price and is not in the costs; pass "
                        "--blob-usd-per-gb-month to include it");
  }
  return {};
}

}  // namespace gpuplan::plan::internal
