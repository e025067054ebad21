#!/usr/bin/env python3
"""Writes a synthetic cost export for the report benchmark: hourly rows for
VMS GPU VMs over DAYS days (a month of 1,000 VMs is 720 k rows, DESIGN.md's
target), in FOCUS 1.0 columns (--format focus) or Azure's actual-cost columns
(--format azure). Prices are placeholders: the benchmark measures reading,
not money. Every 10th VM also bills a data disk per day (a second meter)."""
import argparse
import sys

SIZES = ["Standard_NC40ads_H100_v5", "Standard_NC24ads_A100_v4", "Standard_ND96isr_H100_v5",
         "Standard_NV36ads_A10_v5"]
RATE = [6.98, 3.67, 98.32, 3.2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vms", type=int, default=1000)
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--format", choices=["focus", "azure"], default="focus")
    ap.add_argument("out")
    a = ap.parse_args()
    w = open(a.out, "w", buffering=1 << 20)
    sub = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/bench/providers/"
    if a.format == "focus":
        w.write("BilledCost,EffectiveCost,BillingCurrency,ChargeCategory,ChargeFrequency,"
                "ChargePeriodStart,ChargePeriodEnd,CommitmentDiscountId,CommitmentDiscountStatus,"
                "ConsumedQuantity,ConsumedUnit,PricingCategory,RegionId,ResourceId,ResourceName,"
                "ServiceName,SubAccountId,x_SkuMeterName,x_SkuDetails\n")
    else:
        w.write("Date,MeterCategory,MeterSubCategory,MeterName,ResourceId,ResourceLocation,"
                "Quantity,UnitOfMeasure,CostInBillingCurrency,BillingCurrency,PricingModel,"
                "ChargeType,Frequency,ReservationId,ReservationName,AdditionalInfo\n")
    for d in range(a.days):
        day = f"2026-11-{d + 1:02d}" if a.days <= 30 else f"2026-{11 + d // 30:02d}-{d % 30 + 1:02d}"
        for h in range(24):
            for v in range(a.vms):
                size = SIZES[v % len(SIZES)]
                rate = RATE[v % len(RATE)]
                rid = f"{sub}Microsoft.Compute/virtualMachines/vm-{v:04d}"
                meter = size[9:].replace("_", " ")
                if a.format == "focus":
                    w.write(f"{rate},{rate},USD,Usage,Usage-Based,{day}T{h:02d}:00:00Z,"
                            f"{day}T{h:02d}:59:59Z,,,1,Hours,Standard,eastus,{rid},vm-{v:04d},"
                            f"Virtual Machines,0000,{meter},"
                            f"\"{{\"\"ServiceType\"\":\"\"{size}\"\",\"\"VCPUs\"\":40}}\"\n")
                else:
                    mdy = day[5:7] + "/" + day[8:10] + "/" + day[0:4]
                    w.write(f"{mdy},Virtual Machines,NC Series,{meter},{rid},EastUS,1,1 Hour,"
                            f"{rate},USD,OnDemand,Usage,UsageBased,,,"
                            f"\"{{\"\"ServiceType\"\": \"\"{size}\"\"}}\"\n")
                if h == 0 and v % 10 == 0:
                    if a.format == "focus":
                        w.write(f"0.65,0.65,USD,Usage,Usage-Based,{day}T00:00:00Z,{day}T23:59:59Z,"
                                f",,1,Disk/Month,Standard,eastus,{rid},vm-{v:04d},Storage,0000,"
                                f"P20 LRS Disk,\n")
                    else:
                        mdy = day[5:7] + "/" + day[8:10] + "/" + day[0:4]
                        w.write(f"{mdy},Storage,Premium SSD Managed Disks,P20 LRS Disk,{rid},"
                                f"EastUS,0.0333,1/Month,0.65,USD,OnDemand,Usage,UsageBased,,,\n")
    w.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
