// Interconnect model: what a collective or a point-to-point transfer costs on
// the links a VM size has.
//
// Problem: tensor parallelism inside a VM, and pipeline and data parallelism
// across VMs, are only as fast as the links they run over. A flat per-layer
// penalty (the estimator once charged ~680 µs per layer for tensor
// parallelism over PCIe) is wrong by an order of magnitude at batch 1, where
// the messages are a few kilobytes and latency, not bandwidth, decides.
//
// Approach: every link is (bandwidth per GPU and direction, per-hop latency),
// and a collective costs what NCCL's own tuning model says it costs
// (NVIDIA/nccl src/graph/tuning.cc, ncclTopoTuneModel):
//
//     ring all-reduce of B bytes over n ranks
//         = base + 2(n−1)·hop  +  2(n−1)/n · B / bandwidth
//
// evaluated for NCCL's low-latency protocol (LL: base 3.6 µs, hops NVLink
// 0.47 / PCIe 1.0 / network 2.7 µs, a quarter of the bandwidth) and for its
// bulk protocol (Simple: base 8.4 µs, hops 3.4 / 5.7 / 9.6 µs, full
// bandwidth); like NCCL, the cheaper of the two is used. A pipeline send is
// one hop: latency + B / bandwidth.
//
// Links (one direction, per GPU):
//  * NVLink / Infinity Fabric: half the catalog's bidirectional per-GPU
//    figure (V100 SXM2 300, A100 600, H100/H200 900 GB/s; MI300X 896 GB/s
//    aggregate) — NVIDIA and AMD datasheets via data/catalog/gpus.csv;
//  * PCIe: the GPU's host interface from its datasheet — Gen3 x16 32 GB/s
//    bidirectional (T4, V100 PCIe, M60, P40, MI25), Gen4 x16 64 GB/s (A10,
//    A100 PCIe, V620, V710), Gen5 x16 128 GB/s (H100 NVL, RTX PRO 6000);
//    peer-to-peer traffic crosses the host bridge, so GPUs in one VM share
//    it;
//  * InfiniBand: the catalog's infiniband_gbps per VM (Azure ND sizes: one
//    NIC per GPU, 200 Gb/s HDR on A100 v4, 400 Gb/s NDR on H100/H200/MI300X
//    v5), GPUDirect RDMA, NCCL's network hop latency;
//  * Ethernet (sizes without InfiniBand): the size's network bandwidth from
//    the Azure size documentation (MicrosoftDocs azure-compute-docs, per
//    series page; e.g. NC80adis_H100_v5 80,000 Mb/s), shared by the VM's
//    GPUs, over TCP: NCCL's socket transport adds the kernel network stack,
//    ~45 µs one way between VMs with accelerated networking in a proximity
//    placement group (0.09 ms round trip measured, Telstra Purple 2020,
//    "0.09 ms latency using Azure Proximity Placement Groups").
// Every link runs at 80 % of its rate for large transfers: PCIe's 128b/130b
// encoding and TLP headers leave ~80-85 % (PCI-SIG; NVIDIA's
// p2pBandwidthLatencyTest reads ~25 of 32 GB/s on Gen4 x16), and NCCL's own
// model caps an 8×A100 NVLink ring at 235 of 300 GB/s (tuning.cc, compCap80).
//
// Trade-offs: no tree or NVLS algorithms (rings are NCCL's choice for the
// large gradient buckets and for 2-8 ranks), no contention between tensor-
// and data-parallel traffic, and a VM's Ethernet is assumed to reach its
// documented rate between two VMs of one placement group.
#include <algorithm>
#include <cmath>
#include <map>

#include "core/strings.h"
#include "estimate/internal/physics.h"

namespace gpuplan::estimate::internal {

namespace {

// NCCL tuning.cc (ring): base latency and per-hop latencies in µs.
constexpr double kLlBaseUs = 3.6, kSimpleBaseUs = 8.4;
constexpr double kLlHopUs[] = {0.47, 1.0, 2.7};  // NVLink, PCIe, network
constexpr double kSimpleHopUs[] = {3.4, 5.7, 9.6};
// NCCL LL protocol: a quarter of the bus bandwidth (8-byte lines with flags).
constexpr double kLlBandwidthShare = 0.25;
// Achieved share of a link's rate for large transfers (see the essay).
constexpr double kLinkEfficiency = 0.8;
// Extra one-way latency of TCP between Azure VMs (see the essay), µs.
constexpr double kTcpHopUs = 45.0;

int hop_kind(LinkKind k) {
  switch (k) {
    case LinkKind::kNvlink:
      return 0;
    case LinkKind::kPcie:
      return 1;
    case LinkKind::kInfiniband:
    case LinkKind::kEthernet:
      return 2;
  }
  return 2;
}

// PCIe generation of a GPU's host interface (NVIDIA/AMD datasheets).
int pcie_generation(const std::string& gpu) {
  static const std::map<std::string, int> kGen = {{"T4", 3},
                                                  {"V100-16GB", 3},
                                                  {"V100-32GB", 3},
                                                  {"M60", 3},
                                                  {"P40", 3},
                                                  {"MI25", 3},
                                                  {"A10", 4},
                                                  {"A100-80GB-PCIe", 4},
                                                  {"A100-40GB-SXM", 4},
                                                  {"A100-80GB-SXM", 4},
                                                  {"V620", 4},
                                                  {"V710", 4},
                                                  {"H100-NVL", 5},
                                                  {"H100-SXM", 5},
                                                  {"H200-SXM", 5},
                                                  {"RTX-PRO-6000", 5},
                                                  {"MI300X", 5},
                                                  {"GB200", 5},
                                                  {"GB300", 5}};
  auto it = kGen.find(gpu);
  return it == kGen.end() ? 4 : it->second;
}

// Azure network bandwidth per VM, Mb/s, for sizes without InfiniBand
// (MicrosoftDocs azure-compute-docs, the series' size pages; copied with
// their commits in ../shared/data/azure/sizes.csv, column network_bw_mbps).
double ethernet_mbps(const std::string& size) {
  static const std::map<std::string, double> kMbps = {
      {"Standard_NC4as_T4_v3", 8000},
      {"Standard_NC8as_T4_v3", 8000},
      {"Standard_NC16as_T4_v3", 8000},
      {"Standard_NC64as_T4_v3", 32000},
      {"Standard_NC24ads_A100_v4", 20000},
      {"Standard_NC48ads_A100_v4", 40000},
      {"Standard_NC96ads_A100_v4", 80000},
      {"Standard_NC40ads_H100_v5", 40000},
      {"Standard_NC80adis_H100_v5", 80000},
      {"Standard_NCC40ads_H100_v5", 40000},
      {"Standard_NC128ds_xl_RTXPRO6000BSE_v6", 75000},
      {"Standard_NC128lds_xl_RTXPRO6000BSE_v6", 75000},
      {"Standard_NC256ds_xl_RTXPRO6000BSE_v6", 100000},
      {"Standard_NC256lds_xl_RTXPRO6000BSE_v6", 100000},
      {"Standard_NC320ds_xl_RTXPRO6000BSE_v6", 200000},
      {"Standard_NC320lds_xl_RTXPRO6000BSE_v6", 200000},
      {"Standard_NV12s_v3", 6000},
      {"Standard_NV24s_v3", 12000},
      {"Standard_NV48s_v3", 24000},
      {"Standard_NV36ads_A10_v5", 40000},
      {"Standard_NV36adms_A10_v5", 80000},
      {"Standard_NV72ads_A10_v5", 80000},
      {"Standard_NV24ads_V710_v5", 20000},
      {"Standard_NV28adms_V710_v5", 20000},
      {"Standard_NG32ads_V620_v1", 40000},
      {"Standard_NG32adms_V620_v1", 40000}};
  auto it = kMbps.find(size);
  return it == kMbps.end() ? 0 : it->second;
}

// Unknown sizes (the NCv3 pages do not state a figure): 10 Gb/s, printed as assumed.
constexpr double kDefaultEthernetMbps = 10000;

}  // namespace

Link intra_vm_link(const catalog::Gpu& gpu, bool nvlink) {
  Link l;
  if (nvlink && gpu.interconnect_gbs > 0) {
    l.kind = LinkKind::kNvlink;
    l.gbs = gpu.interconnect_gbs / 2 * kLinkEfficiency;
    l.name = (gpu.vendor == "AMD" ? "Infinity Fabric " : "NVLink ") +
             strings::fixed(gpu.interconnect_gbs, 0) + " GB/s per GPU";
    l.source = "GPU datasheet (data/catalog/gpus.csv); 80 % achieved (NCCL tuning.cc)";
    return l;
  }
  const int gen = pcie_generation(gpu.model);
  const double bidir = gen == 3 ? 32 : gen == 4 ? 64 : 128;
  l.kind = LinkKind::kPcie;
  l.gbs = bidir / 2 * kLinkEfficiency;
  l.name = "PCIe Gen" + std::to_string(gen) + " x16 (" + strings::fixed(bidir, 0) +
           " GB/s bidirectional)";
  l.source =
      gpu.model + " datasheet host interface; 80 % achieved (PCI-SIG encoding, TLP overhead)";
  return l;
}

Link inter_vm_link(const catalog::VmSize& size) {
  Link l;
  const double gpus = std::max(1.0, size.gpu_count);
  if (size.infiniband_gbps > 0) {
    l.kind = LinkKind::kInfiniband;
    l.gbs = size.infiniband_gbps / 8.0 / gpus * kLinkEfficiency;
    l.name = "InfiniBand " + strings::fixed(size.infiniband_gbps, 0) + " Gb/s per VM";
    l.source = "catalog (VM size); NCCL network hop latency (tuning.cc)";
    return l;
  }
  double mbps = ethernet_mbps(size.name);
  l.kind = LinkKind::kEthernet;
  l.assumed = mbps <= 0;
  if (l.assumed) mbps = kDefaultEthernetMbps;
  l.gbs = mbps / 8000.0 / gpus * kLinkEfficiency;
  l.name = "Ethernet " + strings::fixed(mbps / 1000, 0) + " Gb/s per VM (TCP, no RDMA)";
  l.source = l.assumed ? "assumed: the size's network bandwidth is not documented"
                       : "Azure size documentation (network bandwidth); TCP latency ~45 µs one "
                         "way (Telstra Purple 2020, proximity placement group)";
  return l;
}

Link data_parallel_link(const Link& intra, const Link& inter, int ranks_per_vm) {
  // NCCL builds one ring (channel) per NIC and routes each through every GPU
  // of the VM over the intra-VM links, so the inter-VM hops of the group's
  // rings together use ranks_per_vm NICs' shares (nccl-tests bus bandwidth
  // on multi-node DGX systems is the node's NIC total, not one GPU's share).
  Link l = inter;
  const int r = std::max(1, ranks_per_vm);
  l.gbs = std::min(inter.gbs * r, std::max(inter.gbs, intra.gbs));
  if (r > 1) l.name += " (" + std::to_string(r) + " GPUs of a VM in the ring, one ring per NIC)";
  return l;
}

CollectiveCost allreduce_cost(int ranks, const Link& link, bool low_latency) {
  if (ranks <= 1) return {};
  const int h = hop_kind(link.kind);
  const double hops = 2.0 * (ranks - 1);
  const double tcp = link.kind == LinkKind::kEthernet ? kTcpHopUs : 0;
  const double bw = link.gbs * 1e9 * (low_latency ? kLlBandwidthShare : 1.0);
  const double base = low_latency ? kLlBaseUs : kSimpleBaseUs;
  const double hop = (low_latency ? kLlHopUs[h] : kSimpleHopUs[h]) + tcp;
  return {(base + hops * hop) * 1e-6, hops / ranks / bw};
}

double allreduce_seconds(double bytes, int ranks, const Link& link) {
  if (ranks <= 1 || bytes <= 0) return 0;
  return std::min(allreduce_cost(ranks, link, true).at(bytes),
                  allreduce_cost(ranks, link, false).at(bytes));
}

double send_seconds(double bytes, const Link& link) {
  if (bytes <= 0) return 0;
  const int h = hop_kind(link.kind);
  const double tcp = link.kind == LinkKind::kEthernet ? kTcpHopUs : 0;
  return (kSimpleHopUs[h] + tcp) * 1e-6 + bytes / (link.gbs * 1e9);
}

}  // namespace gpuplan::estimate::internal
