// The dashboard's tables in a real browser (docs/serve.md, "Tables, search and filters"), called by
// check_dashboard.mjs after its crawl, on a page of its own in the same browser:
//   - the leaderboard's ranking column (cash P&L) inside the viewport at 1280 px and at 390 px, and
//     at 1280 px every column the table shows first; Feeds' sort column (sales) in view at both
//     widths and marked;
//   - the predictoor page's summary, per-feed and per-day tables with cash P&L in view at 1280 px
//     and at 390 px;
//   - the columns behind "More columns" hidden until its switch is clicked (no script involved),
//     and kept open by a sort after it (the script carries cols=all into the links and address);
//   - a column's definition shown on hover and on keyboard focus, the text of docs/serve.md;
//   - the search box: a 4+ hex digit prefix in capitals lands on the predictoor's page;
//   - paging: the count, the next page's rows equal to the API's, the current page marked;
//   - the filter form: a minimum of predictions keeps the rows it says, stays in the form and in
//     the sort links; a bad value is a 400, an unknown parameter is not;
//   - compare from the lists: rows ticked on Predictoors and Feeds open /compare with them, at most
//     five (the script disables the rest); without the script the form works and six is a 400;
//   - the navigation marks the current page (aria-current="page", styled apart);
//   - no console error, page error or failed request on any page opened here.
import fs from "node:fs";
import path from "node:path";
import {fileURLToPath} from "node:url";

import {settle} from "./settle.mjs";

const WIDE = {width: 1280, height: 900};
const NARROW = {width: 390, height: 844};
const DOCS = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "docs", "serve.md");

// docs/serve.md's column definitions: {column: text}.
function docDefinitions() {
  const text = fs.readFileSync(DOCS, "utf8");
  const from = text.indexOf("<!-- columns: begin -->");
  const to = text.indexOf("<!-- columns: end -->");
  const defs = {};
  if (from < 0 || to < 0) return defs;
  for (const line of text.slice(from, to).split("\n")) {
    const m = line.match(/^\| `([^`]+)` \| (.*) \|$/);
    if (m) defs[m[1]] = m[2];
  }
  return defs;
}

// Returns how many groups of checks ran; 0 against a server that is not predlake's (the fixture
// site of tests/e2e/dashboard_fixture.sh, whose /healthz does not name a snapshot).
export async function checkTables({context, base, fail, shotDir}) {
  const health = await context.request.get(new URL("/healthz", base).href, {failOnStatusCode: false});
  if (!(await health.text()).startsWith("ok: snapshot run")) {
    console.error("check_dashboard: the table checks skipped (not a predlake server)");
    return 0;
  }
  const page = await context.newPage();
  page.setDefaultTimeout(20000);
  let where = "tables";
  page.on("console", (msg) => {
    if (msg.type() === "error") fail(where, `console error: ${msg.text()}`);
  });
  page.on("pageerror", (err) => fail(where, `page error: ${err.message}`));
  page.on("response", (res) => {
    if (res.status() >= 400) fail(where, `HTTP ${res.status()} for ${res.url()}`);
  });
  const url = (p) => new URL(p, base).href;
  const api = async (p) => (await context.request.get(url(p))).json();
  async function open(p, viewport = WIDE) {
    where = `tables ${p}`;
    await page.setViewportSize(viewport);
    const res = await page.goto(url(p), {waitUntil: "load"});
    if (!res || res.status() !== 200) fail(where, `answered HTTP ${res ? res.status() : "nothing"}`);
    await settle(page);
  }
  // The right edge of the first cell of `col` in table #id (header and first row), and whether
  // it is displayed.
  const cellBox = (id, col) => page.evaluate(([id, col]) => {
    const box = (el) => {
      if (!el) return null;
      const r = el.getBoundingClientRect();
      return {left: r.left, right: r.right, shown: r.width > 0 && getComputedStyle(el).display !== "none"};
    };
    const t = document.getElementById(id);
    return {
      th: box(t && t.querySelector(`thead th[data-col="${col}"]`)),
      td: box(t && t.querySelector(`tbody td[data-col="${col}"]`)),
      inner: window.innerWidth,
    };
  }, [id, col]);
  const inView = (b) => b && b.shown && b.left >= 0 && b.right <= (b.inner || 0) + 1;
  let checks = 0;
  try {
    // ---- The ranking column at both widths; every first-shown column at 1280 px.
    for (const vp of [WIDE, NARROW]) {
      await open("/predictoors", vp);
      const b = await cellBox("predictoors", "cash_pnl");
      for (const part of ["th", "td"]) {
        const box = b[part] && {...b[part], inner: b.inner};
        if (!inView(box)) {
          fail(where, `at ${vp.width} px the cash P&L ${part} is not inside the viewport (${JSON.stringify(b[part])})`);
        }
      }
      checks++;
    }
    await open("/predictoors");
    const wide = await page.evaluate(() => [...document.querySelectorAll("#predictoors thead th")]
      .filter((th) => getComputedStyle(th).display !== "none")
      .map((th) => ({col: th.dataset.col, right: th.getBoundingClientRect().right})));
    for (const c of wide) {
      if (c.right > WIDE.width + 1) fail(where, `at 1280 px the shown column ${c.col} ends at ${Math.round(c.right)} px`);
    }
    if (wide.length < 6 || wide.length > 12) fail(where, `the leaderboard shows ${wide.length} columns first`);
    for (const vp of [NARROW, WIDE]) {
      await open("/feeds", vp);
      const sales = await cellBox("feeds", "sales");
      if (!inView({...sales.th, inner: sales.inner})) {
        fail(where, `at ${vp.width} px the Feeds sort column (sales) is not in view`);
      }
    }
    const sorted = await page.$eval('#feeds thead th[data-col="sales"]', (th) => !!th.querySelector("[aria-sort]"));
    if (!sorted) fail(where, "the Feeds sales header is not marked as the sort column");
    checks++;

    // ---- The predictoor page: cash P&L in view in its summary, per-feed and per-day tables.
    const leaders = (await api("/api/predictoors?period=all")).tables.predictoors;
    const userCol = leaders.columns.indexOf("user");
    const someone = leaders.rows.map((r) => r[userCol])
      .find((u) => typeof u === "string" && u.length === 42);
    if (!someone) fail(where, "no predictoor on the leaderboard");
    for (const vp of [WIDE, NARROW]) {
      if (!someone) break;
      await open(`/predictoor/${someone}?period=all`, vp);
      for (const id of ["summary", "feeds", "daily"]) {
        const b = await cellBox(id, "cash_pnl");
        for (const part of ["th", "td"]) {
          if (!inView(b[part] && {...b[part], inner: b.inner})) {
            fail(where, `at ${vp.width} px the ${id} table's cash P&L ${part} is not in view (${JSON.stringify(b[part])})`);
          }
        }
      }
      if (shotDir) await page.screenshot({path: path.join(shotDir, `predictoor-tables-${vp.width}.png`), fullPage: true});
    }
    checks++;

    // ---- More columns: hidden until the switch; the sorted column always shown.
    await open("/predictoors");
    const hidden = () => page.$eval('#predictoors thead th[data-col="refund_claimed"]',
      (th) => getComputedStyle(th).display === "none");
    if (!(await hidden())) fail(where, "refund_claimed is shown before More columns");
    await page.click('label[for="more-predictoors"]');
    if (await hidden()) fail(where, "More columns does not show refund_claimed");
    await open("/predictoors?sort=refund_pending&dir=desc");
    const sortShown = await page.$eval('#predictoors thead th[data-col="refund_pending"]',
      (th) => getComputedStyle(th).display !== "none");
    if (!sortShown) fail(where, "the sort column refund_pending is hidden");
    await open("/predictoors?cols=all");
    if (await hidden()) fail(where, "cols=all hides refund_claimed");
    // A sort after More columns keeps them open; closed again, the links drop cols.
    await open("/predictoors");
    await page.click('label[for="more-predictoors"]');
    if (new URL(page.url()).searchParams.get("cols") !== "all") {
      fail(where, `More columns is not in the address (${page.url()})`);
    }
    const sortLink = '#predictoors thead th[data-col="predictions"] a';
    await Promise.all([page.waitForNavigation(), page.click(sortLink)]);
    const after = new URL(page.url()).searchParams;
    if (after.get("cols") !== "all" || after.get("sort") !== "predictions") {
      fail(where, `a sort after More columns opens ?${after}`);
    }
    if (await hidden()) fail(where, "a sort closes More columns");
    if (!(await page.isChecked("#more-predictoors"))) fail(where, "the More columns switch is off after a sort");
    await page.click('label[for="more-predictoors"]');
    if (!(await hidden())) fail(where, "the switch does not close More columns");
    const closedHref = await page.$eval(sortLink, (a) => a.getAttribute("href"));
    if (closedHref.includes("cols=")) fail(where, `a sort link keeps cols after More columns closed: ${closedHref}`);
    if (new URL(page.url()).searchParams.has("cols")) fail(where, "the address keeps cols after More columns closed");
    checks++;

    // ---- Definitions on hover and focus, the docs' text.
    const defs = docDefinitions();
    if (!defs.cash_pnl) fail(where, `no column definitions in ${DOCS}`);
    await open("/predictoors");
    const tip = () => page.$eval("#def-predictoors-cash_pnl", (el) => ({
      shown: getComputedStyle(el).display !== "none", text: el.textContent.trim()}));
    if ((await tip()).shown) fail(where, "the cash P&L definition shows without hover");
    await page.hover('#predictoors thead th[data-col="cash_pnl"]');
    let t = await tip();
    if (!t.shown) fail(where, "hovering the cash P&L header does not show its definition");
    if (t.text !== defs.cash_pnl) fail(where, `the cash P&L definition "${t.text}" is not the docs' "${defs.cash_pnl}"`);
    await page.mouse.move(0, 0);
    await page.focus('#predictoors thead th[data-col="accuracy"] a');
    const focused = await page.$eval("#def-predictoors-accuracy", (el) => ({
      shown: getComputedStyle(el).display !== "none", text: el.textContent.trim()}));
    if (!focused.shown) fail(where, "focusing the accuracy header does not show its definition");
    if (focused.text !== defs.accuracy) fail(where, "the accuracy definition is not the docs'");
    checks++;

    // ---- Search: a prefix of 4+ hex digits, in capitals, lands on the predictoor.
    const board = (await api("/api/predictoors?period=all")).tables.predictoors;
    const feeds = (await api("/api/feeds?period=all")).tables.feeds;
    const users = board.rows.map((r) => r[board.columns.indexOf("user")]);
    const all = users.concat(feeds.rows.map((r) => r[feeds.columns.indexOf("contract")]));
    const target = users[users.length - 1];
    let prefix = null;
    for (let n = 4; n <= 40 && !prefix; n++) {
      const d = target.slice(2, 2 + n);
      if (all.filter((a) => a.includes(d)).length === 1) prefix = d;
    }
    await open("/feeds");
    await page.fill('form.pl-search input[name="q"]', prefix.toUpperCase());
    await Promise.all([page.waitForNavigation(), page.press('form.pl-search input[name="q"]', "Enter")]);
    if (new URL(page.url()).pathname !== `/predictoor/${target}`) {
      fail(where, `searching ${prefix.toUpperCase()} opens ${page.url()}, not /predictoor/${target}`);
    }
    await open("/search?q=usdt");
    if (shotDir) await page.screenshot({path: path.join(shotDir, "search.png"), fullPage: true});
    await open("/search?q=0x12");
    const note = await page.textContent("main");
    if (!/at least 4 hexadecimal digits|match/.test(note)) fail(where, "a short search says nothing useful");
    checks++;

    // ---- Paging: two rows a page.
    if (board.rows.length > 3) {
      await open("/predictoors?period=all&per_page=2");
      const count = await page.textContent("#predictoors ~ nav.pl-paging .pl-count, .pl-table-scroll ~ nav.pl-paging .pl-count");
      if (!count.includes(`of ${board.rows.length}`)) fail(where, `the count says "${count}", not of ${board.rows.length}`);
      await Promise.all([page.waitForNavigation(), page.click('nav.pl-paging a[rel="next"]')]);
      const u = new URL(page.url());
      if (u.searchParams.get("page") !== "2") fail(where, `Next opens ${u.search}`);
      const shown = await page.$$eval("#predictoors tbody td[data-col=user]", (tds) => tds.map((td) => td.dataset.value));
      const want = users.slice(2, 4);
      if (JSON.stringify(shown) !== JSON.stringify(want)) fail(where, `page 2 shows ${shown}, the API ${want}`);
      const current = await page.$eval('nav.pl-paging a[aria-current="page"]', (a) => a.textContent.trim());
      if (current !== "2") fail(where, `the current page is marked ${current}`);
      if (shotDir) await page.screenshot({path: path.join(shotDir, "predictoors-page-2.png"), fullPage: true});
      checks++;
    }

    // ---- Filters: the form, its values kept, the rows they keep.
    const counts = board.rows.map((r) => r[board.columns.indexOf("predictions")]).sort((a, b) => a - b);
    const median = counts[Math.floor(counts.length / 2)];
    await open("/predictoors?period=all");
    await page.click("details.pl-filters-box > summary");
    await page.fill('form.pl-filters input[name="min_predictions"]', String(median));
    await Promise.all([page.waitForNavigation(), page.click('form.pl-filters button[type="submit"]')]);
    const fu = new URL(page.url());
    if (fu.searchParams.get("min_predictions") !== String(median) || fu.searchParams.get("period") !== "all") {
      fail(where, `the filter form opens ${fu.search}`);
    }
    const kept = await page.$$eval("#predictoors tbody td[data-col=predictions]", (tds) => tds.map((td) => Number(td.dataset.value)));
    const expect = counts.filter((c) => c >= median).length;
    if (kept.length !== expect || kept.some((c) => c < median)) {
      fail(where, `min_predictions=${median} keeps ${kept.length} rows, ${expect} expected`);
    }
    const value = await page.inputValue('form.pl-filters input[name="min_predictions"]');
    if (value !== String(median)) fail(where, `the form shows min_predictions ${value}`);
    const sortHref = await page.$eval('#predictoors thead th[data-col="stake"] a', (a) => a.href);
    if (!sortHref.includes(`min_predictions=${median}`)) fail(where, "a sort link drops the filter");
    if (shotDir) await page.screenshot({path: path.join(shotDir, "predictoors-filtered.png"), fullPage: true});
    const bad = await context.request.get(url("/predictoors?min_predictions=many"), {failOnStatusCode: false});
    if (bad.status() !== 400) fail(where, `min_predictions=many answers ${bad.status()}, not 400`);
    const utm = await context.request.get(url("/predictoors?utm_source=x"), {failOnStatusCode: false});
    if (utm.status() !== 200) fail(where, `utm_source=x answers ${utm.status()}, not 200`);
    checks++;

    // ---- Compare from the lists: tick rows, "Compare selected".
    for (const id of ["predictoors", "feeds"]) {
      await open(`/${id}?period=all`);
      const values = await page.$$eval(`input.pl-pick[form="compare-${id}"]`, (bs) => bs.map((b) => b.value));
      if (values.length < 2) {
        fail(where, `${values.length} rows to pick on /${id}`);
        continue;
      }
      const button = `form#compare-${id} button[type="submit"]`;
      if (!(await page.isDisabled(button))) fail(where, "Compare selected is enabled with no row ticked");
      const picks = values.slice(0, 5);
      for (const v of picks) await page.check(`input.pl-pick[value="${v}"]`);
      if (values.length > 5 && !(await page.isDisabled(`input.pl-pick[value="${values[5]}"]`))) {
        fail(where, "a sixth row can be ticked");
      }
      if (shotDir && id === "predictoors") {
        await page.screenshot({path: path.join(shotDir, "predictoors-picked.png"), fullPage: false});
      }
      await Promise.all([page.waitForNavigation(), page.click(button)]);
      const cu = new URL(page.url());
      if (cu.pathname !== "/compare" || cu.searchParams.get("period") !== "all" ||
          JSON.stringify(cu.searchParams.getAll("a")) !== JSON.stringify(picks)) {
        fail(where, `Compare selected opens ${cu.pathname}${cu.search}`);
      }
      const drawn = await page.$$eval("figure.pl-chart", (fs) => fs.map((f) => f.getAttribute("data-series")));
      if (drawn.length !== 3 || drawn.some((n) => n !== String(picks.length))) {
        fail(where, `the comparison of ${picks.length} draws ${JSON.stringify(drawn)} series`);
      }
    }
    {
      // Without the script: every box can be ticked; six is /compare's 400 line.
      const bare = await context.newPage();
      await bare.route("**/assets/dashboard.js", (r) => r.fulfill({contentType: "text/javascript", body: ""}));
      await bare.setViewportSize(WIDE);
      where = "tables /predictoors without script";
      await bare.goto(url("/predictoors?period=all"), {waitUntil: "load"});
      const values = await bare.$$eval("input.pl-pick", (bs) => bs.map((b) => b.value));
      const picks = values.slice(0, Math.min(6, values.length));
      for (const v of picks) await bare.check(`input.pl-pick[value="${v}"]`);
      const [res] = await Promise.all([bare.waitForNavigation(), bare.click("form.pl-compare button")]);
      const want = picks.length > 5 ? 400 : 200;
      if (!res || res.status() !== want) fail(where, `${picks.length} ticked answered ${res ? res.status() : "nothing"}, not ${want}`);
      if (want === 400 && !(await bare.textContent("body")).includes("compare at most 5")) {
        fail(where, "six ticked do not get the line saying at most five");
      }
      await bare.close();
    }
    checks++;

    // ---- The navigation's current page, on each page of the nav (and a detail page).
    for (const [p, link] of [["/", "/"], ["/predictoors", "/predictoors"], ["/feeds", "/feeds"],
      ["/runs", "/runs"], [`/predictoor/${target}`, "/predictoors"]]) {
      await open(p);
      const marks = await page.$$eval('nav.pl-nav a[aria-current="page"]', (as) => as.map((a) => ({
        path: new URL(a.href).pathname,
        bg: getComputedStyle(a).backgroundColor,
        other: [...document.querySelectorAll("nav.pl-nav a:not([aria-current])")]
          .map((o) => getComputedStyle(o).backgroundColor)[0],
      })));
      if (marks.length !== 1 || marks[0].path !== link) {
        fail(where, `the nav marks ${JSON.stringify(marks.map((m) => m.path))}, not ${link}`);
      } else if (marks[0].bg === marks[0].other) {
        fail(where, "the nav's current page looks like the others");
      }
    }
    checks++;
  } catch (e) {
    fail(where, `the table checks stopped: ${e.message.split("\n")[0]}`);
  } finally {
    await page.close();
  }
  return checks;
}
