// gpuplan's web page: forms over the server's JSON API (src/server/server.h)
// and the answers as tables and charts (charts.js). Every figure shown is one
// the API returned; warnings and unknowns are shown as such, never hidden.
"use strict";

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s ?? "").replace(/[&<>"']/g,
  (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
const money = (v) => v == null ? "—" : "$" + Number(v).toLocaleString("en-US",
  {minimumFractionDigits: 2, maximumFractionDigits: 2});
const num = (v, d = 1) => v == null ? "—" : Number(v).toLocaleString("en-US",
  {minimumFractionDigits: d, maximumFractionDigits: d});
const pct = (v, d = 1) => v == null ? "—" : num(v * 100, d) + " %";
const short = (size) => String(size ?? "").replace(/^Standard_/, "");
const charts = () => window.gpuplanCharts && window.gpuplanCharts.available();

// A table in its own horizontally scrolling box, which a narrow screen shows
// as one card per row (style.css): `head` is a list of [title, class] and
// `rows` a list of rows, each a list of cell HTML, or {sub: HTML} for a line
// under the row above it that spans every column.
function table(head, rows, id) {
  const th = head.map(([t, c]) => `<th class="${c || ""}">${esc(t)}</th>`).join("");
  const body = rows.map((r) => r.sub !== undefined
    ? `<tr class="sub"><td colspan="${head.length}">${r.sub}</td></tr>`
    : `<tr>${r.map((cell, i) => `<td class="${head[i][1] || ""}" data-label="${esc(head[i][0])}">${cell}</td>`).join("")}</tr>`);
  return `<div class="scroll"${id ? ` id="${id}"` : ""}><table class="cards"><thead><tr>${th}</tr></thead>` +
         `<tbody>${body.join("")}</tbody></table></div>`;
}

async function api(url, options) {
  const res = await fetch(url, options);
  let body;
  try { body = await res.json(); } catch (e) { body = {error: {text: res.statusText}}; }
  return {ok: res.ok, body};
}

function errorBox(body) {
  return `<div class="error">${esc(body && body.error ? body.error.text : "request failed")}</div>`;
}

// On one column the answer is below the form: bring it into view.
function reveal(el) {
  if (window.matchMedia("(max-width: 959px)").matches) el.scrollIntoView({block: "start"});
}

// --- Plan --------------------------------------------------------------------

// Quota as the plan knows it: unknown (nothing imported) is not "ok".
function quotaBadge(o) {
  if (o.quota_known === false) return `<span class="badge unknown" title="no quota imported (gpuplan catalog import usage)">not checked</span>`;
  if (o.quota_ok === false) return `<span class="badge bad">needs quota</span>`;
  return `<span class="badge ok">within quota</span>`;
}

function riskBadge(o) {
  const r = o.spot_risk;
  if (!r) return "";
  const cls = r.level === "low" ? "ok" : r.level === "unknown" ? "unknown" : r.level === "high" ? "bad" : "warn";
  return `<span class="badge ${cls}" title="eviction rate ${esc(r.eviction_rate_per_hour)}/VM-hour (${esc(r.rate_basis)})">spot risk ${esc(r.level)}</span>`;
}

function optionWarnings(o) {
  return [...(o.price_warnings || []), ...(o.caveats || [])];
}

function optionRows(options) {
  return options.flatMap((o, i) => {
    const warns = optionWarnings(o);
    const notes = [o.why, o.fallback_for ? `fallback for another ${o.fallback_for}` : ""].filter(Boolean).join("; ");
    const range = o.cost_low_usd !== o.cost_high_usd
      ? `<div class="why">${money(o.cost_low_usd)}–${money(o.cost_high_usd)}</div>` : "";
    const row = [`${o.rank ?? i + 1}`, `<a href="#" class="size" data-i="${i}">${esc(short(o.size))}</a>`,
      esc(o.count), `${num(o.gpus, o.gpus % 1 ? 2 : 0)}× ${esc(o.gpu)}`, esc(o.region),
      `${esc(o.pricing)} <span class="why">${esc(o.os)}${o.hybrid_benefit ? " AHB" : ""}</span>` +
        (o.spot_risk ? `<div>${riskBadge(o)}</div>` : ""),
      num(o.hours), money(o.cost_usd) + range, money(o.usd_per_hour), quotaBadge(o)];
    const sub = (warns.length ? `<span class="badge warn">${warns.length} warning${warns.length > 1 ? "s" : ""}</span> ` +
                 `<span class="warn-text">${esc(warns.join(" "))}</span> ` : "") + `<span class="why">${esc(notes)}</span>`;
    return [row, {sub}];
  });
}

function optionTable(title, options, id) {
  if (!options || !options.length) return "";
  return `<h2>${esc(title)}</h2>` + table([["#", "num"], ["size", ""], ["VMs", "num"], ["GPUs", ""],
    ["region", ""], ["pricing", ""], ["hours", "num"], ["cost", "num"], ["$/hour", "num"],
    ["quota", ""]], optionRows(options), id) +
    `<p class="why">cost: expected; below it, with no eviction and at the high eviction rate (spot). $/hour: all VMs.</p>`;
}

function winnerCard(plan) {
  const o = plan.options[0];
  const p = o.price || {};
  return `<div class="winner" id="winner"><strong>${esc(short(o.size))} ×${esc(o.count)} in ${esc(o.region)}, ${esc(o.pricing)}</strong>:
    ${money(o.cost_usd)} expected over ${num(o.hours)} h (${money(o.usd_per_hour)}/h for all VMs). ${quotaBadge(o)} ${riskBadge(o)}
    <div class="why">${esc(o.why)}${o.layout ? " · " + esc(o.layout) : ""}</div>
    <div class="why">Price: ${money(p.usd_per_hour_vm)}/VM-hour, ${p.estimated ? "estimated (" + esc(p.rule) + ")" : "listed"} ${esc(p.as_of)}, ${esc(p.source)}</div></div>`;
}

function costLines(o) {
  if (!o.cost_lines || !o.cost_lines.length) return "";
  return `<h2>Cost breakdown of the chosen option</h2><div id="chart-cost"></div>` +
    table([["line", ""], ["USD", "num"], ["how", "wrap why"]],
      o.cost_lines.map((l) => [esc(l.name), money(l.usd), esc(l.assumption)])
        .concat([["<strong>total</strong>", `<strong>${money(o.cost_usd)}</strong>`, ""]]), "cost-lines");
}

function assumptionTable(list) {
  return table([["name", ""], ["value", "wrap"], ["source", "wrap why"]],
               list.map((a) => [esc(a.name), esc(a.value), esc(a.source)]));
}

function extraTables(plan) {
  let html = "";
  if (plan.dropped && plan.dropped.length)
    html += `<h2>Dropped candidates</h2>` + table([["reason", ""], ["count", "num"], ["example", "wrap why"]],
      plan.dropped.map((d) => [esc(d.reason), num(d.count, 0),
                               esc(typeof d.example === "string" ? d.example : JSON.stringify(d.example))]));
  if (plan.quota_requests && plan.quota_requests.length)
    html += `<h2>Quota requests that would unlock a better option</h2>` + table(
      [["family", ""], ["region", ""], ["new limit", "num"], ["saves", "num"], ["command", "wrap"]],
      plan.quota_requests.map((q) => [esc(q.family), esc(q.region), esc(q.new_limit), money(q.saves_usd),
                                      `<code>${esc(q.command)}</code>`]));
  if (plan.assumptions && plan.assumptions.length)
    html += `<h2>Assumptions</h2>` + assumptionTable(plan.assumptions);
  return html;
}

function renderPlan(plan) {
  const opts = plan.options || [];
  let html = `<h2>${esc(plan.workload && plan.workload.name)}: ${num(plan.feasible, 0)} feasible of
    ${num(plan.considered, 0)} candidates, ranked by ${esc(plan.objective)}</h2>`;
  if (plan.warnings && plan.warnings.length)
    html += `<ul class="warnings" id="plan-warnings">${plan.warnings.map((w) => `<li>${esc(w)}</li>`).join("")}</ul>`;
  if (!opts.length) {
    html += `<div class="error" id="no-option">No feasible option: every candidate was dropped, for the reasons below.</div>`;
  } else {
    html += winnerCard(plan);
    html += `<div id="chart-frontier"></div><div id="prices"><div id="chart-prices"></div><p class="why" id="prices-source"></p></div>`;
  }
  html += optionTable("Ranked options", opts, "options");
  if (opts.length) html += costLines(opts[0]);
  html += optionTable("Cost–time Pareto frontier (fastest first)", plan.frontier, "frontier");
  html += optionTable("Fallbacks (other regions and sizes)", plan.fallbacks, "fallbacks");
  html += extraTables(plan);
  html += `<div id="pricing"></div>`;
  window.gpuplanCharts && window.gpuplanCharts.destroyIn($("result"));
  $("result").innerHTML = html;
  for (const [id, list] of [["options", opts], ["frontier", plan.frontier], ["fallbacks", plan.fallbacks]])
    for (const a of document.querySelectorAll(`#${id} a.size`))
      a.addEventListener("click", (ev) => { ev.preventDefault(); showPricing(list[Number(a.dataset.i)]); });
  if (!opts.length || !charts()) return;
  window.gpuplanCharts.frontier($("chart-frontier"), plan);
  if (opts[0].cost_lines && opts[0].cost_lines.length) window.gpuplanCharts.costBreakdown($("chart-cost"), opts[0]);
  showRegionPrices(opts[0]);
}

// The chosen size's price in every region (GET /api/prices).
async function showRegionPrices(o) {
  const {ok, body} = await api(`/api/prices?${new URLSearchParams({size: o.size, os: o.os})}`);
  if (!ok) { $("prices").innerHTML = errorBox(body); return; }
  window.gpuplanCharts.regionPrices($("chart-prices"), body, o.region);
  const sources = new Set();
  for (const r of body.regions)
    for (const [k, p] of Object.entries(r.prices))
      if (p && (k === "payg" || k === "spot")) sources.add(`${p.estimated ? "estimated" : "listed"} ${p.as_of}: ${p.source}`);
  $("prices-source").textContent = `Bars: ${body.regions.length} regions; the chosen region (${o.region}) in black. Prices ` +
    [...sources].slice(0, 4).join("; ") + (sources.size > 4 ? ` (and ${sources.size - 4} more sources)` : "");
}

// One option's size under every pricing model (GET /api/cost), for its hours.
async function showPricing(o) {
  const q = new URLSearchParams({size: o.size, region: o.region, count: o.count, hours: Number(o.hours).toFixed(2),
                                 os: o.os, hybrid_benefit: o.hybrid_benefit ? "true" : "false"});
  const {ok, body} = await api(`/api/cost?${q}`);
  if (!ok) { $("pricing").innerHTML = errorBox(body); return; }
  const be = (v) => v == null ? "—" : (v > 1 ? "never" : pct(v, 0));
  $("pricing").innerHTML = `<h2>${esc(short(body.size))} ×${esc(body.count)} in ${esc(body.region)}, ${esc(body.os)}:
    ${num(body.hours)} h of use under every pricing model</h2>` + table(
    [["pricing", ""], ["$/h per VM", "num"], ["cost", "num"], ["break-even", "num"], ["price", "wrap why"]],
    body.pricing.map((p) => p.available
      ? [esc(p.pricing), money(p.usd_per_hour_vm), money(p.cost_usd), be(p.break_even_utilization),
         esc(p.estimated ? "estimated: " + p.rule : "listed " + p.as_of + " (" + p.source + ")")]
      : [esc(p.pricing), "—", "—", "—", esc(p.missing || "no listed price")])) +
    `<p class="why">break-even: the share of a commitment's term you must use for it to beat pay-as-you-go. VM meters only.</p>`;
  $("pricing").scrollIntoView({behavior: "smooth"});
}

async function runPlan(ev) {
  ev.preventDefault();
  $("result").innerHTML = `<p class="muted">Planning…</p>`;
  const q = new URLSearchParams({objective: $("objective").value, top: $("top").value || "10"});
  const {ok, body} = await api(`/api/plan?${q}`, {method: "POST", headers: {"Content-Type": "application/yaml"},
                                                  body: $("workload").value});
  if (!ok) { $("result").innerHTML = errorBox(body); } else { renderPlan(body); }
  reveal($("result"));
}

// --- Estimate ----------------------------------------------------------------

function renderEstimate(est) {
  const mem = (o) => o.memory ? Object.entries(o.memory).filter(([, v]) => v).map(([k, v]) => `${k} ${num(v)}`).join(", ") : "";
  let html = `<h2>Estimate of ${esc(est.workload && est.workload.name)} (${esc(est.workload && est.workload.kind)}): ${(est.options || []).filter((o) => o.fits).length} of ${(est.options || []).length} options fit</h2><div id="chart-estimate"></div>`;
  // What fits first, fastest first; an option that does not fit has no
  // throughput or hours (the API's zeros are shown as "—"), only its reason.
  const opts = [...(est.options || [])].sort((a, b) => (b.fits - a.fits) || (a.hours - b.hours));
  const known = (o, v, d) => (o.fits || v ? num(v, d) : "—");
  html += table([["size", ""], ["VMs", "num"], ["GPUs", "num"], ["fits", ""], ["GiB needed", "num"],
                 ["GiB free", "num"], ["throughput", "num"], ["hours", "num"], ["MFU", "num"]],
    opts.flatMap((o) => [[esc(short(o.size)), esc(o.count), num(o.gpus, o.gpus % 1 ? 2 : 0),
      o.fits ? `<span class="badge ok">fits</span>` : `<span class="badge bad">does not fit</span>`,
      known(o, o.memory_needed_gib), num(o.memory_available_gib),
      o.fits && o.throughput != null ? num(o.throughput, o.throughput < 100 ? 1 : 0) + " " + esc(o.throughput_unit) : "—",
      o.fits ? num(o.hours) : "—", o.fits && o.mfu != null ? pct(o.mfu, 0) : "—"],
      {sub: `<span class="why">${mem(o) ? "memory per GPU (GiB): " + esc(mem(o)) : ""}${o.reason ? (mem(o) ? " · " : "") + esc(o.reason) : ""}</span>`}]),
    "estimate-table") + `<p class="why">GiB: GPU memory per GPU, needed and usable. MFU: model FLOPs utilisation.</p>`;
  window.gpuplanCharts && window.gpuplanCharts.destroyIn($("result"));
  $("result").innerHTML = html;
  if (charts() && (est.options || []).some((o) => o.fits)) window.gpuplanCharts.estimateBars($("chart-estimate"), est);
}

async function runEstimate() {
  $("result").innerHTML = `<p class="muted">Estimating…</p>`;
  const q = new URLSearchParams();
  if ($("est-size").value) q.set("size", $("est-size").value);
  if ($("est-size").value && $("est-count").value) q.set("count", $("est-count").value);
  const {ok, body} = await api(`/api/estimate?${q}`, {method: "POST", headers: {"Content-Type": "application/yaml"},
                                                      body: $("workload").value});
  if (!ok) { $("result").innerHTML = errorBox(body); } else { renderEstimate(body); }
  reveal($("result"));
}

// --- Simulate ----------------------------------------------------------------

function renderSimulation(rep) {
  const serving = rep.kind === "serving";
  let html = `<h2>${esc(rep.scenario)} (${esc(rep.kind)}): ${esc(rep.runs)} run${rep.runs === 1 ? "" : "s"}, seed ${esc(rep.seed)}</h2>`;
  // Serving rows carry TPOT as well as TTFT (both decide the SLO).
  const tpotCols = serving ? [["p50 TPOT ms", "num"], ["p99 TPOT ms", "num"]] : [];
  html += table([["policy", ""], ["cost", "num"], ["vs optimal", "num"],
                 [serving ? "within SLO" : "on time", "num"], ["p50 TTFT ms", "num"], ["p99 TTFT ms", "num"],
                 ...tpotCols, ["scale events", "num"], ["GPU-h", "num"]],
    rep.policies.map((p) => [esc(p.policy), money(p.cost_usd),
      p.cost_vs_optimal == null ? "—" : num(p.cost_vs_optimal, 3) + "×",
      pct(serving ? p.slo_attainment : p.deadline_met_fraction, 2), num(p.p50_ttft_ms, 0), num(p.p99_ttft_ms, 0),
      ...(serving ? [num(p.p50_tpot_ms, 1), num(p.p99_tpot_ms, 1)] : []),
      num(p.scale_events, 1), num(p.gpu_hours, 1)]), "sim-table");
  html += `<div class="charts2" id="sim-charts"></div>`;
  html += `<h2>Assumptions</h2>` + assumptionTable(rep.assumptions);
  if (rep.notes && rep.notes.length) html += `<h2>Notes</h2><ul>${rep.notes.map((n) => `<li class="why">${esc(n)}</li>`).join("")}</ul>`;
  window.gpuplanCharts && window.gpuplanCharts.destroyIn($("sim-result"));
  $("sim-result").innerHTML = html;
  if (charts()) window.gpuplanCharts.simulation($("sim-charts"), rep, rep.timeline);
}

async function runSimulation(ev) {
  ev.preventDefault();
  $("sim-result").innerHTML = `<p class="muted">Simulating…</p>`;
  const q = new URLSearchParams({timeline: "true"});
  if ($("policy").value.trim()) q.set("policy", $("policy").value.trim());
  if ($("runs").value) q.set("runs", $("runs").value);
  const {ok, body} = await api(`/api/simulate?${q}`, {method: "POST", headers: {"Content-Type": "application/yaml"},
                                                      body: $("scenario").value});
  if (!ok) { $("sim-result").innerHTML = errorBox(body); } else { renderSimulation(body); }
  reveal($("sim-result"));
}

// --- Start -------------------------------------------------------------------

function showTab(which) {
  for (const [tab, view] of [["tab-plan", "view-plan"], ["tab-sim", "view-sim"]]) {
    $(tab).setAttribute("aria-selected", String(tab === which));
    $(view).hidden = tab !== which;
  }
}

function fillExamples(select, textarea, list) {
  select.innerHTML = list.map((e, i) => `<option value="${i}">${esc(e.name)}</option>`).join("");
  const pick = () => { const e = list[Number(select.value)]; if (e) textarea.value = e.yaml; };
  select.addEventListener("change", pick);
  pick();
}

// Says on the page why there are no charts (the server's own words).
async function checkCharts() {
  if (charts()) return;
  const {body} = await api("/static/chart.js");
  $("chart-status").hidden = false;
  $("chart-status").textContent = "Charts are off: " + (body && body.error ? body.error.text : "Chart.js did not load") +
    ". The tables are complete without them.";
}

async function init() {
  $("tab-plan").addEventListener("click", () => showTab("tab-plan"));
  $("tab-sim").addEventListener("click", () => showTab("tab-sim"));
  $("plan-form").addEventListener("submit", runPlan);
  $("estimate").addEventListener("click", runEstimate);
  $("sim-form").addEventListener("submit", runSimulation);
  checkCharts();
  const examples = (await api("/api/examples")).body;
  fillExamples($("example"), $("workload"), examples.filter((e) => e.kind === "workload"));
  fillExamples($("scenario-example"), $("scenario"), examples.filter((e) => e.kind === "scenario"));
  const sizes = (await api("/api/sizes")).body;
  $("est-size").innerHTML += sizes.filter((s) => s.status !== "retired")
    .map((s) => `<option value="${esc(s.size)}">${esc(short(s.size))} (${esc(s.gpu_count)}× ${esc(s.gpu)})</option>`).join("");
  document.body.dataset.ready = "true";
}
init();
