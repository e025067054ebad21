#!/usr/bin/env node
// The web page in a real browser: Debian's Chromium, headless, driven over the
// DevTools protocol by playwright-core (pinned in package-lock.json; it
// downloads nothing). Starts `gpuplan serve` on a free loopback port, then at
// 1280 and 390 CSS px wide: submits a workload, checks that the charts hold
// data points and the warnings and quota state are on screen, that nothing
// scrolls sideways, and saves screenshots; runs the estimate and a
// simulation; opens a `simulate --plot` file; and checks that a server without
// Chart.js says so on the page while its tables still work.
//
//   node tests/browser/page_test.js --gpuplan build/gpuplan --out build/test-artifacts
//
// A missing browser or node_modules is a failure, not a skip: CI installs both
// (scripts/install-deps.sh). Exit 0 when every check passed, 1 otherwise.
"use strict";

const {spawn, execFileSync} = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

const kTimeoutMs = 240000;  // the whole test; ctest's TIMEOUT is above it
const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) =>
  (a.startsWith("--") ? acc.concat([[a.slice(2), all[i + 1]]]) : acc), []));
const gpuplan = path.resolve(args.gpuplan || "build/gpuplan");
const outDir = path.resolve(args.out || "build/test-artifacts");
const srcDir = path.resolve(__dirname, "..", "..");
const chromiumPath = process.env.GPUPLAN_CHROMIUM || "/usr/bin/chromium";

let failures = 0;
function check(ok, what) {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failures++;
}
function fatal(msg) {
  console.error(`FAIL ${msg}`);
  process.exit(1);
}

if (Number(process.versions.node.split(".")[0]) < 20)
  fatal(`Node.js ${process.versions.node} is too old for playwright-core 1.65 (needs 20 or later)`);
let playwright;
try {
  playwright = require(path.join(__dirname, "node_modules", "playwright-core"));
} catch (e) {
  fatal(`playwright-core is not installed in ${__dirname}/node_modules (run scripts/install-deps.sh): ${e.message}`);
}
if (!fs.existsSync(chromiumPath)) fatal(`no browser at ${chromiumPath} (run scripts/install-deps.sh: Debian's chromium)`);
if (!fs.existsSync(gpuplan)) fatal(`no gpuplan binary at ${gpuplan}`);
fs.mkdirSync(outDir, {recursive: true});
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "gpuplan-browser-"));
const servers = [];

// `gpuplan serve --port 0`, resolved with its URL once it says where it listens.
function serve(env) {
  return new Promise((resolve, reject) => {
    const child = spawn(gpuplan, ["--db", path.join(tmp, "none.db"), "serve", "--host", "127.0.0.1",
                                  "--port", "0", "--workers", "2"],
                        {env: Object.assign({}, process.env, env || {}), stdio: ["ignore", "pipe", "pipe"]});
    servers.push(child);
    let out = "", err = "";
    const timer = setTimeout(() => reject(new Error(`gpuplan serve did not start in 20 s: ${err}`)), 20000);
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/serving on (http:\/\/[^\s]+)/);
      if (m) { clearTimeout(timer); resolve({url: m[1], stderr: () => err}); }
    });
    child.stderr.on("data", (d) => { err += d; });
    child.on("exit", (code) => { clearTimeout(timer); reject(new Error(`gpuplan serve exited ${code}: ${err}`)); });
  });
}

function stopServers() {
  for (const s of servers) if (s.exitCode === null) s.kill("SIGTERM");
}

// Every Chart.js chart under `selector`: its canvas and how many data points it holds.
function chartsIn(page, selector) {
  return page.evaluate((sel) => [...document.querySelectorAll(`${sel} canvas`)].map((c) => {
    const chart = window.Chart && window.Chart.getChart(c);
    const points = chart ? chart.data.datasets.reduce((n, d) => n + d.data.filter((v) => v != null).length, 0) : 0;
    const box = c.getBoundingClientRect();
    return {title: chart ? chart.options.plugins.title.text : null, points, width: box.width, height: box.height};
  }), selector);
}

async function checkCharts(page, selector, atLeast, what) {
  await page.waitForFunction(([sel, n]) => document.querySelectorAll(`${sel} canvas`).length >= n,
                             [selector, atLeast], {timeout: 60000});
  const charts = await chartsIn(page, selector);
  check(charts.length >= atLeast, `${what}: ${charts.length} charts (want >= ${atLeast})`);
  for (const c of charts)
    check(c.points > 0 && c.width > 100 && c.height > 100,
          `${what}: "${c.title}" has ${c.points} data points in ${Math.round(c.width)}x${Math.round(c.height)} px`);
}

async function noSidewaysScroll(page, what) {
  const m = await page.evaluate(() => ({scroll: document.documentElement.scrollWidth, inner: window.innerWidth}));
  check(m.scroll <= m.inner, `${what}: no horizontal scroll (scrollWidth ${m.scroll} <= innerWidth ${m.inner})`);
}

async function planPage(browser, url, width) {
  const page = await browser.newPage({viewport: {width, height: 900}});
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  await page.goto(url);
  await page.waitForSelector("body[data-ready=true]", {timeout: 30000});
  check(await page.evaluate(() => typeof window.Chart === "function"), `${width}px: Chart.js loaded from the server`);
  check(!(await page.isVisible("#chart-status")), `${width}px: no 'charts are off' banner`);

  // Plan: the first example (finetune-llama3-8b), as a user would submit it.
  await page.selectOption("#example", {label: "finetune-llama3-8b.yaml"});
  await page.click("#plan");
  await page.waitForSelector("#options table", {timeout: 60000});
  await checkCharts(page, "#result", 3, `${width}px plan`);  // frontier, prices by region, cost breakdown
  const warnings = await page.$$eval("#plan-warnings li", (li) => li.map((x) => x.textContent));
  check(warnings.length > 0 && await page.isVisible("#plan-warnings"),
        `${width}px: the plan's ${warnings.length} warnings are visible (${(warnings[0] || "").slice(0, 60)}...)`);
  const quota = await page.textContent('#options tbody td[data-label="quota"]');
  check(/not checked/.test(quota), `${width}px: quota shown as unknown, not ok ("${quota.trim()}")`);
  check(await page.isVisible("#cost-lines"), `${width}px: the cost breakdown table is visible`);
  // Every column of the option table is on screen: a wide screen shows the
  // whole table, a narrow one a card per option (no column scrolled away).
  const cells = await page.$$eval("#options tbody tr:first-child td", (tds) =>
    tds.map((td) => { const r = td.getBoundingClientRect(); return {label: td.dataset.label, right: r.right}; }));
  const off = cells.filter((c) => c.right > width);
  check(cells.length === 10 && off.length === 0,
        `${width}px: all ${cells.length} columns of the first option within the screen${off.length ? " (off: " + off.map((c) => c.label).join(", ") + ")" : ""}`);
  await noSidewaysScroll(page, `${width}px plan`);
  await page.screenshot({path: path.join(outDir, `plan-${width}.png`), fullPage: true});

  // Every other example plans too; the infeasible one says so and lists the drops.
  if (width === 1280) {
    const names = await page.$$eval("#example option", (os) => os.map((o) => o.textContent));
    for (const name of names.filter((n) => n !== "finetune-llama3-8b.yaml")) {
      await page.selectOption("#example", {label: name});
      await page.click("#plan");
      await page.waitForSelector("#options table, #no-option", {timeout: 60000});
      const infeasible = await page.isVisible("#no-option");
      if (infeasible) {
        check((await page.$$("#result h2:has-text('Dropped') + .scroll tbody tr")).length > 0,
              `${name}: no feasible option, and the dropped candidates are listed`);
      } else {
        await page.waitForFunction(() => document.querySelectorAll("#result canvas").length >= 2, null, {timeout: 30000});
        check((await chartsIn(page, "#result")).every((c) => c.points > 0), `${name}: planned, charts hold data`);
      }
      await noSidewaysScroll(page, `${name}`);
    }
    check(names.includes("infeasible-budget.yaml"), "the infeasible example is offered");
    await page.selectOption("#example", {label: "finetune-llama3-8b.yaml"});
  }

  // Estimate on every size.
  await page.click("#estimate");
  await page.waitForSelector("#estimate-table", {timeout: 60000});
  await checkCharts(page, "#result", 1, `${width}px estimate`);
  await noSidewaysScroll(page, `${width}px estimate`);
  if (width === 1280) await page.screenshot({path: path.join(outDir, `estimate-${width}.png`), fullPage: true});

  // Simulation: the example scenario the page offers, as it is.
  await page.click("#tab-sim");
  check(/kind: serving/.test(await page.inputValue("#scenario")), `${width}px: an example scenario is offered`);
  await page.click("#simulate");
  await page.waitForSelector("#sim-table", {timeout: 90000});
  const simHead = await page.textContent("#sim-table thead");
  check(/p50 TPOT ms/.test(simHead) && /p99 TPOT ms/.test(simHead),
        `${width}px: the serving table shows TPOT beside TTFT`);
  await checkCharts(page, "#sim-charts", 6, `${width}px simulation`);  // 2 bar + demand, replicas, 2 latency, cost
  await noSidewaysScroll(page, `${width}px simulation`);
  await page.screenshot({path: path.join(outDir, `simulate-${width}.png`), fullPage: true});
  check(errors.length === 0, `${width}px: no script errors${errors.length ? ": " + errors.join(" | ") : ""}`);
  await page.close();
}

// A server that cannot find Chart.js: the page says why, the tables still work.
async function withoutChartJs(browser) {
  const empty = fs.mkdtempSync(path.join(tmp, "web-"));
  const {url, stderr} = await serve({GPUPLAN_WEB_DIR: empty});
  const page = await browser.newPage({viewport: {width: 390, height: 900}});
  await page.goto(url);
  await page.waitForSelector("body[data-ready=true]", {timeout: 30000});
  await page.waitForSelector("#chart-status:not([hidden])", {timeout: 10000});
  const banner = await page.textContent("#chart-status");
  check(/libjs-chart\.js/.test(banner) && banner.includes(empty),
        `no Chart.js: the page says where the server looked and what to install`);
  check(/libjs-chart\.js/.test(stderr()), "no Chart.js: gpuplan serve warns on stderr");
  await page.click("#plan");
  await page.waitForSelector("#options table", {timeout: 60000});
  check((await page.$$("#options tbody tr")).length > 0, "no Chart.js: the option table still renders");
  check((await page.$$("canvas")).length === 0, "no Chart.js: no empty chart boxes");
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({path: path.join(outDir, "no-chartjs-390.png"), fullPage: false});
  await page.close();
}

// `gpuplan simulate --plot`: a file that opens with no server.
async function plotFile(browser) {
  const file = path.join(outDir, "simulate-plot.html");
  execFileSync(gpuplan, ["--db", path.join(tmp, "none.db"), "simulate",
                         path.join(srcDir, "tests/data/sim/serving_small.yaml"), "--plot", file],
               {stdio: ["ignore", "ignore", "inherit"], timeout: 60000});
  const page = await browser.newPage({viewport: {width: 1280, height: 900}});
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.route("**/*", (r) => (r.request().url().startsWith("file:") ? r.continue() : r.abort()));
  await page.goto("file://" + file);
  await checkCharts(page, "#charts", 6, "simulate --plot");
  check(errors.length === 0, `simulate --plot: no script errors${errors.length ? ": " + errors.join(" | ") : ""}`);
  await page.screenshot({path: path.join(outDir, "simulate-plot-1280.png"), fullPage: true});
  await page.close();
}

async function main() {
  const t0 = Date.now();
  const {url} = await serve();
  const browser = await playwright.chromium.launch({
    executablePath: chromiumPath,
    // Root (CI) cannot use Chromium's sandbox; /dev/shm may be small in containers.
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
  });
  try {
    await planPage(browser, url, 1280);
    await planPage(browser, url, 390);
    await withoutChartJs(browser);
    await plotFile(browser);
  } finally {
    await browser.close();
  }
  console.log(`browser test: ${failures} failures, ${((Date.now() - t0) / 1000).toFixed(1)} s; screenshots in ${outDir}`);
}

const watchdog = setTimeout(() => {
  console.error(`FAIL the browser test ran over ${kTimeoutMs / 1000} s`);
  stopServers();
  process.exit(1);
}, kTimeoutMs);
main().then(() => {
  clearTimeout(watchdog);
  stopServers();
  fs.rmSync(tmp, {recursive: true, force: true});
  process.exit(failures ? 1 : 0);
}, (e) => {
  console.error(`FAIL ${e.stack || e}`);
  stopServers();
  process.exit(1);
});
