#!/usr/bin/env python3
"""Writes the report fixtures (run from this folder; the outputs are checked in).

November 2026 (the 1st is a Sunday), eastus, four things to find or not find:
  steady-a100  Standard_NC24ads_A100_v4, 24 h every day on reservation res-a100,
               which it uses fully: no finding.
  train-h100   Standard_NC40ads_H100_v5 on demand, Monday 2nd to Friday 6th is the
               plan's 120 h, then left on over the weekend (7th, 8th): beyond-plan.
  dev-a100     Standard_NC24ads_A100_v4 on demand 8 h each weekday, 24 h on
               Wednesday the 18th: anomaly.
  res-h100     a reservation for Standard_NC40ads_H100_v5 nobody uses: unused.
Prices are the catalog's eastus payg list prices (2026-05-20) and its estimated
reserved-1y prices, as `gpuplan cost SIZE --region eastus` prints them.
"""
H100, A100 = "Standard_NC40ads_H100_v5", "Standard_NC24ads_A100_v4"
PAYG = {H100: 6.98, A100: 3.673}
RES = {H100: 4.565, A100: 2.402}
SUB = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/ml/providers/"


def rid(vm):
    return SUB + "Microsoft.Compute/virtualMachines/" + vm


def res_id(name):
    return "/providers/Microsoft.Capacity/reservationOrders/" + name + "/reservations/1"


def charges():
    out = []  # (day, vm, size, pricing, hours, amortized cost, commitment, kind)
    for d in range(1, 31):
        out.append((d, "steady-a100", A100, "committed", 24, 24 * RES[A100], "res-a100", "usage"))
        weekend = d % 7 in (0, 1)
        if 2 <= d <= 8:
            out.append((d, "train-h100", H100, "payg", 24, 24 * PAYG[H100], "", "usage"))
        if d >= 2 and not weekend:
            h = 24 if d == 18 else 8
            out.append((d, "dev-a100", A100, "payg", h, h * PAYG[A100], "", "usage"))
        out.append((d, "", H100, "committed", 24, 24 * RES[H100], "res-h100", "unused"))
    out.append((1, "", A100, "committed", 0, 720 * RES[A100], "res-a100", "purchase"))
    out.append((1, "", H100, "committed", 0, 720 * RES[H100], "res-h100", "purchase"))
    return out


def money(v):
    return f"{v:.4f}"


def focus(path):
    with open(path, "w") as w:
        w.write("BilledCost,EffectiveCost,BillingCurrency,ChargeCategory,ChargeFrequency,"
                "ChargePeriodStart,ChargePeriodEnd,CommitmentDiscountId,CommitmentDiscountName,"
                "CommitmentDiscountStatus,CommitmentDiscountType,ConsumedQuantity,ConsumedUnit,"
                "PricingCategory,RegionId,RegionName,ResourceId,ResourceName,ResourceType,"
                "ServiceName,x_SkuMeterName,x_SkuDetails\n")
        for d, vm, size, pricing, hours, cost, com, kind in charges():
            day = f"2026-11-{d:02d}"
            meter = size[9:].replace("_", " ")
            details = '"{""ServiceType"":""' + size + '""}"'
            cid = res_id(com) if com else ""
            cat = {"committed": "Committed", "spot": "Dynamic"}.get(pricing, "Standard")
            r = rid(vm) if vm else res_id(com)
            if kind == "purchase":
                w.write(f"{money(cost)},0,USD,Purchase,Recurring,{day}T00:00:00Z,"
                        f"2026-12-01T00:00:00Z,{cid},{com},,Reservation,1,,Committed,eastus,"
                        f"East US,{r},{com},,Virtual Machines,{meter},{details}\n")
                continue
            billed = 0 if pricing == "committed" else cost
            status = {"unused": "Unused"}.get(kind, "Used") if com else ""
            qty = 24 if kind == "unused" else hours
            w.write(f"{money(billed)},{money(cost)},USD,Usage,Usage-Based,{day}T00:00:00Z,"
                    f"2026-11-{d:02d}T23:59:59Z,{cid},{com},{status},"
                    f"{'Reservation' if com else ''},{qty},Hours,{cat},eastus,East US,{r},"
                    f"{vm or com},Virtual machine,Virtual Machines,{meter},{details}\n")


def azure(path):
    """Actual cost: reservation-covered hours at $0, the purchase its own row,
    no unused rows (those exist only in amortized cost)."""
    with open(path, "w") as w:
        w.write("Date,MeterCategory,MeterSubCategory,MeterName,ResourceId,ResourceLocation,"
                "Quantity,UnitOfMeasure,CostInBillingCurrency,BillingCurrency,PricingModel,"
                "ChargeType,Frequency,ReservationId,ReservationName,ProductName,AdditionalInfo\n")
        for d, vm, size, pricing, hours, cost, com, kind in charges():
            if kind == "unused":
                continue
            day = f"11/{d:02d}/2026"
            if kind == "purchase":
                # The product name of a reservation purchase names the size.
                w.write(f"{day},,,,{res_id(com)},eastus,1,,{money(cost)},USD,Reservation,"
                        f"Purchase,Recurring,{res_id(com)},{com},"
                        f"\"Reserved VM Instance, {size}, US East, 1 Year\",\n")
                continue
            committed = pricing == "committed"
            model = "Reservation" if committed else "OnDemand"
            meter = size[9:].replace("_", " ")
            w.write(f"{day},Virtual Machines,NC Series,{meter},{rid(vm)},EastUS,{hours},1 Hour,"
                    f"{money(0 if committed else cost)},USD,{model},Usage,UsageBased,"
                    f"{res_id(com) if committed else ''},{com},Virtual Machines NC Series,"
                    f"\"{{\"\"ServiceType\"\": \"\"{size}\"\", \"\"VCPUs\"\": 24}}\"\n")


if __name__ == "__main__":
    focus("focus_month.csv")
    azure("azure_month.csv")
