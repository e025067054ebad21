// gpuplan's charts, drawn with Chart.js (Debian's libjs-chart.js, 3.9): the
// web page's plan, estimate and simulation views, and the self-contained
// HTML file of `gpuplan simulate --plot`, which embeds this file. Every chart
// has axis titles with units and a legend; every number comes from the API's
// JSON, changed at most in unit (a fraction as %, SLO misses as 1 - attainment).
"use strict";

(function () {
  const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
                  "#17becf", "#7f7f7f", "#bcbd22"];
  const usd = (v) => "$" + Number(v).toLocaleString("en-US", {maximumFractionDigits: v < 10 ? 2 : 0});
  const available = () => typeof window.Chart !== "undefined";

  // A canvas in a box of the given height (CSS px), appended to `parent`.
  function canvasIn(parent, height, label) {
    const box = document.createElement("div");
    box.className = "chart";
    box.style.height = height + "px";
    const canvas = document.createElement("canvas");
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", label);
    box.appendChild(canvas);
    parent.appendChild(box);
    return canvas;
  }

  function axis(title, log, extra) {
    return Object.assign({type: log ? "logarithmic" : "linear", title: {display: true, text: title}},
                         extra || {});
  }

  // Whether values spread over more than `ratio` (then a log axis reads better).
  function wide(values, ratio) {
    const pos = values.filter((v) => v > 0);
    return pos.length > 1 && Math.max(...pos) / Math.min(...pos) > ratio;
  }

  // Options every chart shares. A title too long for a narrow box breaks
  // after its colon (or before a parenthesis) rather than shrinking.
  function base(title, parent) {
    const narrow = parent && parent.clientWidth < 600;
    const text = narrow ? title.split(/(?<=:) | (?=\()/) : title;
    return {
      responsive: true, maintainAspectRatio: false, animation: false,
      plugins: {title: {display: true, text, font: {size: narrow ? 13 : 14}},
                legend: {display: true, position: "bottom"}},
    };
  }

  function destroyIn(container) {
    for (const c of container.querySelectorAll("canvas")) {
      const chart = available() ? Chart.getChart(c) : null;
      if (chart) chart.destroy();
    }
    container.innerHTML = "";
  }

  const short = (size) => String(size).replace(/^Standard_/, "");
  const optionLabel = (o) => `${short(o.size)} x${o.count} ${o.region} ${o.pricing}`;

  // The plan's cost-time trade-off: the Pareto frontier (a line, fastest to
  // cheapest), the ranked options and the chosen one; hours on x, USD on y.
  function frontier(parent, plan) {
    const pt = (o) => ({x: o.hours, y: o.cost_usd, o});
    const all = [...(plan.frontier || []), ...(plan.options || [])];
    const canvas = canvasIn(parent, 340, "cost-time frontier");
    const cfg = base("Cost–time frontier: expected cost against wall-clock hours", parent);
    // Room around the extreme points, so that none sits half outside the plot.
    const hours = all.map((o) => o.hours).filter((h) => h > 0);
    const logX = wide(hours, 20);
    const xPad = logX ? {min: Math.min(...hours) / 1.25, max: Math.max(...hours) * 1.25} : {grace: "5%"};
    cfg.scales = {
      x: axis("wall-clock hours (h), expected", logX, Object.assign({}, xPad, logX ? {} : {beginAtZero: false})),
      y: axis("total cost (USD), expected", wide(all.map((o) => o.cost_usd), 20),
              {ticks: {callback: (v) => usd(v)}}),
    };
    cfg.plugins.tooltip = {callbacks: {label: (c) =>
      `${optionLabel(c.raw.o)}: ${usd(c.raw.y)}, ${Number(c.raw.x).toFixed(1)} h`}};
    const datasets = [
      {label: "Pareto frontier", data: (plan.frontier || []).map(pt), showLine: true,
       borderColor: COLORS[0], backgroundColor: COLORS[0], pointRadius: 4},
      {label: "ranked options", data: (plan.options || []).slice(1).map(pt),
       borderColor: COLORS[4], backgroundColor: COLORS[4], pointRadius: 4, pointStyle: "rect"},
    ];
    if (plan.options && plan.options.length)
      datasets.push({label: "chosen (rank 1)", data: [pt(plan.options[0])], borderColor: COLORS[1],
                     backgroundColor: COLORS[1], pointRadius: 8, pointStyle: "star"});
    return new Chart(canvas, {type: "scatter", data: {datasets}, options: cfg});
  }

  // One size's price per VM-hour in every region (GET /api/prices):
  // horizontal bars, pay-as-you-go and spot, cheapest pay-as-you-go first.
  function regionPrices(parent, prices, highlight) {
    const rows = prices.regions.filter((r) => r.prices.payg || r.prices.spot);
    const key = (r) => (r.prices.payg || r.prices.spot).usd_per_hour;
    rows.sort((a, b) => key(a) - key(b));
    const canvas = canvasIn(parent, 80 + 16 * rows.length, "price by region");
    const cfg = base(`Price per VM-hour by region: ${short(prices.size)}, ${prices.os}`, parent);
    cfg.indexAxis = "y";
    cfg.scales = {x: axis("USD per VM-hour", false, {ticks: {callback: (v) => usd(v)}}),
                  y: {ticks: {autoSkip: false, font: {size: 10}}}};
    const bar = (name, color) => ({
      label: name, backgroundColor: rows.map((r) => r.region === highlight ? "#111" : color),
      data: rows.map((r) => (r.prices[name] ? r.prices[name].usd_per_hour : null)),
    });
    cfg.plugins.tooltip = {callbacks: {footer: (items) => {
      const p = rows[items[0].dataIndex].prices[items[0].dataset.label];
      return p ? `${p.estimated ? "estimated" : "listed"} ${p.as_of}: ${p.source}` : "";
    }}};
    return new Chart(canvas, {type: "bar", options: cfg,
                              data: {labels: rows.map((r) => r.region),
                                     datasets: [bar("payg", COLORS[0]), bar("spot", COLORS[2])]}});
  }

  // An option's cost lines (compute, licence, disks, egress...), USD.
  function costBreakdown(parent, option) {
    const lines = (option.cost_lines || []).filter((l) => l.usd !== 0);
    const canvas = canvasIn(parent, 70 + 28 * lines.length, "cost breakdown");
    const cfg = base(`Cost breakdown (USD): ${optionLabel(option)}`, parent);
    cfg.indexAxis = "y";
    cfg.plugins.legend.display = false;
    cfg.scales = {x: axis("USD", false, {ticks: {callback: (v) => usd(v)}})};
    return new Chart(canvas, {type: "bar", options: cfg, data: {
      labels: lines.map((l) => l.name),
      datasets: [{label: "USD", data: lines.map((l) => l.usd), backgroundColor: COLORS[0]}]}});
  }

  // Estimate: hours to finish (or capacity, for serving) of the options that fit.
  function estimateBars(parent, est) {
    const fit = (est.options || []).filter((o) => o.fits);
    const serving = est.kind === "infer";
    const value = (o) => (serving ? o.throughput : o.hours);
    fit.sort((a, b) => (serving ? value(b) - value(a) : value(a) - value(b)));
    const rows = fit.slice(0, 15);
    const canvas = canvasIn(parent, 80 + 20 * rows.length, "estimate");
    const unit = serving ? (rows[0] ? rows[0].throughput_unit : "requests/s") : "h";
    const cfg = base(serving ? `Capacity within the SLO (${unit}), best 15`
                             : "Wall-clock hours to finish, fastest 15 that fit", parent);
    cfg.indexAxis = "y";
    cfg.plugins.legend.display = false;
    cfg.scales = {x: axis(serving ? unit : "hours (h)", wide(rows.map(value), 50)),
                  y: {ticks: {autoSkip: false, font: {size: 10}}}};
    return new Chart(canvas, {type: "bar", options: cfg, data: {
      labels: rows.map((o) => `${o.size.replace("Standard_", "")} x${o.count}`),
      datasets: [{label: serving ? unit : "hours", data: rows.map(value),
                  backgroundColor: COLORS[0]}]}});
  }

  // Simulation: one line per policy over time, and bars comparing policies.
  function series(parent, timeline, field, title, yTitle, onlyFirst, extra) {
    const names = [...new Set(timeline.points.map((p) => p.policy))];
    const datasets = names.slice(0, onlyFirst ? 1 : names.length).map((n, i) => ({
      label: onlyFirst ? "demand (same for every policy)" : n,
      data: timeline.points.filter((p) => p.policy === n && p[field] != null)
        .map((p) => ({x: p.t_hours, y: p[field]})),
      borderColor: COLORS[i % COLORS.length], backgroundColor: COLORS[i % COLORS.length],
      borderWidth: 1.5, pointRadius: 0, stepped: field === "replicas",
    }));
    for (const d of extra || []) datasets.push(d);
    const canvas = canvasIn(parent, 260, title);
    const cfg = base(title, parent);
    cfg.parsing = false;
    cfg.scales = {x: axis("simulated time (hours)", false), y: axis(yTitle, false, {beginAtZero: true})};
    cfg.plugins.tooltip = {mode: "nearest", intersect: false};
    return new Chart(canvas, {type: "line", data: {datasets}, options: cfg});
  }

  // One bar per policy of `value(row)`, for the rows where `field` is known.
  function policyBars(parent, report, field, title, xTitle, value) {
    const rows = report.policies.filter((p) => p[field] != null);
    const canvas = canvasIn(parent, 70 + 30 * rows.length, title);
    const cfg = base(title, parent);
    cfg.indexAxis = "y";
    cfg.plugins.legend.display = false;
    cfg.scales = {x: axis(xTitle, false, {beginAtZero: true})};
    return new Chart(canvas, {type: "bar", options: cfg, data: {
      labels: rows.map((p) => p.policy),
      datasets: [{label: xTitle, data: rows.map(value || ((p) => p[field])),
                  backgroundColor: rows.map((p, i) => (p.policy === "optimal" ? "#999" :
                                                         COLORS[i % COLORS.length]))}]}});
  }

  // The simulation view: `report` is `simulate --json`, `timeline` its
  // timeline (`--timeline X.json`) or null.
  function simulation(parent, report, timeline) {
    const charts = [];
    const serving = report.kind === "serving", reserve = report.kind === "reserve";
    charts.push(policyBars(parent, report, "cost_usd", "Cost by policy (mean of runs, USD)", "USD"));
    // Misses rather than attainment: 99.5 % and 99.9 % look alike on a bar
    // from zero, 0.5 % and 0.1 % do not.
    const missed = (field) => (p) => (1 - p[field]) * 100;
    if (serving)
      charts.push(policyBars(parent, report, "slo_attainment",
                             "Requests that missed the SLO, by policy (%)", "% of requests",
                             missed("slo_attainment")));
    else if (!reserve)
      charts.push(policyBars(parent, report, "deadline_met_fraction",
                             "Runs that missed the deadline, by policy (%)", "% of runs",
                             missed("deadline_met_fraction")));
    if (!timeline || !timeline.points.length) return charts;
    const demandTitle = serving ? "Demand over time (requests/s)"
                      : reserve ? "VMs in use over time" : "Progress over time (hours of work done)";
    charts.push(series(parent, timeline, "demand", demandTitle, timeline.demand_unit, serving));
    charts.push(series(parent, timeline, "replicas",
                       serving ? "Replicas billed over time (VMs)"
                       : reserve ? "Reservations held over time (VMs)"
                                 : "VM running over time (1 = running)",
                       serving ? "VMs billed" : reserve ? "reserved VMs" : "VMs running"));
    if (serving) {
      // Each policy's 99th percentile (solid) and mean (dashed) per interval.
      const latency = (p99, mean, title) => {
        const names = [...new Set(timeline.points.map((p) => p.policy))];
        const dashed = names.map((n, i) => ({
          label: n + " (mean)", borderDash: [4, 3], borderWidth: 1, pointRadius: 0,
          borderColor: COLORS[i % COLORS.length], backgroundColor: COLORS[i % COLORS.length],
          data: timeline.points.filter((p) => p.policy === n && p[mean] != null)
            .map((p) => ({x: p.t_hours, y: p[mean]})),
        }));
        return series(parent, timeline, p99, title, "ms", false, dashed);
      };
      charts.push(latency("ttft_p99_ms", "ttft_mean_ms",
                          "Latency over time: time to first token per interval, p99 (solid) " +
                          "and mean (dashed), ms"));
      charts.push(latency("tpot_p99_ms", "tpot_mean_ms",
                          "Latency over time: time per output token per interval, p99 (solid) " +
                          "and mean (dashed), ms"));
      // Where the attainment budget went: a p99 over the target says little
      // (1 % of requests may miss), the count of misses says when and how many.
      charts.push(series(parent, timeline, "missed",
                         "Requests that missed the SLO over time (per interval)", "requests"));
    }
    charts.push(series(parent, timeline, "cost_usd", "Cumulative cost over time (USD)", "USD"));
    return charts;
  }

  window.gpuplanCharts = {available, destroyIn, frontier, regionPrices, costBreakdown,
                          estimateBars, simulation};
})();
