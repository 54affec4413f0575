// Draws the report from the embedded data document with d3 (v3 API, Debian's libjs-d3).
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("culprit-data").textContent);
  var verdictColor = { regressed: "#b2182b", improved: "#1a7f37", equivalent: "#777", inconclusive: "#c77700" };
  var kindColor = { compute: "#4c78a8", collective: "#f58518", host: "#9d9d9d" };

  function fmt(v, digits) {
    if (v === null || v === undefined || (typeof v === "number" && !isFinite(v))) return "–";
    return Number(v).toFixed(digits === undefined ? 2 : digits);
  }
  function pct(v, digits) { return v === null || v === undefined ? "–" : fmt(100 * v, digits === undefined ? 1 : digits) + " %"; }
  function interval(ci, digits) { return ci ? "[" + fmt(ci[0], digits) + ", " + fmt(ci[1], digits) + "]" : "no CI (n < 6)"; }
  function sci(v) { return v === null || v === undefined ? "–" : Number(v).toPrecision(4); }
  function phaseText(phase, layer) { return phase + (layer >= 0 ? " layer " + layer : ""); }
  function absent(id, text) {
    d3.select("#" + id).append("div").attr("class", "absent").attr("data-absent", "1").text(text);
  }
  function svg(id, width, height, margin) {
    var root = d3.select("#" + id).append("svg").attr("width", width + margin.left + margin.right)
      .attr("height", height + margin.top + margin.bottom);
    return root.append("g").attr("transform", "translate(" + margin.left + "," + margin.top + ")");
  }
  // A table of rows of cells under `head`; a cell is text, {text, cls} (a class of its own) or
  // {text, color} (coloured, bold). The first column, and the last where `lastLeft`, align left.
  function table(id, head, rows, lastLeft) {
    var t = d3.select("#" + id).append("table");
    t.append("tr").selectAll("th").data(head).enter().append("th")
      .attr("class", function (d, i) { return i === 0 ? "l" : null; }).text(function (d) { return d; });
    rows.forEach(function (r) {
      var tr = t.append("tr");
      r.forEach(function (cell, i) {
        var td = tr.append("td").attr("class", i === 0 || (lastLeft && i === r.length - 1) ? "l" : null);
        if (cell && typeof cell === "object") {
          if (cell.cls !== undefined) td.attr("class", cell.cls);
          if (cell.color !== undefined) td.style("color", cell.color).style("font-weight", 600);
          td.text(cell.text);
        } else {
          td.text(cell);
        }
      });
    });
  }
  function explanations() {
    var e = data.explain;
    if (!e) return [];
    return e.explanations ? e.explanations : [e];
  }
  function comparisons() { return (data.compare && data.compare.comparisons) || []; }

  // ---- header
  function header() {
    d3.select("#generator").text("made by " + data.generator + " from the results store, offline; every number below is what compare, explain, attribute and validate report");
    var ex = explanations();
    var line = "";
    if (ex.length) {
      var e = ex[0];
      line = "Median step " + fmt(e.baseline_median_ms) + " → " + fmt(e.candidate_median_ms) + " ms (" +
        (e.delta_ms >= 0 ? "+" : "") + fmt(e.delta_ms) + " ms, '" + e.candidate + "' vs '" + e.baseline + "'). ";
      if (e.culprit) line += "Cause: rank " + e.culprit.rank + " " + phaseText(e.culprit.phase, e.culprit.layer) + " (+" + fmt(e.culprit.excess_ms) + " ms over its peers).";
      else line += "No rank diverges from its peers beyond noise.";
    } else {
      line = "One configuration ('" + data.focus.config + "'), median step " + fmt(data.focus.median_step_ms) + " ms.";
    }
    d3.select("#headline").text(line);
  }

  // ---- configurations
  function configurations() {
    var configs = data.configurations.filter(function (c) { return c.n > 0; });
    var verdictOf = {};
    comparisons().forEach(function (c) { verdictOf[c.candidate.label] = c; });
    var margin = { top: 16, right: 20, bottom: 50, left: 64 };
    var width = Math.max(260, Math.min(900, 140 * configs.length)), height = 300;
    var g = svg("chart-configs", width, height, margin);
    var values = [];
    configs.forEach(function (c) { values = values.concat(c.samples_ms); if (c.ci_ms) values = values.concat(c.ci_ms); });
    var y = d3.scale.linear().domain(d3.extent(values)).nice().range([height, 0]);
    var x = d3.scale.ordinal().domain(configs.map(function (c) { return c.label; })).rangePoints([0, width], 1);
    var base = configs.filter(function (c) { return c.is_baseline; })[0];
    if (base && base.ci_ms) {
      g.append("rect").attr("class", "baseline-band").attr("x", 0).attr("width", width)
        .attr("y", y(base.ci_ms[1])).attr("height", Math.max(1, y(base.ci_ms[0]) - y(base.ci_ms[1])))
        .attr("fill", "#4c78a8").attr("opacity", 0.15);
      g.append("text").attr("x", 4).attr("y", y(base.ci_ms[1]) - 3).attr("fill", "#4c78a8").text("baseline " + (base.has_ci ? "95 % CI" : "range (n < 6)"));
    }
    g.append("g").attr("class", "axis").attr("transform", "translate(0," + height + ")").call(d3.svg.axis().scale(x).orient("bottom"));
    g.append("g").attr("class", "axis").call(d3.svg.axis().scale(y).orient("left").ticks(6));
    g.append("text").attr("transform", "rotate(-90)").attr("x", -height / 2).attr("y", -48).attr("text-anchor", "middle").text("median step time per run (ms)");
    configs.forEach(function (c) {
      var cx = x(c.label);
      var color = c.is_baseline ? "#4c78a8" : (verdictOf[c.label] ? verdictColor[verdictOf[c.label].verdict] : "#555");
      g.selectAll(null).data(c.samples_ms).enter().append("circle").attr("class", "run-dot")
        .attr("cx", function (d, i) { return cx - 22 + ((i * 37) % 17) * 1.6; })
        .attr("cy", function (d) { return y(d); }).attr("r", 3.2).attr("fill", color).attr("opacity", 0.75)
        .append("title").text(function (d) { return c.label + ": " + fmt(d, 3) + " ms"; });
      if (c.ci_ms) {
        var bx = cx + 16;
        g.append("line").attr("x1", bx).attr("x2", bx).attr("y1", y(c.ci_ms[0])).attr("y2", y(c.ci_ms[1])).attr("stroke", color).attr("stroke-width", 2);
        [c.ci_ms[0], c.ci_ms[1]].forEach(function (v) {
          g.append("line").attr("x1", bx - 5).attr("x2", bx + 5).attr("y1", y(v)).attr("y2", y(v)).attr("stroke", color).attr("stroke-width", 2);
        });
        g.append("rect").attr("x", bx - 4).attr("y", y(c.median_ms) - 1.5).attr("width", 8).attr("height", 3).attr("fill", color);
      }
      if (verdictOf[c.label]) {
        g.append("text").attr("x", cx).attr("y", height + 32).attr("text-anchor", "middle").attr("fill", color).text(verdictOf[c.label].verdict);
      }
    });
    var n = d3.select("#numbers-configs");
    n.append("div").html("alpha <b>" + sci(data.settings.alpha_per_comparison) + "</b> per comparison" +
      (data.settings.looks > 1 ? " (" + data.settings.alpha + " over " + data.settings.looks + " looks)" : "") +
      ", margin <b>" + pct(data.settings.margin) + "</b> (" + data.settings.source + ")");
    configs.forEach(function (c) {
      n.append("div").text(c.label + ": n " + c.n + ", median " + fmt(c.median_ms) + " ms, " + (c.has_ci ? "95 % CI " + interval(c.ci_ms) : "no CI (n < 6)"));
    });
    var rows = comparisons().map(function (c) {
      return [c.candidate.label + " vs " + c.baseline.label, c.baseline.n + " / " + c.candidate.n,
        fmt(c.baseline.median_ms) + " → " + fmt(c.candidate.median_ms),
        (c.shift_ms >= 0 ? "+" : "") + fmt(c.shift_ms), interval(c.shift_ci_ms),
        pct(c.relative, 2) + " " + (c.relative_ci ? "[" + pct(c.relative_ci[0], 2) + ", " + pct(c.relative_ci[1], 2) + "]" : ""),
        sci(c.p_value), { cls: c.verdict, text: c.verdict }, pct(c.mde_relative, 2)];
    });
    if (rows.length) table("table-compare", ["comparison", "n", "median ms", "shift ms", "shift 95 % CI", "relative [CI]", "p (Mann–Whitney)", "verdict", "MDE"], rows);
    else {
      var why = data.notes.filter(function (n) { return n.indexOf("no comparison") === 0; });
      absent("table-compare", why.length ? why[0] : "No comparison: one configuration only.");
    }
  }

  // ---- explain
  function describeComponent(c) {
    if (c.category === "straggler") return "rank " + c.rank + " " + phaseText(c.phase, c.layer);
    if (c.category === "typical") return "typical " + c.phase;
    if (c.category === "exposed_comm") return "exposed " + c.phase;
    return "host gaps";
  }
  function waterfall(e, index) {
    var comps = e.components.slice();
    var shown = comps.slice(0, 12), rest = comps.slice(12);
    var items = shown.map(function (c) { return { label: describeComponent(c), ms: c.ms, cause: c.first_divergence, category: c.category }; });
    if (rest.length) items.push({ label: rest.length + " smaller components", ms: d3.sum(rest, function (c) { return c.ms; }), category: "other" });
    items.push({ label: "unclassified", ms: e.unclassified_ms, category: "unclassified" });
    var acc = 0;
    items.forEach(function (it) { it.from = acc; acc += it.ms; it.to = acc; });
    items.push({ label: "Δ median step", ms: e.delta_ms, from: 0, to: e.delta_ms, category: "total" });
    var margin = { top: 24, right: 330, bottom: 36, left: 250 };
    var width = 620, height = 22 * items.length;
    var container = d3.select("#chart-waterfall").append("div").attr("class", "waterfall");
    container.append("h3").text("'" + e.candidate + "' vs '" + e.baseline + "': Δ = " + fmt(e.delta_ms) + " ms = Σ components + " + fmt(e.unclassified_ms) + " ms unclassified");
    var id = "waterfall-" + index;
    container.append("div").attr("id", id);
    var g = svg(id, width, height, margin);
    var lo = d3.min(items, function (d) { return Math.min(d.from, d.to); }), hi = d3.max(items, function (d) { return Math.max(d.from, d.to); });
    var x = d3.scale.linear().domain([Math.min(0, lo), Math.max(0, hi)]).nice().range([0, width]);
    var y = d3.scale.ordinal().domain(d3.range(items.length)).rangeBands([0, height], 0.2);
    g.append("g").attr("class", "axis").attr("transform", "translate(0," + height + ")").call(d3.svg.axis().scale(x).orient("bottom").ticks(8));
    g.append("line").attr("x1", x(0)).attr("x2", x(0)).attr("y1", 0).attr("y2", height).attr("stroke", "#999");
    items.forEach(function (it, i) {
      var color = it.cause ? "#b2182b" : it.category === "total" ? "#333" : it.category === "unclassified" ? "#bbb" :
        it.category === "straggler" ? "#e6550d" : it.category === "exposed_comm" ? "#f58518" : it.category === "host_gap" ? "#9d9d9d" : "#4c78a8";
      g.append("rect").attr("class", "waterfall-bar").attr("x", x(Math.min(it.from, it.to))).attr("y", y(i))
        .attr("width", Math.max(1, Math.abs(x(it.to) - x(it.from)))).attr("height", y.rangeBand()).attr("fill", color)
        .append("title").text(it.label + ": " + fmt(it.ms) + " ms");
      g.append("text").attr("x", -8).attr("y", y(i) + y.rangeBand() / 2 + 4).attr("text-anchor", "end")
        .attr("class", it.cause ? "label-cause" : null).text(it.label);
      g.append("text").attr("x", width + 8).attr("y", y(i) + y.rangeBand() / 2 + 4)
        .attr("class", it.cause ? "label-cause" : null)
        .text((it.ms >= 0 ? "+" : "") + fmt(it.ms) + " ms" + (it.cause ? "  ← CAUSE: first unexplained divergence" : ""));
    });
    g.append("text").attr("x", 0).attr("y", -8).text("ms of the change, cumulative along the critical path");
    var s = container.append("p");
    if (e.culprit) {
      s.append("span").attr("class", "label-cause").text("Cause: ");
      s.append("span").text("rank " + e.culprit.rank + " " + phaseText(e.culprit.phase, e.culprit.layer) + " microbatch " + e.culprit.microbatch + ", +" + fmt(e.culprit.excess_ms) + " ms over the peer median. ");
      s.append("span").attr("class", "label-symptom").text("Symptom: ");
      s.append("span").text(e.symptom.waiting_ranks + " ranks waited a median " + fmt(e.symptom.median_wait_ms) + " ms at collective #" + e.culprit.collective +
        " (" + fmt(e.symptom.total_wait_ms) + " ms of waiting in all) — they are not the cause; waiting is not a component of the sum.");
    } else {
      s.text("No rank diverges from its peers beyond noise in '" + e.candidate + "'.");
    }
  }
  function activity(e) {
    var a = e.sampled_activity;
    var bars = [
      { label: e.baseline + ": sampled", v: a.baseline.sampled_share, sampled: true },
      { label: e.baseline + ": exact busy", v: a.baseline.busy_share },
      { label: e.candidate + ": sampled", v: a.candidate.sampled_share, sampled: true },
      { label: e.candidate + ": exact busy", v: a.candidate.busy_share }];
    var margin = { top: 10, right: 60, bottom: 30, left: 300 }, width = 320, height = 24 * bars.length;
    var g = svg("chart-activity", width, height, margin);
    var x = d3.scale.linear().domain([0, 1]).range([0, width]);
    var y = d3.scale.ordinal().domain(d3.range(bars.length)).rangeBands([0, height], 0.25);
    g.append("g").attr("class", "axis").attr("transform", "translate(0," + height + ")").call(d3.svg.axis().scale(x).orient("bottom").ticks(5).tickFormat(d3.format(".0%")));
    bars.forEach(function (b, i) {
      g.append("rect").attr("x", 0).attr("y", y(i)).attr("width", x(b.v || 0)).attr("height", y.rangeBand()).attr("fill", b.sampled ? "#76b041" : "#4c78a8");
      g.append("text").attr("x", -6).attr("y", y(i) + y.rangeBand() / 2 + 4).attr("text-anchor", "end").text(b.label);
      g.append("text").attr("x", x(b.v || 0) + 4).attr("y", y(i) + y.rangeBand() / 2 + 4).text(pct(b.v, 1));
    });
    d3.select("#numbers-activity").html("A " + fmt(a.candidate.period_s, 0) + " s sampled \"activity\" dashboard reads <b>" + pct(a.baseline.sampled_share, 0) +
      "</b> → <b>" + pct(a.candidate.sampled_share, 0) + "</b> (exact busy share " + pct(a.baseline.busy_share) + " → " + pct(a.candidate.busy_share) +
      ", " + a.candidate.samples + " samples). <b>It does not locate the cause</b>: the decomposition above does.");
  }
  function explain() {
    var ex = explanations();
    if (!ex.length) {
      absent("chart-waterfall", "No explanation: " + (data.notes.join("; ") || "nothing to compare"));
      absent("chart-activity", "No sampled-activity comparison without an explanation.");
      return;
    }
    ex.forEach(waterfall);
    activity(ex[0]);
  }

  // ---- heat maps
  function heatmap(id, noteId, m, diverging) {
    if (!m.rows.length || !m.steps.length) { absent(id, "No steps to show."); return; }
    var rows = m.rows, steps = m.steps;
    var cell = Math.max(4, Math.min(22, Math.floor(760 / steps.length)));
    var rowH = rows.length > 96 ? 4 : rows.length > 48 ? 7 : 12;
    var margin = { top: 10, right: 160, bottom: 36, left: 110 }, width = cell * steps.length, height = rowH * rows.length;
    var g = svg(id, width, height, margin);
    var lo = Math.min(0, m.min_ms), hi = Math.max(1e-6, m.max_ms);
    var color = diverging && lo < 0 ? d3.scale.linear().domain([lo, 0, hi]).range(["#2166ac", "#f7f7f7", "#b2182b"])
      : d3.scale.linear().domain([0, hi]).range(["#f7f7f7", "#b2182b"]);
    var culpritRank = data.focus.culprit ? data.focus.culprit.rank : -1;
    rows.forEach(function (row, i) {
      var label = row.first_rank === row.last_rank ? "rank " + row.first_rank : "ranks " + row.first_rank + "–" + row.last_rank;
      var rowG = g.append("g").attr("class", "heat-row").attr("transform", "translate(0," + (i * rowH) + ")");
      rowG.selectAll("rect").data(row.ms).enter().append("rect").attr("class", "heat-cell")
        .attr("x", function (d, j) { return j * cell; }).attr("width", cell).attr("height", rowH)
        .attr("fill", function (d) { return d === null ? "#eee" : color(Math.max(lo, Math.min(hi, d))); })
        .append("title").text(function (d, j) { return label + ", step " + steps[j] + ": " + (d === null ? "no value" : fmt(d, 3) + " ms"); });
      var showLabel = rows.length <= 48 || row.kept || (row.first_rank <= culpritRank && culpritRank <= row.last_rank) || i % Math.ceil(rows.length / 24) === 0;
      if (showLabel) {
        rowG.append("text").attr("x", -6).attr("y", rowH / 2 + 4).attr("text-anchor", "end")
          .attr("class", row.first_rank === culpritRank && row.last_rank === culpritRank ? "label-cause" : null)
          .text(label + (row.kept ? " (kept)" : ""));
      }
    });
    var x = d3.scale.ordinal().domain(steps).rangeBands([0, width]);
    var axis = d3.svg.axis().scale(x).orient("bottom").tickValues(steps.filter(function (s, j) { return j % Math.ceil(steps.length / 20) === 0; }));
    g.append("g").attr("class", "axis").attr("transform", "translate(0," + height + ")").call(axis);
    g.append("text").attr("x", width / 2).attr("y", height + 30).attr("text-anchor", "middle").text("step");
    // Legend.
    var lg = g.append("g").attr("transform", "translate(" + (width + 20) + ",0)");
    var stops = d3.range(0, 11).map(function (k) { return lo + (hi - lo) * k / 10; });
    stops.forEach(function (v, k) { lg.append("rect").attr("y", (10 - k) * 12).attr("width", 14).attr("height", 12).attr("fill", color(v)); });
    lg.append("text").attr("x", 20).attr("y", 10).text(fmt(hi, 2) + " ms");
    lg.append("text").attr("x", 20).attr("y", 130).text(fmt(lo, 2) + " ms");
    d3.select("#" + noteId).text("Cell: " + m.quantity + ". " + (m.aggregation ? "Aggregated: " + m.aggregation + "." : "One row per rank (" + m.ranks + " ranks)."));
  }
  function heatmaps() {
    d3.select("#heatmap-run").text("Run " + data.focus.run + " of '" + data.focus.config + "' (" + data.focus.why + "), " + data.focus.ranks + " ranks" +
      (data.focus.culprit ? "; the culprit, rank " + data.focus.culprit.rank + ", is the bright row." : "."));
    heatmap("chart-lateness", "note-lateness", data.heatmaps.lateness, true);
    heatmap("chart-excess", "note-excess", data.heatmaps.excess, false);
  }

  // ---- bisection and scorecard
  function bisection() {
    if (!data.bisect) {
      absent("chart-bisect", "No bisection in this experiment's data (run `culprit bisect MANIFEST` to make one).");
      absent("chart-posterior", "No bisection, so no posterior.");
      return;
    }
    var r = data.bisect.result, versions = data.bisect.versions;
    var outcome = {};
    r.steps.forEach(function (s) { outcome[s.version] = s; });
    var outcomeColor = { good: "#1a7f37", bad: "#b2182b", between: "#6a51a3", untestable: "#999", undecided: "#c77700" };
    var margin = { top: 20, right: 20, bottom: 60, left: 64 };
    var width = Math.max(300, Math.min(1000, 60 * versions.length)), height = 260;
    var g = svg("chart-bisect", width, height, margin);
    var values = [];
    versions.forEach(function (v) { values = values.concat(v.samples_ms); });
    if (!values.length) values = [0, 1];
    var y = d3.scale.linear().domain(d3.extent(values)).nice().range([height, 0]);
    var x = d3.scale.ordinal().domain(versions.map(function (v) { return v.name; })).rangePoints([0, width], 1);
    g.append("g").attr("class", "axis").attr("transform", "translate(0," + height + ")").call(d3.svg.axis().scale(x).orient("bottom"));
    g.append("g").attr("class", "axis").call(d3.svg.axis().scale(y).orient("left").ticks(6));
    g.append("text").attr("transform", "rotate(-90)").attr("x", -height / 2).attr("y", -48).attr("text-anchor", "middle").text("run median step time (ms)");
    versions.forEach(function (v) {
      var s = outcome[v.name], cx = x(v.name);
      var color = s ? outcomeColor[s.outcome] || "#555" : "#bbb";
      g.selectAll(null).data(v.samples_ms).enter().append("circle").attr("class", "run-dot").attr("cx", function (d, i) { return cx - 8 + (i % 5) * 4; })
        .attr("cy", function (d) { return y(d); }).attr("r", 2.5).attr("fill", color).attr("opacity", 0.6);
      if (v.ci_ms) {
        g.append("line").attr("x1", cx + 14).attr("x2", cx + 14).attr("y1", y(v.ci_ms[0])).attr("y2", y(v.ci_ms[1])).attr("stroke", color).attr("stroke-width", 2);
        g.append("rect").attr("x", cx + 10).attr("y", y(v.median_ms) - 1.5).attr("width", 8).attr("height", 3).attr("fill", color);
      }
      if (v === versions[0]) color = outcomeColor.good;
      var label = v === versions[0] ? "good (reference)" : s ? s.outcome : (r.skipped.indexOf(v.name) >= 0 ? "skipped" : "not tested");
      g.append("text").attr("x", cx).attr("y", height + 34).attr("text-anchor", "middle").attr("fill", color).text(label);
      if (v.name === r.first_bad) g.append("text").attr("class", "label-cause").attr("x", cx).attr("y", height + 50).attr("text-anchor", "middle").text("first bad");
    });
    var p = d3.select("#chart-bisect").append("p");
    p.text("Bisection " + r.status + ": " + r.message + " Shift first bad − last good: " + fmt(r.shift_ms) + " ms " + interval(r.shift_ci_ms) +
      ", p " + sci(r.p_value) + ", " + r.runs + " run medians used. Untestable/skipped: " + (r.skipped.length ? r.skipped.join(", ") : "none") +
      ". Replayed from the stored runs (nothing launched).");
    posterior(r, versions, x, width, margin);
    table("table-bisect", ["order", "version", "kind", "vs last good", "vs first bad", "outcome", "n"], r.steps.map(function (s, i) {
      return [String(i + 1), s.version, s.kind, { cls: s.verdict, text: s.verdict }, s.vs_bad || "–", s.outcome, String(s.n)];
    }));
  }
  // The change-point posterior the bisection stopped on: P(version is the first bad one) for its
  // top candidates, on the same version axis, and P(no step at all) beside it.
  function posterior(r, versions, x, width, margin) {
    var cands = (r.candidates || []).filter(function (c) { return c && typeof c.probability === "number"; });
    if (!cands.length) {
      absent("chart-posterior", "No posterior recorded (the bisection stopped before measuring inside the range).");
      return;
    }
    var height = 140;
    var g = svg("chart-posterior", width, height, { top: 16, right: margin.right, bottom: 30, left: margin.left });
    var y = d3.scale.linear().domain([0, 1]).range([height, 0]);
    g.append("g").attr("class", "axis").attr("transform", "translate(0," + height + ")").call(d3.svg.axis().scale(x).orient("bottom"));
    g.append("g").attr("class", "axis").call(d3.svg.axis().scale(y).orient("left").ticks(4).tickFormat(d3.format(".0%")));
    g.append("text").attr("transform", "rotate(-90)").attr("x", -height / 2).attr("y", -48).attr("text-anchor", "middle").text("P(first bad)");
    var known = {};
    versions.forEach(function (v) { known[v.name] = true; });
    var bar = Math.max(6, Math.min(30, width / Math.max(1, versions.length) / 2));
    g.selectAll(null).data(cands.filter(function (c) { return known[c.version]; })).enter().append("rect")
      .attr("class", "posterior-bar").attr("x", function (c) { return x(c.version) - bar / 2; }).attr("width", bar)
      .attr("y", function (c) { return y(c.probability); }).attr("height", function (c) { return height - y(c.probability); })
      .attr("fill", function (c) { return c.version === r.first_bad ? "#b2182b" : "#6a51a3"; });
    g.selectAll(null).data(cands.filter(function (c) { return known[c.version]; })).enter().append("text")
      .attr("x", function (c) { return x(c.version); }).attr("y", function (c) { return y(c.probability) - 3; })
      .attr("text-anchor", "middle").text(function (c) { return pct(c.probability, 1); });
    var held = cands.reduce(function (a, c) { return a + c.probability; }, 0);
    d3.select("#chart-posterior").append("p").text("Posterior over where the step lies (change-point model over the ordered versions, from every run median): " +
      cands.map(function (c) { return c.version + " " + pct(c.probability, 1); }).join(", ") +
      "; no step at all " + pct(r.no_step_probability, 1) + "; the other versions together " + pct(Math.max(0, 1 - held - (r.no_step_probability || 0)), 1) + ".");
  }
  function scorecard() {
    var card = data.scorecard;
    if (!card) { absent("chart-scorecard", "No validate scorecard: no run of this experiment had an injected delay."); return; }
    var margin = { top: 10, right: 20, bottom: 40, left: 60 }, width = 360, height = 260;
    var g = svg("chart-scorecard", width, height, margin);
    var max = d3.max(card.cases, function (c) { return Math.max(c.injected.ms, c.blamed ? c.blamed.ms : 0); }) || 1;
    var x = d3.scale.linear().domain([0, max * 1.1]).range([0, width]), y = d3.scale.linear().domain([0, max * 1.1]).range([height, 0]);
    g.append("g").attr("class", "axis").attr("transform", "translate(0," + height + ")").call(d3.svg.axis().scale(x).orient("bottom").ticks(5));
    g.append("g").attr("class", "axis").call(d3.svg.axis().scale(y).orient("left").ticks(5));
    g.append("line").attr("x1", x(0)).attr("y1", y(0)).attr("x2", x(max * 1.1)).attr("y2", y(max * 1.1)).attr("stroke", "#bbb").attr("stroke-dasharray", "4,3");
    g.append("text").attr("x", width / 2).attr("y", height + 34).attr("text-anchor", "middle").text("injected delay (ms)");
    g.append("text").attr("transform", "rotate(-90)").attr("x", -height / 2).attr("y", -44).attr("text-anchor", "middle").text("blamed excess (ms)");
    g.selectAll(null).data(card.cases).enter().append("circle").attr("class", "case-dot")
      .attr("cx", function (c) { return x(c.injected.ms); }).attr("cy", function (c) { return y(c.blamed ? c.blamed.ms : 0); })
      .attr("r", 4).attr("fill", function (c) { return c.hit ? "#1a7f37" : "#b2182b"; })
      .append("title").text(function (c) { return "run " + c.run + ": " + (c.hit ? "hit" : "miss"); });
    d3.select("#numbers-scorecard").html("accuracy (rank and phase) <b>" + card.hits + "/" + card.cases.length + " = " + pct(card.accuracy) + "</b><br>" +
      "false positives on controls: <b>" + card.false_positives + "/" + card.controls + "</b><br>" +
      "smallest delay blamed correctly in every run: " + (card.smallest_hit_ms === null ? "none" : fmt(card.smallest_hit_ms) + " ms") +
      "<br><span class=\"muted\">green: hit, red: miss; on the dashed line the blamed excess equals the injected delay</span>");
    table("table-scorecard", ["run", "configuration", "injected", "blamed", ""], card.cases.map(function (c) {
      return [String(c.run), c.config, "rank " + c.injected.rank + " " + phaseText(c.injected.phase, c.injected.layer) + " " + fmt(c.injected.ms) + " ms",
        c.blamed ? "rank " + c.blamed.rank + " " + phaseText(c.blamed.phase, c.blamed.layer) + " " + fmt(c.blamed.ms) + " ms" : "nobody",
        { cls: c.hit ? "improved" : "regressed", text: c.hit ? "hit" : "MISS" }];
    }));
  }

  // ---- timeline
  function timeline() {
    var t = data.timeline;
    if (!t.found || !t.lanes.length) { absent("chart-timeline", "No complete step to show."); return; }
    d3.select("#timeline-about").text("Step " + t.step + " of run " + data.focus.run + " ('" + data.focus.config + "'), " + fmt(t.time_ms) + " ms: " + t.why +
      ". Lanes: " + t.selection + ". Aligned clock (rank 0's), ms from the step's start. Hatched: waiting inside a collective (arrival to the last arrival).");
    var lanes = t.lanes, laneH = 22;
    var margin = { top: 26, right: 30, bottom: 36, left: 210 }, width = 960, height = laneH * lanes.length;
    var g = svg("chart-timeline", width, height, margin);
    var defs = d3.select("#chart-timeline svg").append("defs");
    var pattern = defs.append("pattern").attr("id", "wait-hatch").attr("patternUnits", "userSpaceOnUse").attr("width", 6).attr("height", 6);
    pattern.append("rect").attr("width", 6).attr("height", 6).attr("fill", "#fde0c5");
    pattern.append("path").attr("d", "M0,6 L6,0").attr("stroke", "#c77700").attr("stroke-width", 1);
    var lo = 0, hi = t.time_ms;
    lanes.forEach(function (l) { l.events.forEach(function (e) { lo = Math.min(lo, e.begin_ms); hi = Math.max(hi, e.end_ms); }); });
    var x = d3.scale.linear().domain([lo, hi]).range([0, width]);
    g.append("g").attr("class", "axis").attr("transform", "translate(0," + height + ")").call(d3.svg.axis().scale(x).orient("bottom").ticks(10));
    g.append("text").attr("x", width / 2).attr("y", height + 32).attr("text-anchor", "middle").text("ms from the step's start (aligned clock)");
    lanes.forEach(function (l, i) {
      var lg = g.append("g").attr("class", "lane").attr("transform", "translate(0," + (i * laneH) + ")");
      lg.append("text").attr("x", -6).attr("y", laneH / 2 + 4).attr("text-anchor", "end")
        .attr("class", t.divergence && l.rank === t.divergence.rank ? "label-cause" : null)
        .text("rank " + l.rank + (l.why ? " (" + l.why + ")" : ""));
      l.events.forEach(function (e) {
        var top = e.kind === "collective" ? laneH * 0.5 : 2, h = e.kind === "collective" ? laneH * 0.45 : laneH * 0.45;
        var title = e.name + (e.layer >= 0 ? " layer " + e.layer : "") + (e.microbatch >= 0 ? " mb " + e.microbatch : "") + (e.seq >= 0 ? " #" + e.seq : "") +
          ": " + fmt(e.begin_ms, 3) + "–" + fmt(e.end_ms, 3) + " ms";
        if (e.kind === "collective" && e.wait_end_ms > e.begin_ms) {
          lg.append("rect").attr("class", "wait").attr("x", x(e.begin_ms)).attr("y", top).attr("width", Math.max(0.5, x(e.wait_end_ms) - x(e.begin_ms))).attr("height", h)
            .attr("fill", "url(#wait-hatch)").append("title").text("waiting: " + fmt(e.wait_end_ms - e.begin_ms, 3) + " ms, " + title);
          lg.append("rect").attr("class", "event").attr("x", x(e.wait_end_ms)).attr("y", top).attr("width", Math.max(0.5, x(e.end_ms) - x(e.wait_end_ms))).attr("height", h)
            .attr("fill", kindColor.collective).append("title").text(title);
        } else {
          lg.append("rect").attr("class", "event").attr("x", x(e.begin_ms)).attr("y", top).attr("width", Math.max(0.5, x(e.end_ms) - x(e.begin_ms))).attr("height", h)
            .attr("fill", e.divergence ? "#b2182b" : (kindColor[e.kind] || "#777")).attr("stroke", e.divergence ? "#000" : null).attr("stroke-width", e.divergence ? 1.5 : null)
            .append("title").text(title);
        }
      });
    });
    if (t.divergence) {
      var dx = x(t.divergence_begin_ms);
      g.append("line").attr("class", "divergence-mark").attr("x1", dx).attr("x2", dx).attr("y1", -6).attr("y2", height).attr("stroke", "#b2182b").attr("stroke-width", 1.5).attr("stroke-dasharray", "5,3");
      var right = dx > width * 0.6;
      g.append("text").attr("class", "label-cause").attr("x", right ? dx - 4 : dx + 4).attr("y", -10).attr("text-anchor", right ? "end" : "start")
        .text("first divergence: rank " + t.divergence.rank + " " + phaseText(t.divergence.phase, t.divergence.layer) + " (+" + fmt(t.divergence.excess_ms) + " ms)");
    }
    var legend = [["compute", kindColor.compute], ["collective (transfer)", kindColor.collective], ["host", kindColor.host], ["waiting", "url(#wait-hatch)"], ["first divergence", "#b2182b"]];
    var lgd = d3.select("#chart-timeline").append("div").attr("class", "muted");
    legend.forEach(function (l) { lgd.append("span").style("margin-right", "14px").html("<svg width='12' height='10'><rect width='12' height='10' fill='" + (l[1].indexOf("url") === 0 ? "#fde0c5" : l[1]) + "'/></svg> " + l[0]); });
  }

  // ---- efficiency
  function efficiency() {
    var runs = data.efficiency;
    var rows = [], fractions = [];
    runs.forEach(function (r) {
      r.ratios.forEach(function (x) {
        var q = x.ratio;
        rows.push([x.name, r.config + " (run " + r.run + ")",
          q.value === null ? "–" : sci(q.value) + (q.unit ? " " + q.unit : ""),
          sci(q.numerator) + " " + q.numerator_unit, sci(q.denominator) + " " + q.denominator_unit, q.missing || ""]);
        if (q.value !== null && q.unit === "") fractions.push({ name: x.name, config: r.config, v: q.value });
      });
    });
    table("table-efficiency", ["ratio", "run", "value", "numerator", "denominator", "not available because"], rows);
    if (!fractions.length) { absent("chart-efficiency", "No fraction-valued ratio is available."); return; }
    var margin = { top: 10, right: 80, bottom: 30, left: 380 }, width = 420, height = 20 * fractions.length;
    var g = svg("chart-efficiency", width, height, margin);
    var x = d3.scale.linear().domain([0, Math.max(1, d3.max(fractions, function (f) { return f.v; }))]).range([0, width]);
    var y = d3.scale.ordinal().domain(d3.range(fractions.length)).rangeBands([0, height], 0.2);
    g.append("g").attr("class", "axis").attr("transform", "translate(0," + height + ")").call(d3.svg.axis().scale(x).orient("bottom").ticks(5).tickFormat(d3.format(".0%")));
    fractions.forEach(function (f, i) {
      g.append("rect").attr("x", 0).attr("y", y(i)).attr("width", x(f.v)).attr("height", y.rangeBand()).attr("fill", f.config === data.focus.config ? "#e6550d" : "#4c78a8");
      g.append("text").attr("x", -6).attr("y", y(i) + y.rangeBand() / 2 + 4).attr("text-anchor", "end").text(f.name + " — " + f.config);
      g.append("text").attr("x", x(f.v) + 4).attr("y", y(i) + y.rangeBand() / 2 + 4).text(pct(f.v, 2));
    });
  }

  function notes() {
    d3.select("#notes").selectAll("li").data(data.notes.length ? data.notes : ["nothing left out"]).enter().append("li").text(function (d) { return d; });
  }

  var parts = [header, configurations, explain, heatmaps, bisection, scorecard, timeline, efficiency, notes];
  // Sections drawn by scripts of their own (report_why.js), given the same data and helpers.
  var helpers = { table: table, absent: absent };
  (window.culpritExtraParts || []).forEach(function (make) { parts.push(make(data, helpers)); });
  parts.forEach(function (part) {
    try { part(); } catch (err) { window.culpritErrors.push(part.name + ": " + (err && err.stack ? err.stack : String(err))); }
  });
  var resources = (window.performance && performance.getEntriesByType) ? performance.getEntriesByType("resource").map(function (r) { return r.name; }) : [];
  var status = document.getElementById("culprit-status");
  status.textContent = JSON.stringify({ errors: window.culpritErrors, resources: resources });
  status.setAttribute("data-done", "1");
})();
