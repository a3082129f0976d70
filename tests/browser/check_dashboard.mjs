#!/usr/bin/env node
// The dashboard in a real browser (docs/web.md): Debian's headless chromium, driven by playwright-core
// (tests/browser/package-lock.json; it never downloads a browser).
//
//   node tests/browser/check_dashboard.mjs BASE_URL SCREENSHOT_DIR|- [--details N] [--all-periods]
//       [--all-links]
//
// Crawls from BASE_URL/: every page in the nav (nav.pl-nav), then the first N (default 2) predictoor
// and feed detail links found in the tables. On every page:
//   - the page answers 200 and no console error, page error or failed request (4xx/5xx, or a
//     network failure) happens for it or its assets;
//   - the freshness header (header.pl-freshness) holds the five data-field values;
//   - every figure.pl-chart was drawn (data-drawn="true", a canvas of nonzero size with non-blank
//     pixels) and its JSON equals the page API's "charts" entry;
//   - every table.pl-table equals its data-api JSON: the same columns in the same order, as many
//     rows, each td's data-value the API value as text (data-null="true" and "—" where it is null);
//   - every CSV link (a.pl-csv) downloads a CSV with the table's header and row count;
//   - the period selector (nav.pl-period): one link is aria-current="true" and matches the URL;
//     clicking a link changes the URL's period (keeping the other parameters) and moves
//     aria-current, and the page it opens passes the checks above (CSV downloads aside). On the
//     first page every period link is clicked; on each later page one, a different one from page
//     to page (--all-periods: every link on every page);
//   - the other links on the page (nav, sortable headers, detail pages) answer 200 with HTML: on
//     the first page every link, later one link of each shape not seen yet (path with addresses
//     generalised, and parameter names; the server's tests order every sort key of every page)
//     (--all-links: every link);
//   - at 390 px wide the page does not scroll sideways.
// Saves a full-page PNG per crawled page into SCREENSHOT_DIR (NAME.png at 1280 px, NAME-narrow.png
// at 390 px); "-" saves none. Prints one line per failure ("FAIL <page>: <what>") and exits 1 when
// there is any; 2 when it cannot run (bad arguments, no browser, the server does not answer).
//
// Environment: PREDLAKE_CHROMIUM, the browser (default /usr/bin/chromium).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import {chromium} from "playwright-core";

import {checkCharts} from "./checks_charts.mjs";
import {checkTables} from "./checks_tables.mjs";
import {settle} from "./settle.mjs";

const PERIOD_DEFAULT = "1w";
const FRESHNESS_FIELDS = ["checkpoint", "frontier", "holding_back", "last_run", "snapshot_age"];
const NAV_PATHS = ["/", "/predictoors", "/feeds", "/runs"];
const WIDE = {width: 1280, height: 900};
const NARROW = {width: 390, height: 844};
const MAX_CELL_REPORTS = 5;

function usage(msg) {
  if (msg) console.error(`check_dashboard: ${msg}`);
  console.error("usage: node check_dashboard.mjs BASE_URL SCREENSHOT_DIR|- [--details N] [--all-periods] [--all-links]");
  process.exit(2);
}

const argv = process.argv.slice(2);
let details = 2;
let allPeriods = false;
let allLinks = false;
const positional = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--all-periods") {
    allPeriods = true;
  } else if (argv[i] === "--all-links") {
    allLinks = true;
  } else if (argv[i] === "--details") {
    details = Number(argv[++i]);
    if (!Number.isInteger(details) || details < 0) usage("--details takes a count");
  } else if (argv[i].startsWith("-") && argv[i] !== "-") {
    usage(`unknown option ${argv[i]}`);
  } else {
    positional.push(argv[i]);
  }
}
if (positional.length !== 2) usage();
let base;
try {
  base = new URL(positional[0]);
} catch {
  usage(`not a URL: ${positional[0]}`);
}
const shotDir = positional[1] === "-" ? null : positional[1];
if (shotDir) fs.mkdirSync(shotDir, {recursive: true});

const failures = [];
const counts = {periodPages: 0, charts: 0, tables: 0, cells: 0, csvs: 0};
function fail(where, what) {
  failures.push(`FAIL ${where}: ${what}`);
}

// ---- Helpers ---------------------------------------------------------------------------------
function label(url) {
  const u = new URL(url, base);
  return u.pathname + u.search;
}

function shotName(url) {
  const u = new URL(url, base);
  const p = u.pathname.replace(/^\/+|\/+$/g, "");
  const name = (p === "" ? "overview" : p.replace(/[^A-Za-z0-9._-]+/g, "-")) +
    (u.search ? "-" + u.search.slice(1).replace(/[^A-Za-z0-9._-]+/g, "-") : "");
  return name;
}

function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
}

// The API value as the contract writes it into data-value: a string's content, else its JSON text.
function apiText(v) {
  return typeof v === "string" ? v : JSON.stringify(v);
}
function sameValue(text, v) {
  if (text === apiText(v)) return true;
  // A number may be written with other digits for the same double (1e-7 vs 1e-07).
  return typeof v === "number" && text !== null && text.trim() !== "" && Number(text) === v;
}

// RFC 4180: quoted fields, doubled quotes, CRLF or LF rows; a trailing newline ends the last row.
function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = "";
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else field += c;
      i++;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += c;
    i++;
  }
  if (field !== "" || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

// ---- The browser -----------------------------------------------------------------------------
const executablePath = process.env.PREDLAKE_CHROMIUM || "/usr/bin/chromium";
if (!fs.existsSync(executablePath)) {
  console.error(`check_dashboard: no browser at ${executablePath} (apt-get install chromium, or set PREDLAKE_CHROMIUM)`);
  process.exit(2);
}
const profile = fs.mkdtempSync(path.join(os.tmpdir(), "predlake-chromium-"));
const downloads = fs.mkdtempSync(path.join(os.tmpdir(), "predlake-downloads-"));
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: WIDE,
    acceptDownloads: true,
    downloadsPath: downloads,
    timeout: 60000,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
} catch (e) {
  console.error(`check_dashboard: cannot start ${executablePath}: ${e.message.split("\n")[0]}`);
  fs.rmSync(profile, {recursive: true, force: true});
  process.exit(2);
}
const page = context.pages()[0] || (await context.newPage());
page.setDefaultTimeout(20000);

// Events are charged to the page being checked.
let current = "/";
const downloadUrls = new Set();
const badStatus = new Set();  // URLs already reported with their HTTP status
page.on("console", (msg) => {
  if (msg.type() !== "error") return;
  const where = msg.location() && msg.location().url ? ` (${label(msg.location().url)})` : "";
  fail(current, `console error: ${msg.text()}${where}`);
});
page.on("pageerror", (err) => fail(current, `page error: ${err.message}`));
page.on("response", (res) => {
  if (res.status() < 400) return;
  badStatus.add(res.url());
  fail(current, `HTTP ${res.status()} for ${label(res.url())}`);
});
page.on("requestfailed", (req) => {
  const why = req.failure() ? req.failure().errorText : "failed";
  // A link answered as an attachment becomes a download: its navigation is aborted, by design.
  if (downloadUrls.has(req.url()) && why.includes("ERR_ABORTED")) return;
  // Chromium aborts a resource that answered 4xx/5xx: reported above already.
  if (badStatus.has(req.url()) && why.includes("ERR_ABORTED")) return;
  fail(current, `request failed: ${label(req.url())} (${why})`);
});

const apiCache = new Map();
async function fetchApi(url) {
  const abs = new URL(url, base).href;
  if (!apiCache.has(abs)) {
    apiCache.set(abs, (async () => {
      const res = await context.request.get(abs, {failOnStatusCode: false});
      if (res.status() !== 200) return {error: `API ${label(abs)} answered HTTP ${res.status()}`};
      try {
        return {json: await res.json()};
      } catch (e) {
        return {error: `API ${label(abs)} is not JSON (${e.message})`};
      }
    })());
  }
  return apiCache.get(abs);
}

// Everything the checks need from the page, read in one go.
function readPage() {
  return page.evaluate((fields) => {
    const attr = (el, n) => el.getAttribute(n);
    const fresh = document.querySelector("header.pl-freshness");
    const freshness = fields.map((f) => {
      const el = fresh && fresh.querySelector(`[data-field="${f}"]`);
      return {field: f, present: !!el, text: el ? el.textContent.trim() : ""};
    });
    const tables = [...document.querySelectorAll("table.pl-table")].map((t) => ({
      id: t.id,
      api: attr(t, "data-api"),
      csv: attr(t, "data-csv"),
      cols: [...t.querySelectorAll("thead th")].map((th) => attr(th, "data-col")),
      rows: [...t.querySelectorAll("tbody tr")].map((tr) => [...tr.children].map((td) => ({
        col: attr(td, "data-col"),
        value: attr(td, "data-value"),
        isNull: attr(td, "data-null") === "true",
        text: td.textContent.trim(),
      }))),
      links: [...t.querySelectorAll("tbody a[href]")].map((a) => a.href),
    }));
    const charts = [...document.querySelectorAll("figure.pl-chart")].map((f) => {
      const script = f.querySelector('script[type="application/json"]');
      const err = f.querySelector(".pl-chart-error");
      const canvases = [...f.querySelectorAll("canvas")].map((c) => {
        const r = c.getBoundingClientRect();
        const colors = new Set();
        try {
          const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
          for (let i = 0; i < d.length && colors.size < 3; i += 4 * 5) {
            if (d[i + 3] !== 0) colors.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
          }
        } catch (e) {
          // an unreadable canvas counts as blank
        }
        return {width: c.width, height: c.height, cssWidth: r.width, cssHeight: r.height,
          colors: colors.size};
      });
      return {id: f.id, drawn: attr(f, "data-drawn"), empty: attr(f, "data-empty") === "true",
        json: script ? script.textContent : null, error: err ? err.textContent.trim() : null,
        canvases};
    });
    const sel = document.querySelector("nav.pl-period");
    return {
      hasFreshness: !!fresh,
      freshness,
      nav: [...document.querySelectorAll("nav.pl-nav a[href]")].map((a) => a.href),
      tables,
      csvLinks: [...document.querySelectorAll("a.pl-csv")].map((a) => a.href),
      links: [...document.querySelectorAll("a[href]")].filter((a) => !a.matches("a.pl-csv"))
        .map((a) => a.href),
      charts,
      periods: sel ? [...sel.querySelectorAll("a[href]")].map((a) => ({
        href: a.href, current: attr(a, "aria-current")})) : null,
    };
  }, FRESHNESS_FIELDS);
}

async function load(url) {
  current = label(url);
  let res;
  try {
    res = await page.goto(new URL(url, base).href, {waitUntil: "load"});
  } catch (e) {
    fail(current, `does not load: ${e.message.split("\n")[0]}`);
    return false;
  }
  return afterNavigation(res);
}

async function afterNavigation(res) {
  if (!res) {
    fail(current, "no response");
    return false;
  }
  if (res.status() !== 200) {
    fail(current, `answered HTTP ${res.status()}`);
    return false;
  }
  const type = res.headers()["content-type"] || "";
  if (!type.startsWith("text/html")) fail(current, `Content-Type is "${type}", not text/html`);
  await page.waitForLoadState("load");
  // dashboard.js marks every chart drawn (or failed) once the deferred scripts ran.
  await page.waitForFunction(() => [...document.querySelectorAll("figure.pl-chart")]
    .every((f) => f.hasAttribute("data-drawn")), null, {timeout: 3000}).catch(() => {});
  return true;
}

// ---- The checks ------------------------------------------------------------------------------
async function checkContent(where, snap, {csv}) {
  // Freshness header.
  if (!snap.hasFreshness) {
    fail(where, "no freshness header (header.pl-freshness)");
  } else {
    for (const f of snap.freshness) {
      if (!f.present) fail(where, `freshness header has no data-field="${f.field}"`);
      else if (!f.text) fail(where, `freshness header's ${f.field} is empty`);
    }
  }
  // Navigation.
  const navPaths = new Set(snap.nav.map((h) => new URL(h).pathname));
  for (const p of NAV_PATHS) if (!navPaths.has(p)) fail(where, `nav.pl-nav has no link to ${p}`);

  // The page's API: the tables name it; a page without tables has it at /api<path>.
  const u = new URL(where, base);
  const pageApi = snap.tables.length && snap.tables[0].api ? snap.tables[0].api :
    "/api" + u.pathname + u.search;
  const apiRes = await fetchApi(pageApi);
  if (apiRes.error) fail(where, apiRes.error);
  const api = apiRes.json || {};

  // Charts.
  counts.charts += snap.charts.length;
  counts.tables += snap.tables.length;
  for (const c of snap.charts) {
    const name = `chart #${c.id || "(no id)"}`;
    if (c.drawn !== "true") {
      fail(where, `${name} not drawn${c.error ? `: ${c.error}` : " (no data-drawn=\"true\")"}`);
    } else if (!c.empty) {
      const good = c.canvases.filter((k) => k.width > 0 && k.height > 0 && k.cssWidth > 0 && k.cssHeight > 0);
      if (!good.length) fail(where, `${name} has no canvas of nonzero size`);
      else if (!good.some((k) => k.colors >= 2)) fail(where, `${name}'s canvas is blank`);
    }
    let data;
    try {
      data = JSON.parse(c.json);
    } catch {
      fail(where, `${name}'s JSON does not parse`);
      continue;
    }
    if (apiRes.json) {
      if (!api.charts || !(c.id in api.charts)) fail(where, `${name} is not in the API's charts`);
      else if (!deepEqual(data, api.charts[c.id])) fail(where, `${name}'s data differs from the API's`);
    }
  }

  // Tables.
  const ids = new Set();
  for (const t of snap.tables) {
    const name = `table #${t.id || "(no id)"}`;
    if (!t.id) fail(where, "a table.pl-table has no id");
    if (ids.has(t.id)) fail(where, `${name} appears twice`);
    ids.add(t.id);
    if (!t.api) {
      fail(where, `${name} has no data-api`);
      continue;
    }
    const res = await fetchApi(t.api);
    if (res.error) {
      fail(where, `${name}: ${res.error}`);
      continue;
    }
    const want = res.json.tables && res.json.tables[t.id];
    if (!want) {
      fail(where, `${name} is not in ${label(t.api)}`);
      continue;
    }
    if (!deepEqual(t.cols, want.columns)) {
      fail(where, `${name} columns [${t.cols.join(", ")}] differ from the API's [${want.columns.join(", ")}]`);
      continue;
    }
    if (t.rows.length !== want.rows.length) {
      fail(where, `${name} has ${t.rows.length} rows, the API ${want.rows.length}`);
    }
    let bad = 0;
    const report = (msg) => {
      if (++bad <= MAX_CELL_REPORTS) fail(where, `${name} ${msg}`);
    };
    counts.cells += t.rows.reduce((n, cells) => n + cells.length, 0);
    t.rows.slice(0, want.rows.length).forEach((cells, r) => {
      const wantRow = want.rows[r];
      if (cells.length !== want.columns.length) {
        report(`row ${r + 1} has ${cells.length} cells for ${want.columns.length} columns`);
        return;
      }
      cells.forEach((cell, k) => {
        const col = want.columns[k];
        const v = wantRow[k];
        const at = `row ${r + 1} column ${col}`;
        if (cell.col !== col) report(`${at}: the cell's data-col is ${cell.col}`);
        else if (v === null && !cell.isNull) report(`${at}: the API has null, the page ${JSON.stringify(cell.value)} (no data-null="true")`);
        else if (v === null && cell.text !== "\u2014") report(`${at}: a null shows ${JSON.stringify(cell.text)}, not "\u2014"`);
        else if (v !== null && cell.isNull) report(`${at}: the page has null, the API ${apiText(v)}`);
        else if (v !== null && !sameValue(cell.value, v)) report(`${at}: the page has ${JSON.stringify(cell.value)}, the API ${JSON.stringify(apiText(v))}`);
      });
    });
    if (bad > MAX_CELL_REPORTS) fail(where, `${name}: ${bad - MAX_CELL_REPORTS} more cell mismatches`);
    if (!t.csv) fail(where, `${name} has no data-csv`);
    else if (!snap.csvLinks.includes(new URL(t.csv, base).href)) {
      fail(where, `${name} has no a.pl-csv link to its data-csv ${t.csv}`);
    }
  }

  // CSV downloads, by clicking the links.
  if (csv) {
    for (let i = 0; i < snap.csvLinks.length; i++) {
      const href = snap.csvLinks[i];
      const table = snap.tables.find((t) => t.csv && new URL(t.csv, base).href === href);
      const name = `CSV ${label(href)}`;
      if (!table) {
        fail(where, `${name} belongs to no table (no table.pl-table has it as data-csv)`);
        continue;
      }
      downloadUrls.add(href);
      let text;
      try {
        const [download] = await Promise.all([page.waitForEvent("download", {timeout: 15000}),
          page.locator("a.pl-csv").nth(i).click()]);
        const failure = await download.failure();
        if (failure) {
          fail(where, `${name} download failed: ${failure}`);
          continue;
        }
        text = fs.readFileSync(await download.path(), "utf8");
        await download.delete();
      } catch (e) {
        fail(where, `${name} did not download: ${e.message.split("\n")[0]}`);
        // A CSV shown as a page (no attachment) navigated away: back to the page for the rest.
        if (label(page.url()) !== where) await load(new URL(where, base).href);
        continue;
      }
      counts.csvs++;
      const rows = parseCsv(text);
      const res = table.api ? await fetchApi(table.api) : {};
      const want = res.json && res.json.tables && res.json.tables[table.id];
      const header = rows[0] || [];
      if (!deepEqual(header, table.cols)) {
        fail(where, `${name} header [${header.join(", ")}] differs from the table's [${table.cols.join(", ")}]`);
      }
      const count = want ? want.rows.length : table.rows.length;
      if (rows.length - 1 !== count) fail(where, `${name} has ${rows.length - 1} rows, the table ${count}`);
    }
  }
}

async function checkNarrow(where, url, save) {
  await page.setViewportSize(NARROW);
  await settle(page);
  const m = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    inner: window.innerWidth,
    canvas: Math.max(0, ...[...document.querySelectorAll("figure.pl-chart canvas")]
      .map((c) => c.getBoundingClientRect().right)),
  }));
  if (m.scroll > m.inner + 1) fail(where, `at ${NARROW.width} px the page scrolls sideways (${m.scroll} px wide)`);
  if (m.canvas > m.inner + 1) fail(where, `at ${NARROW.width} px a chart reaches ${Math.round(m.canvas)} px`);
  if (save && shotDir) {
    await page.screenshot({path: path.join(shotDir, `${shotName(url)}-narrow.png`), fullPage: true});
  }
  await page.setViewportSize(WIDE);
  await settle(page);
}

function periodOf(href) {
  return new URL(href).searchParams.get("period");
}

function otherParams(href) {
  const q = new URLSearchParams(new URL(href).search);
  q.delete("period");
  return [...q.entries()].map(([k, v]) => `${k}=${v}`).sort().join("&");
}

function checkSelector(where, pageUrl, periods) {
  if (!periods) {
    fail(where, "no period selector (nav.pl-period)");
    return false;
  }
  const currents = periods.filter((p) => p.current === "true");
  const want = periodOf(pageUrl) || PERIOD_DEFAULT;
  if (currents.length !== 1) {
    fail(where, `the period selector has ${currents.length} links with aria-current="true"`);
  } else if (periodOf(currents[0].href) !== want) {
    fail(where, `the period selector marks ${periodOf(currents[0].href)} current, the URL's period is ${want}`);
  }
  const names = periods.map((p) => periodOf(p.href));
  if (names.some((n) => !n)) fail(where, "a period link has no period parameter");
  if (new Set(names).size !== names.length) fail(where, "two period links have the same period");
  return true;
}

// Clicks every period link (`which` = "all"), or the `which`-th (modulo) of those not current.
async function checkPeriods(where, snap, which) {
  if (!checkSelector(where, page.url(), snap.periods)) return;
  let picked = snap.periods.map((p, i) => i);
  if (which !== "all") {
    const others = picked.filter((i) => snap.periods[i].current !== "true");
    picked = others.length ? [others[which % others.length]] : [];
  }
  for (const i of picked) {
    const before = page.url();
    const link = page.locator("nav.pl-period a[href]").nth(i);
    const href = await link.evaluate((a) => a.href);
    const period = periodOf(href);
    // The new page's events (its assets load before the click returns) are charged to it.
    current = label(href);
    let res;
    try {
      [res] = await Promise.all([page.waitForEvent("response", (r) => r.request().isNavigationRequest()
        && r.request().frame() === page.mainFrame()), link.click()]);
    } catch (e) {
      fail(where, `the ${period} period link does not navigate: ${e.message.split("\n")[0]}`);
      return;
    }
    current = label(res.url());
    const here = current;
    counts.periodPages++;
    if (!(await afterNavigation(res))) return;
    const now = page.url();
    if (periodOf(now) !== period) fail(here, `clicking the ${period} link gave period=${periodOf(now)}`);
    if (otherParams(now) !== otherParams(before)) {
      fail(here, `the ${period} link changed other parameters (${otherParams(before)} -> ${otherParams(now)})`);
    }
    const after = await readPage();
    checkSelector(here, now, after.periods);
    if (!after.periods) return;
    const marked = after.periods.find((p) => p.current === "true");
    if (!marked || periodOf(marked.href) !== period) {
      fail(here, `after clicking ${period}, aria-current is on ${marked ? periodOf(marked.href) : "no link"}`);
    }
    await checkContent(here, after, {csv: false});
  }
}

// The same-origin links of a page (nav, sort headers, detail and period links) answer 200 with HTML;
// each URL is fetched once per run, at most MAX_LINKS in all. With `every` false only links of a
// shape not seen yet: the path with its addresses generalised, and the parameter names.
const MAX_LINKS = 300;
const linkSeen = new Set();
const shapeSeen = new Set();
function linkShape(u) {
  return u.pathname.replace(/0x[0-9a-fA-F]+/g, "0x*") + "?" + [...u.searchParams.keys()].sort().join("&");
}
async function checkLinks(where, links, every) {
  for (const href of links) {
    const u = new URL(href);
    if (u.origin !== base.origin || linkSeen.has(u.href) || linkSeen.size >= MAX_LINKS) continue;
    const shape = linkShape(u);
    if (!every && shapeSeen.has(shape)) continue;
    shapeSeen.add(shape);
    linkSeen.add(u.href);
    const res = await context.request.get(u.href, {failOnStatusCode: false, maxRedirects: 0});
    const type = res.headers()["content-type"] || "";
    if (res.status() !== 200) fail(where, `the link ${label(u.href)} answers HTTP ${res.status()}`);
    else if (!type.startsWith("text/html")) fail(where, `the link ${label(u.href)} is ${type}, not HTML`);
  }
}

// ---- The crawl -------------------------------------------------------------------------------
const visited = new Set();
let pages = 0;
async function visit(url, {collect}) {
  const key = label(url);
  if (visited.has(key)) return null;
  visited.add(key);
  if (!(await load(url))) return null;
  pages++;
  const first = pages === 1;
  if (shotDir) await page.screenshot({path: path.join(shotDir, `${shotName(url)}.png`), fullPage: true});
  await checkNarrow(key, url, true);
  const snap = await readPage();
  await checkContent(key, snap, {csv: true});
  await checkLinks(key, snap.links, first || allLinks);
  const found = collect ? snap.tables.flatMap((t) => t.links) : [];
  await checkPeriods(key, snap, first || allPeriods ? "all" : pages - 2);
  return {snap, found};
}

try {
  const home = await page.goto(new URL("/", base).href).catch((e) => {
    console.error(`check_dashboard: ${base.href} does not answer: ${e.message.split("\n")[0]}`);
    process.exit(2);
  });
  if (!home) process.exit(2);
  const first = await visit("/", {collect: true});
  const nav = first ? first.snap.nav.filter((h) => new URL(h).origin === base.origin) : [];
  let links = first ? first.found : [];
  for (const href of nav) {
    const r = await visit(href, {collect: true});
    if (r) links = links.concat(r.found);
  }
  for (const prefix of ["/predictoor/", "/feed/"]) {
    const picked = [...new Set(links.filter((h) => {
      const u = new URL(h);
      return u.origin === base.origin && u.pathname.startsWith(prefix);
    }).map((h) => new URL(h).pathname))].slice(0, details);
    if (details > 0 && picked.length === 0) fail("/", `no ${prefix}... link in any table`);
    for (const p of picked) await visit(p, {collect: false});
  }
  await checkCharts({page, base, fail, load, shotDir});
  counts.tableChecks = await checkTables({context, base, fail, shotDir});
} finally {
  await context.close();
  fs.rmSync(profile, {recursive: true, force: true});
  fs.rmSync(downloads, {recursive: true, force: true});
}

for (const f of failures) console.log(f);
console.error(`check_dashboard: ${pages} pages checked, ${failures.length} failure(s); ` +
  (shotDir ? `screenshots in ${shotDir}` : "no screenshots"));
console.error(`check_dashboard: also ${counts.periodPages} pages opened by period links; ${counts.charts} charts, ` +
  `${counts.tables} tables (${counts.cells} cells) against their API, ${counts.csvs} CSV downloads, ` +
  `${linkSeen.size} links`);
process.exit(failures.length ? 1 : 0);
