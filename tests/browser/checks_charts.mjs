// The charts' behaviour in a real browser (docs/web.md, "The browser test"), called by
// check_dashboard.mjs after its crawl on the real server (skipped on a site without the pages it
// needs, such as the fixture):
//   - the partial last day: marked in the period label, in the charts (a note, data-partial) and in
//     the daily table (.pl-partial), and never drawn as a drop: each series stops at the last whole
//     day and the partial day's per-day totals are drawn at their pace;
//   - pending outcomes: the P&L chart has its "pending:" series apart, and says what is pending;
//   - a click on a legend entry hides its series (and its partial-day tail), a second shows it;
//   - a tooltip follows the cursor;
//   - "1D" is the last 24 hours; the Runs page's period links change what it lists;
//   - /compare draws five series, reached from the leaderboard's link; six addresses or a bad one
//     is 400 with a message.
// Each check reports through `fail(where, what)`; `load(url)` navigates as the crawl does (its
// console and request failures are charged to that page).
import path from "node:path";

async function evaluate(page, fn, arg) {
  return page.evaluate(fn, arg);
}

// What a chart drew: per uPlot series its label, shown state, and the drawn values.
function readChart(id) {
  const fig = document.getElementById(id);
  if (!fig || !fig.plPlot) return null;
  const u = fig.plPlot;
  const data = JSON.parse(fig.querySelector('script[type="application/json"]').textContent);
  return {
    data,
    partialAttr: fig.getAttribute("data-partial"),
    note: [...fig.querySelectorAll(".pl-chart-note")].map((p) => p.textContent).join(" "),
    series: u.series.map((s, i) => ({label: s.label, show: s.show, values: u.data[i]})),
    legend: [...fig.querySelectorAll(".u-legend .u-series")].map((tr) => ({
      text: tr.textContent, off: tr.classList.contains("u-off"), hidden: tr.style.display === "none"})),
  };
}

export async function checkPartialDay({page, fail, load}) {
  const where = "/ (partial day)";
  if (!(await load("/"))) return;
  const label = await evaluate(page, () => {
    const el = document.querySelector("nav.pl-period .pl-period-days");
    return el ? el.textContent : "";
  });
  if (!/\(partial day\)/.test(label)) fail(where, `the period label does not mark the partial day: "${label}"`);
  const c = await evaluate(page, readChart, "predictions_daily");
  if (!c) return fail(where, "no drawn predictions_daily chart");
  if (!c.data.partial) return fail(where, "predictions_daily has no partial day in its JSON");
  if (c.partialAttr !== "true") fail(where, "predictions_daily is not marked data-partial");
  if (!/partial/.test(c.note)) fail(where, "predictions_daily has no partial-day note");
  const n = c.data.x.length;
  if (n < 2) return fail(where, "the default week has fewer than two days");
  // Series 1 is "predictions" (a per-day total), series 2 its dashed tail.
  const main = c.series[1];
  const tail = c.series[2];
  if (main.values[n - 1] !== null) fail(where, "the solid line goes on into the partial day");
  if (!tail || !/\(partial day\)$/.test(tail.label)) return fail(where, "no partial-day tail series");
  const raw = c.data.series[0].values[n - 1];
  const prev = c.data.series[0].values[n - 2];
  const pace = 86400 / c.data.partial.covered_s;
  if (Math.abs(tail.values[n - 1] - raw * pace) > 1e-6 * Math.max(1, raw * pace)) {
    fail(where, `the partial day is drawn at ${tail.values[n - 1]}, not at its pace ${raw * pace}`);
  }
  if (raw < 0.5 * prev && tail.values[n - 1] < 0.5 * prev) {
    fail(where, `the partial day is drawn as a drop (${tail.values[n - 1]} after ${prev})`);
  }
  if (!c.legend[2] || !c.legend[2].hidden) fail(where, "the tail has a visible legend row");
  const marks = await evaluate(page, () =>
    [...document.querySelectorAll("table#daily td[data-col=day] .pl-partial")].map((s) => s.textContent));
  if (marks.length !== 1 || !/UTC \(partial\)/.test(marks[0])) {
    fail(where, `the daily table marks ${marks.length} partial days (${marks.join("; ")}), not one`);
  }
}

export async function checkPending({page, fail, load}) {
  const where = "/ (pending)";
  if (!(await load("/"))) return;
  const c = await evaluate(page, readChart, "pnl_daily");
  if (!c) return fail(where, "no drawn pnl_daily chart");
  const pending = c.data.series.filter((s) => s.kind === "pending");
  if (pending.length !== 2 || !pending.every((s) => /^pending: /.test(s.label))) {
    fail(where, `pnl_daily has ${pending.length} pending series, not the two (claims, truevals)`);
  }
  if (!/Pending \(shaded, not a loss\)/.test(c.note)) fail(where, "pnl_daily does not say what is pending");
  const cash = c.data.series.find((s) => s.label === "cash P&L per day");
  if (!cash || cash.kind !== "sum") fail(where, "pnl_daily has no cash P&L series apart from pending");
  const table = await evaluate(page, () => !!document.querySelector("table#pending"));
  if (!table) fail(where, "no pending table beside the chart");
}

export async function checkLegendToggle({page, fail, load}) {
  const where = "/ (legend)";
  if (!(await load("/"))) return;
  const rows = page.locator("#predictions_daily .u-legend .u-series");
  if ((await rows.count()) < 2) return fail(where, "predictions_daily has no legend rows");
  await rows.nth(1).click();
  let c = await evaluate(page, readChart, "predictions_daily");
  if (c.series[1].show !== false || !c.legend[1].off) fail(where, "a legend click does not hide its series");
  if (c.series[2] && /\(partial day\)$/.test(c.series[2].label) && c.series[2].show !== false) {
    fail(where, "the hidden series' partial-day tail stays shown");
  }
  await rows.nth(1).click();
  c = await evaluate(page, readChart, "predictions_daily");
  if (c.series[1].show !== true) fail(where, "a second legend click does not show the series again");
  // Series differ by dash as well as colour.
  const dashes = await evaluate(page, () => {
    const u = document.getElementById("accuracy_daily").plPlot;
    return u.series.slice(1).filter((s) => !/\(partial day\)$/.test(s.label))
      .map((s) => JSON.stringify(s.dash || []));
  });
  if (new Set(dashes).size !== dashes.length) fail(where, `accuracy_daily's series share dash styles: ${dashes}`);
  // A tooltip follows the cursor over the plot.
  const over = page.locator("#predictions_daily .u-over");
  const box = await over.boundingBox();
  if (box) {
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
    const tip = await evaluate(page, () => {
      const t = document.querySelector("#predictions_daily .pl-tooltip");
      return t && t.style.display !== "none" ? t.textContent : "";
    });
    if (!/^\d{4}-\d\d-\d\d/.test(tip) || !/predictions: /.test(tip)) {
      fail(where, `no tooltip with the day and values under the cursor ("${tip}")`);
    }
  }
}

export async function checkPeriods({page, fail, load}) {
  if (await load("/?period=1d")) {
    const label = await evaluate(page, () => document.querySelector("nav.pl-period .pl-period-days").textContent);
    if (!/^the last 24 h, /.test(label)) fail("/?period=1d", `1D is not labelled the last 24 hours: "${label}"`);
  }
  if (await load("/?period=1m")) {
    const label = await evaluate(page, () => document.querySelector("nav.pl-period .pl-period-days").textContent);
    if (!/the lake starts/.test(label)) fail("/?period=1m", `1M does not say it is clamped to the lake's start: "${label}"`);
  }
  const counts = {};
  for (const p of ["1d", "all"]) {
    if (!(await load(`/runs?period=${p}`))) return;
    counts[p] = await evaluate(page, () => ({
      rows: document.querySelectorAll("table#runs tbody tr").length,
      label: document.querySelector("nav.pl-period .pl-period-days").textContent,
    }));
  }
  if (!/^runs started from /.test(counts["1d"].label)) fail("/runs?period=1d", `the label does not say which runs: "${counts["1d"].label}"`);
  if (counts.all.label !== "every run") fail("/runs?period=all", `the label is "${counts.all.label}"`);
  if (counts["1d"].rows > counts.all.rows) fail("/runs", "1D lists more runs than all");
}

export async function checkCompare({page, base, fail, load, shotDir}) {
  const where = "/compare";
  if (!(await load("/predictoors"))) return;
  const href = await evaluate(page, () => {
    const a = document.querySelector("a.pl-action[href^='/compare']");
    return a ? a.href : null;
  });
  if (!href) return fail("/predictoors", "no link to compare the first predictoors");
  const n = new URL(href).searchParams.getAll("a").length;
  if (n !== 5) fail("/predictoors", `the compare link has ${n} addresses, not 5`);
  if (!(await load(href))) return;
  if (shotDir) {
    await page.screenshot({path: path.join(shotDir, "compare.png"), fullPage: true});
    await page.setViewportSize({width: 390, height: 844});
    await page.screenshot({path: path.join(shotDir, "compare-narrow.png"), fullPage: true});
    await page.setViewportSize({width: 1280, height: 900});
  }
  const drawn = await evaluate(page, () => [...document.querySelectorAll("figure.pl-chart")].map((f) => ({
    id: f.id, drawn: f.getAttribute("data-drawn"), series: f.getAttribute("data-series")})));
  if (drawn.length !== 3) fail(where, `${drawn.length} charts, not 3`);
  for (const d of drawn) {
    if (d.drawn !== "true") fail(where, `chart ${d.id} not drawn`);
    if (d.series !== "5") fail(where, `chart ${d.id} draws ${d.series} series, not 5`);
  }
  const c = await evaluate(page, readChart, "compare_cumulative_pnl");
  const labels = c ? c.series.slice(1).map((s) => s.label).filter((l) => !/\(partial day\)$/.test(l)) : [];
  if (new Set(labels).size !== 5) fail(where, `the series' labels are not five distinct ones: ${labels}`);
  // Bad requests: 400 with a message.
  const addrs = new URL(href).searchParams.getAll("a");
  const six = addrs.concat(["0x" + "1".repeat(40)]).map((a) => `a=${a}`).join("&");
  for (const [q, why] of [[six, "at most 5"], ["a=0x12", "not an address"], ["", "no address"]]) {
    const res = await fetch(new URL(`/api/compare?${q}`, base));
    const body = await res.json().catch(() => ({}));
    if (res.status !== 400 || typeof body.error !== "string" || !body.error.includes(why)) {
      fail(where, `?${q.slice(0, 40)}… answered ${res.status} ${JSON.stringify(body).slice(0, 120)}, not 400 "${why}"`);
    }
  }
}

// All of the above; a site without the real server's pages (the fixture) is skipped.
export async function checkCharts(ctx) {
  const res = await fetch(new URL("/api/", ctx.base)).catch(() => null);
  const api = res && res.ok ? await res.json().catch(() => null) : null;
  if (!api || !api.charts || !api.charts.pnl_daily || !api.period || !("holds_to" in api.period)) return;
  await checkPartialDay(ctx);
  await checkPending(ctx);
  await checkLegendToggle(ctx);
  await checkPeriods(ctx);
  await checkCompare(ctx);
}
