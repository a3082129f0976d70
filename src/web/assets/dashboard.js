// predlake dashboard (docs/web.md): draws every <figure class="pl-chart"> with uPlot and adds small
// progressive enhancements. The pages are server-rendered and complete without this script: every
// number is in a table, every chart's data is in its JSON (and in the page's API).
//
// A chart figure holds <script type="application/json">{"x": [unix seconds ...], "series":
// [{"label": "...", "values": [number or null, ...]}]}</script>. Drawn: the figure gets
// data-drawn="true". Bad JSON or data: a visible message in the figure, data-drawn="false" and
// console.error (the browser test fails on it). No points: a note, data-drawn="true" and
// data-empty="true".
(function () {
  "use strict";

  var PALETTE = ["#2563eb", "#d9480f", "#2f9e44", "#ae3ec9", "#0c8599", "#e67700", "#c2255c",
    "#5c7cfa"];
  var CHART_HEIGHT = 260;
  var DASH = "\u2014";
  var DAY_INCRS = [1, 2, 7, 14, 30, 61, 91, 182, 365, 730, 1826].map(function (d) {
    return d * 86400;
  });

  // ---- Numbers and times -----------------------------------------------------------------------
  function formatFull(v) {
    if (v === null || v === undefined) return DASH;
    var abs = Math.abs(v);
    var digits = abs !== 0 && abs < 1 ? 4 : abs < 100 ? 2 : 0;
    return v.toLocaleString("en-US", {maximumFractionDigits: digits});
  }

  function formatCompact(v) {
    if (v === null || v === undefined) return "";
    var abs = Math.abs(v);
    if (abs >= 1e9) return trimZeros((v / 1e9).toFixed(abs >= 1e10 ? 0 : 1)) + "B";
    if (abs >= 1e6) return trimZeros((v / 1e6).toFixed(abs >= 1e7 ? 0 : 1)) + "M";
    if (abs >= 1e4) return trimZeros((v / 1e3).toFixed(abs >= 1e5 ? 0 : 1)) + "k";
    if (abs !== 0 && abs < 1) return trimZeros(v.toFixed(Math.min(6, 2 - Math.floor(Math.log10(abs)))));
    return trimZeros(v.toFixed(abs < 10 ? 2 : abs < 100 ? 1 : 0));
  }

  function trimZeros(s) {
    return s.indexOf(".") < 0 ? s : s.replace(/0+$/, "").replace(/\.$/, "");
  }

  function pad2(n) {
    return (n < 10 ? "0" : "") + n;
  }

  // Unix seconds -> "2024-07-23", or "2024-07-23 14:05" off midnight (UTC: the dashboard's days
  // are UTC slot days).
  function utcText(ts) {
    var d = new Date(ts * 1000);
    var text = d.getUTCFullYear() + "-" + pad2(d.getUTCMonth() + 1) + "-" + pad2(d.getUTCDate());
    if (d.getUTCHours() || d.getUTCMinutes()) {
      text += " " + pad2(d.getUTCHours()) + ":" + pad2(d.getUTCMinutes());
    }
    return text;
  }

  function localText(date) {
    return date.toLocaleString(undefined, {year: "numeric", month: "short", day: "numeric",
      hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short"});
  }

  // ---- Chart data ------------------------------------------------------------------------------
  function isNumber(v) {
    return typeof v === "number" && isFinite(v);
  }

  // The chart JSON checked against the contract; throws an Error saying what is wrong.
  function checkChartData(data) {
    if (data === null || typeof data !== "object" || Array.isArray(data)) {
      throw new Error("the chart data is not an object");
    }
    if (!Array.isArray(data.x)) throw new Error('"x" is not an array');
    for (var i = 0; i < data.x.length; i++) {
      if (!isNumber(data.x[i])) throw new Error('"x"[' + i + "] is not a number (unix seconds)");
      if (i > 0 && data.x[i] <= data.x[i - 1]) throw new Error('"x" is not increasing at ' + i);
    }
    if (!Array.isArray(data.series) || data.series.length === 0) {
      throw new Error('"series" is not a non-empty array');
    }
    data.series.forEach(function (s, k) {
      if (s === null || typeof s !== "object") throw new Error("series " + k + " is not an object");
      if (typeof s.label !== "string" || s.label === "") {
        throw new Error("series " + k + " has no label");
      }
      if (!Array.isArray(s.values)) throw new Error("series " + k + ' has no "values" array');
      if (s.values.length !== data.x.length) {
        throw new Error("series " + k + " has " + s.values.length + " values for " +
          data.x.length + " x values");
      }
      for (var j = 0; j < s.values.length; j++) {
        if (s.values[j] !== null && !isNumber(s.values[j])) {
          throw new Error("series " + k + " value " + j + " is not a number or null");
        }
      }
    });
  }

  function figureName(fig) {
    return fig.id ? "#" + fig.id : "(a chart without id)";
  }

  function showChartMessage(fig, text, isError) {
    var p = document.createElement("p");
    p.className = isError ? "pl-chart-error" : "pl-chart-empty";
    if (isError) p.setAttribute("role", "alert");
    p.textContent = text;
    fig.appendChild(p);
  }

  function failChart(fig, why) {
    fig.setAttribute("data-drawn", "false");
    showChartMessage(fig, "This chart cannot be shown: " + why + ".", true);
    console.error("pl-chart " + figureName(fig) + ": " + why);
  }

  // One dash pattern per series (solid, dashed, dotted, ...), so that lines on top of each other
  // and colours hard to tell apart still differ.
  var DASHES = [[], [10, 4], [2, 3], [12, 3, 3, 3], [5, 5], [1, 5], [16, 6]];
  var TAIL_DASH = [4, 4];

  // The uPlot columns for the chart's series. A partial last day (data.partial: docs/serve.md) is
  // never drawn as a drop: each series stops at the last whole day, and a dashed "tail" column
  // joins it to a hollow point at the partial day, where a per-day total ("sum", and pending stake)
  // stands at its pace for a whole day and a level (a ratio, a running total) as it is. The
  // legend, the tooltip and the tables show the value so far.
  function planSeries(data) {
    var n = data.x.length;
    var partialIdx = -1;
    var pace = 1;
    if (data.partial && typeof data.partial === "object" && n > 0 && data.x[n - 1] === data.partial.x) {
      partialIdx = n - 1;
      var covered = Number(data.partial.covered_s);
      if (isNumber(covered) && covered > 0 && covered < 86400) pace = 86400 / covered;
    }
    var columns = [];
    var tails = [];
    data.series.forEach(function (s, k) {
      var color = PALETTE[k % PALETTE.length];
      var pending = s.kind === "pending" || /^pending: /.test(s.label);
      var scale = s.axis === "right" ? "right" : "y";
      var main = s.values.slice();
      if (partialIdx >= 0) main[partialIdx] = null;
      var opts = {
        label: s.label,
        stroke: color,
        width: pending ? 1.5 : 2,
        dash: pending ? [3, 3] : DASHES[k % DASHES.length],
        fill: pending ? color + "2e" : undefined,
        scale: scale,
        spanGaps: false,  // null = no value that day: a gap, never a zero
        points: {show: n <= 2 ? true : undefined, size: 6, fill: color},
        value: function (u, v, si, idx) {
          var raw = idx === null || idx === undefined ? v : s.values[idx];
          var text = formatFull(raw);
          if (idx === partialIdx && raw !== null && raw !== undefined) text += " so far";
          return text;
        },
      };
      columns.push({opts: opts, values: main});
      if (partialIdx >= 0) {
        var drawn = s.values[partialIdx];
        if (drawn !== null && (s.kind === "sum" || s.kind === "pending") && pace !== 1) {
          drawn = drawn * pace;
        }
        var tail = data.x.map(function () { return null; });
        if (partialIdx > 0) tail[partialIdx - 1] = s.values[partialIdx - 1];
        tail[partialIdx] = drawn;
        // uPlot's series indexes: series 0 is x, so column i is series i + 1.
        tails.push({of: columns.length, at: columns.length + 1});
        columns.push({tail: true, values: tail, opts: {
          label: s.label + " (partial day)",
          stroke: color,
          width: 2,
          dash: TAIL_DASH,
          scale: scale,
          spanGaps: false,
          fill: pending ? color + "14" : undefined,
          points: {show: true, size: 8, width: 2, stroke: color, fill: "#ffffff"},
          value: function () { return ""; },
        }});
      }
    });
    return {columns: columns, tails: tails, partialIdx: partialIdx, pace: pace};
  }

  // The tails are drawn, not listed: their legend rows are hidden.
  function hideTails(u, plan) {
    var rows = u.root.querySelectorAll(".u-legend .u-series");
    plan.columns.forEach(function (col, i) {
      if (col.tail && rows[i + 1]) {
        rows[i + 1].style.display = "none";
        rows[i + 1].classList.add("pl-tail");
      }
    });
  }

  function followTail(u, plan, idx, o) {
    if (!o || o.show === undefined) return;
    plan.tails.forEach(function (t) {
      if (t.of === idx && u.series[t.at].show !== o.show) u.setSeries(t.at, {show: o.show});
    });
  }

  // A tooltip beside the cursor: the day and each shown series' value (the partial day says so).
  function tooltipPlugin(data) {
    var tip;
    function init(u) {
      tip = document.createElement("div");
      tip.className = "pl-tooltip";
      tip.setAttribute("role", "tooltip");
      tip.style.display = "none";
      u.over.appendChild(tip);
      u.over.addEventListener("mouseleave", function () { tip.style.display = "none"; });
    }
    function setCursor(u) {
      var idx = u.cursor.idx;
      if (idx === null || idx === undefined || u.cursor.left < 0) {
        tip.style.display = "none";
        return;
      }
      var partial = data.partial && data.x[idx] === data.partial.x;
      var lines = [utcText(data.x[idx]) + (partial ? " to " + String(data.partial.to).slice(11, 16) +
        " UTC (partial)" : "")];
      u.series.forEach(function (s, i) {
        if (i === 0 || !s.show || /\(partial day\)$/.test(s.label)) return;
        lines.push(s.label + ": " + s.value(u, u.data[i][idx], i, idx));
      });
      tip.textContent = "";
      lines.forEach(function (line, i) {
        var div = document.createElement("div");
        if (i === 0) div.className = "pl-tooltip-day";
        div.textContent = line;
        tip.appendChild(div);
      });
      tip.style.display = "block";
      var w = u.over.clientWidth;
      var left = u.cursor.left + 12;
      if (left + tip.offsetWidth > w) left = Math.max(0, u.cursor.left - tip.offsetWidth - 12);
      tip.style.left = left + "px";
      tip.style.top = Math.max(0, u.cursor.top - tip.offsetHeight - 8) + "px";
    }
    return {hooks: {init: init, setCursor: setCursor}};
  }

  function drawChart(fig) {
    var script = fig.querySelector('script[type="application/json"]');
    if (!script) return failChart(fig, "it has no data (no application/json script)");
    var data;
    try {
      data = JSON.parse(script.textContent);
    } catch (e) {
      return failChart(fig, "its data is not valid JSON (" + e.message + ")");
    }
    try {
      checkChartData(data);
    } catch (e) {
      return failChart(fig, "bad data: " + e.message);
    }
    if (data.x.length === 0) {
      fig.setAttribute("data-drawn", "true");
      fig.setAttribute("data-empty", "true");
      showChartMessage(fig, "No data in this period.", false);
      return;
    }
    if (typeof window.uPlot !== "function") {
      return failChart(fig, "the chart library (/assets/uplot.js) did not load");
    }
    var box = document.createElement("div");
    box.className = "pl-chart-plot";
    var caption = fig.querySelector("figcaption");
    fig.insertBefore(box, caption ? caption.nextSibling : fig.firstChild);
    var series = [{
      label: "Day (UTC)",
      value: function (u, ts) { return ts === null || ts === undefined ? DASH : utcText(ts); },
    }];
    var plan = planSeries(data);
    plan.columns.forEach(function (col) { series.push(col.opts); });
    var rightAxis = data.series.some(function (s) { return s.axis === "right"; });
    // Daily points (every x at a UTC midnight): ticks on days, never at hours between them.
    var daily = data.x.every(function (ts) { return ts % 86400 === 0; });
    var latest = data.x.length - 1;
    function showLatest(u) {
      u.setLegend({idx: latest});
    }
    var width = function () { return Math.max(200, Math.floor(box.clientWidth || fig.clientWidth)); };
    var opts = {
      width: width(),
      height: CHART_HEIGHT,
      tzDate: function (ts) { return window.uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"); },
      // One point (a 1D period): a day around it, not uPlot's default span of years.
      scales: {x: data.x.length === 1 ?
        {time: true, auto: false, range: [data.x[0] - 43200, data.x[0] + 43200]} : {time: true}},
      series: series,
      axes: [
        {stroke: "#57606a", grid: {stroke: "#eaeef2", width: 1}, ticks: {stroke: "#d0d7de"},
          incrs: daily ? DAY_INCRS : undefined},
        {stroke: "#57606a", grid: {stroke: "#eaeef2", width: 1}, ticks: {stroke: "#d0d7de"},
          size: 64, values: function (u, vals) { return vals.map(formatCompact); }},
      ].concat(rightAxis ? [{scale: "right", side: 1, stroke: "#57606a", grid: {show: false},
        ticks: {stroke: "#d0d7de"}, size: 64,
        values: function (u, vals) { return vals.map(formatCompact); }}] : []),
      legend: {live: true},
      cursor: {drag: {x: false, y: false}},
      plugins: [tooltipPlugin(data)],
      hooks: {
        // The legend shows the latest day's values until the cursor is over the chart.
        ready: [showLatest, function (u) { hideTails(u, plan); }],
        setCursor: [function (u) { if (u.cursor.idx === null || u.cursor.idx === undefined) showLatest(u); }],
        // A series toggled in the legend takes its dashed partial-day tail along.
        setSeries: [function (u, idx, o) { followTail(u, plan, idx, o); }],
      },
    };
    var plot;
    try {
      plot = new window.uPlot(opts, [data.x].concat(plan.columns.map(function (col) {
        return col.values;
      })), box);
    } catch (e) {
      box.remove();
      return failChart(fig, "uPlot failed (" + e.message + ")");
    }
    fig.setAttribute("data-drawn", "true");
    fig.setAttribute("data-series", String(data.series.length));
    fig.plPlot = plot;  // the browser test reads what was drawn
    fig.plPlan = plan;
    if (plan.partialIdx >= 0) fig.setAttribute("data-partial", "true");
    // Responsive: follow the figure's width (window resizes, a narrow screen, print).
    if (typeof ResizeObserver === "function") {
      var last = opts.width;
      new ResizeObserver(function () {
        var w = width();
        if (w !== last) {
          last = w;
          plot.setSize({width: w, height: CHART_HEIGHT});
        }
      }).observe(box);
    }
  }

  // ---- Progressive enhancements ----------------------------------------------------------------
  var ISO_TIME = /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)$/;

  // Times are shown in UTC; hovering one shows it in the reader's local time.
  function addLocalTimeTooltips() {
    var els = document.querySelectorAll("time[datetime], td[data-value], [data-field]");
    Array.prototype.forEach.call(els, function (el) {
      var text = el.getAttribute("datetime") || el.getAttribute("data-value") ||
        (el.children.length === 0 ? el.textContent.trim() : "");
      if (!ISO_TIME.test(text) || el.hasAttribute("title")) return;
      var d = new Date(text.replace(" ", "T"));
      if (isNaN(d.getTime())) return;
      el.setAttribute("title", "Local time: " + localText(d));
      el.classList.add("pl-has-local-time");
    });
  }

  // Columns whose every value is a number (not an address) are right-aligned (the server may mark
  // them with class="num" itself; this covers the others).
  function alignNumberColumns() {
    var tables = document.querySelectorAll("table.pl-table");
    Array.prototype.forEach.call(tables, function (table) {
      var heads = table.querySelectorAll("thead th[data-col]");
      Array.prototype.forEach.call(heads, function (th, i) {
        var cells = table.querySelectorAll("tbody tr > :nth-child(" + (i + 1) + ")");
        var numeric = 0;
        var other = 0;
        Array.prototype.forEach.call(cells, function (td) {
          if (td.getAttribute("data-null") === "true") return;
          var v = td.getAttribute("data-value");
          if (v !== null && v !== "" && !/^0x/i.test(v) && isFinite(Number(v))) numeric++;
          else other++;
        });
        if (numeric > 0 && other === 0) {
          th.classList.add("pl-num");
          Array.prototype.forEach.call(cells, function (td) { td.classList.add("pl-num"); });
        }
      });
    });
  }

  // A table wider than the page scrolls inside a wrapper instead of making the page scroll sideways.
  function wrapTables() {
    var tables = document.querySelectorAll("table.pl-table");
    Array.prototype.forEach.call(tables, function (table) {
      var parent = table.parentNode;
      if (!parent || (parent.classList && parent.classList.contains("pl-table-scroll"))) return;
      var box = document.createElement("div");
      box.className = "pl-table-scroll";
      parent.insertBefore(box, table);
      box.appendChild(table);
    });
  }

  // Consecutive charts share a grid (two per row on a wide screen, dashboard.css).
  function groupCharts() {
    var figs = document.querySelectorAll("figure.pl-chart");
    Array.prototype.forEach.call(figs, function (fig) {
      var parent = fig.parentNode;
      if (!parent || (parent.classList && parent.classList.contains("pl-charts"))) return;
      var grid = document.createElement("div");
      grid.className = "pl-charts";
      parent.insertBefore(grid, fig);
      var next = fig;
      while (next && next.nodeType === 1 && next.matches("figure.pl-chart")) {
        var after = next.nextSibling;
        while (after && after.nodeType === 3 && !after.textContent.trim()) after = after.nextSibling;
        grid.appendChild(next);
        next = after;
      }
    });
  }

  // "More columns" is a checkbox the stylesheet reads; cols=all in the address starts every table's
  // on. Switching one switches them all and writes the state into the address, the links to this
  // page (sort, pages, periods) and the filter form, so that a sort, a page or a reload keeps it
  // (without the script only cols=all in the address does).
  function withCols(href, on) {
    var url = new URL(href, window.location.href);
    if (on) url.searchParams.set("cols", "all");
    else url.searchParams.delete("cols");
    return url.pathname + url.search + url.hash;
  }

  function keepMoreColumns() {
    var toggles = document.querySelectorAll("input.pl-more-toggle");
    function apply(on) {
      Array.prototype.forEach.call(toggles, function (box) { box.checked = on; });
      Array.prototype.forEach.call(document.querySelectorAll("main a[href]"), function (a) {
        var url = new URL(a.getAttribute("href"), window.location.href);
        if (url.origin !== window.location.origin || url.pathname !== window.location.pathname) return;
        if (a.classList.contains("pl-clear")) return;  // Clear drops every state but the period
        a.setAttribute("href", withCols(a.getAttribute("href"), on));
      });
      Array.prototype.forEach.call(document.querySelectorAll("form.pl-filters"), function (form) {
        var field = form.querySelector('input[type="hidden"][name="cols"]');
        if (on && !field) {
          field = document.createElement("input");
          field.type = "hidden";
          field.name = "cols";
          form.insertBefore(field, form.firstChild);
        }
        if (on) field.value = "all";
        else if (field) field.parentNode.removeChild(field);
      });
      window.history.replaceState(window.history.state, "", withCols(window.location.href, on));
    }
    Array.prototype.forEach.call(toggles, function (box) {
      box.addEventListener("change", function () { apply(box.checked); });
    });
  }

  // The "Compare selected" forms (Predictoors, Feeds): at most data-max rows ticked (the other
  // boxes disabled then), the button off while none is. Without the script /compare answers 400.
  function limitPicks() {
    Array.prototype.forEach.call(document.querySelectorAll("form.pl-compare"), function (form) {
      var max = Number(form.getAttribute("data-max")) || 5;
      var boxes = document.querySelectorAll('input.pl-pick[form="' + form.id + '"]');
      var button = form.querySelector('button[type="submit"]');
      function update() {
        var n = 0;
        Array.prototype.forEach.call(boxes, function (b) { if (b.checked) n++; });
        Array.prototype.forEach.call(boxes, function (b) { b.disabled = !b.checked && n >= max; });
        if (button) button.disabled = n === 0;
      }
      Array.prototype.forEach.call(boxes, function (b) { b.addEventListener("change", update); });
      update();
    });
  }

  function start() {
    document.documentElement.classList.add("pl-js");
    groupCharts();  // before drawing: each chart takes its width from its grid cell
    Array.prototype.forEach.call(document.querySelectorAll("figure.pl-chart"), function (fig) {
      try {
        drawChart(fig);
      } catch (e) {
        failChart(fig, "unexpected error (" + e.message + ")");
      }
    });
    addLocalTimeTooltips();
    alignNumberColumns();
    wrapTables();
    keepMoreColumns();
    limitPicks();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
