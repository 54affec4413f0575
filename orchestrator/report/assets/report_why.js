// The why section and the telemetry map of the report (d3 v3), from the same data document as
// report.js: the focus explanation's why block (kernel counters against the baseline, each
// explanation's verdict, the reconciliation, the next capture) and the GPU telemetry attached
// to the focus run, per rank and step. report.js runs these parts with its own.
(function () {
  "use strict";
  var statusColor = { supported: "#b2182b", refuted: "#1a7f37", undecided: "#c77700" };

  // report.js's table and absent-note helpers, handed over when it makes these parts (withHelpers).
  var table, absent;
  function num(v, digits) {
    return v === null || v === undefined ? "n/a" : Number(v).toFixed(digits === undefined ? 2 : digits);
  }
  // A figure in the unit people read (as `culprit explain` prints it).
  function shown(v, unit) {
    if (v === null || v === undefined) return "n/a";
    if (unit === "ns") return num(v / 1e6, 3) + " ms";
    if (unit === "byte") return num(v / 1e6, 2) + " MB";
    if (unit === "byte/s") return num(v / 1e9, 2) + " GB/s";
    if (unit === "FLOP/s") return num(v / 1e12, 3) + " TFLOP/s";
    if (unit === "hz") return num(v / 1e6, 0) + " MHz";
    if (unit === "%") return num(v, 1) + " %";
    if (unit === "x") return "x" + num(v, 2);
    return Number(v).toPrecision(3) + " " + unit;
  }
  function focusExplanation(data) {
    var ex = (data.explain && data.explain.explanations) || [];
    for (var i = 0; i < ex.length; ++i) if (ex[i].candidate === data.focus.config) return ex[i];
    return ex.length ? ex[0] : null;
  }
  // Baseline and candidate bars of the figures that are shares of a peak (0..100 %).
  function percentBars(w) {
    var base = {};
    if (w.baseline) w.baseline.figures.forEach(function (f) { base[f.metric] = f.value; });
    var bars = w.candidate.figures.filter(function (f) { return f.unit === "%" && f.value !== null; })
      .map(function (f) { return { metric: f.metric, candidate: f.value, baseline: base[f.metric] }; });
    if (!bars.length) { absent("chart-why", "No figure of the kernel is a share of a peak."); return; }
    var margin = { top: 10, right: 70, bottom: 30, left: 200 }, width = 460, band = 26, height = band * bars.length;
    var root = d3.select("#chart-why").append("svg").attr("width", width + margin.left + margin.right)
      .attr("height", height + margin.top + margin.bottom);
    var g = root.append("g").attr("transform", "translate(" + margin.left + "," + margin.top + ")");
    var hi = d3.max(bars, function (b) { return Math.max(b.candidate, b.baseline || 0); });
    var x = d3.scale.linear().domain([0, Math.max(100, hi)]).range([0, width]);
    g.append("g").attr("class", "axis").attr("transform", "translate(0," + height + ")")
      .call(d3.svg.axis().scale(x).orient("bottom").ticks(5));
    bars.forEach(function (b, i) {
      var y = i * band;
      g.append("text").attr("x", -6).attr("y", y + band / 2 + 4).attr("text-anchor", "end").text(b.metric);
      if (b.baseline !== undefined && b.baseline !== null) {
        g.append("rect").attr("class", "why-bar-baseline").attr("x", 0).attr("y", y + 3).attr("height", 9)
          .attr("width", x(b.baseline)).attr("fill", "#4c78a8");
      }
      g.append("rect").attr("class", "why-bar-candidate").attr("x", 0).attr("y", y + 13).attr("height", 9)
        .attr("width", x(b.candidate)).attr("fill", "#e6550d");
      g.append("text").attr("x", x(b.candidate) + 4).attr("y", y + 21).text(num(b.candidate, 1) + " %");
    });
    g.append("text").attr("x", width).attr("y", -1).attr("text-anchor", "end")
      .text("blue: baseline, orange: candidate (% of peak)");
  }

  function whyBlock(data) {
    return function why() {
      var e = focusExplanation(data);
      if (!e || !e.culprit) {
        absent("chart-why", "No why block: no rank diverges from its peers (or nothing to compare).");
        return;
      }
      var w = e.why;
      var place = "rank " + e.culprit.rank + " " + e.culprit.phase + (e.culprit.layer >= 0 ? " layer " + e.culprit.layer : "");
      if (e.why_not_applicable) {
        d3.select("#why-about").text("Why " + place + " is slow:");
        absent("chart-why", e.why_not_applicable + ".");
        return;
      }
      if (!w) {
        d3.select("#why-about").text("Why " + place + " is slow: no kernel counters are attached to it.");
        absent("chart-why", "No Nsight Compute counters attached: capture them with the command below, then " +
          "`culprit import FILE --format ncu --attach RUN:RANK`.");
      } else {
        d3.select("#why-about").text("Why " + place + " is slow: " + w.candidate.kernel + " (" + w.candidate.file + ")" +
          (w.baseline ? " against " + w.baseline.kernel + " (" + e.why_against + ")" : "") +
          ". Each figure is its numerator over its denominator; sm_throughput is the busiest SM sub-unit, not FLOP efficiency.");
        percentBars(w);
        var base = {};
        if (w.baseline) w.baseline.figures.forEach(function (f) { base[f.metric] = f; });
        table("table-why", ["figure", "baseline", "candidate", "numerator / denominator"], w.candidate.figures.map(function (f) {
          return [f.metric, base[f.metric] ? shown(base[f.metric].value, f.unit) : "–", shown(f.value, f.unit), f.note || f.source];
        }), true);
        var r = w.reconciliation;
        d3.select("#why-reconciliation").text(r.change_ms === null ? "Reconciliation: n/a (one export)." :
          "Reconciliation: ncu duration " + num(r.change_ms, 3) + " ms per launch × " + r.launches_per_step +
          " launches per step = " + num(r.counters_ms, 3) + " ms" + (r.blamed_excess_ms !== null ? " of the blamed " +
          num(r.blamed_excess_ms) + " ms; " + num(r.unclassified_ms) + " ms unclassified" : "") + " (" + r.clocks + ").");
      }
      var explained = w ? w.explanations : (e.clock_throttling ? [e.clock_throttling] : []);
      if (explained.length) {
        table("table-why-explanations", ["explanation", "verdict", "evidence"], explained.map(function (x) {
          return [x.name, { text: x.status, color: statusColor[x.status] }, x.reason];
        }), true);
      }
      d3.select("#why-capture").text(e.next_capture ? "next capture: " + e.next_capture + "\ntelemetry: " + e.telemetry_capture : "");
    };
  }

  function telemetryMap(data) {
    return function telemetry() {
      var m = data.telemetry_map;
      if (!m) {
        absent("chart-telemetry", "No GPU telemetry attached to run " + data.focus.run +
          " (`culprit import FILE --format dcgm|nvidia-smi|nvml-csv --attach RUN`).");
        return;
      }
      var scale = m.unit === "hz" ? 1e6 : 1, unit = m.unit === "hz" ? "MHz" : m.unit;
      var all = [];
      m.values.forEach(function (row) { row.forEach(function (v) { if (v !== null) all.push(v / scale); }); });
      var lo = d3.min(all), hi = d3.max(all);
      if (hi === lo) { lo -= 1; hi += 1; }
      // Low is dark for a clock or a utilisation (the suspicious end); a power reading the same.
      var color = d3.scale.linear().domain([lo, hi]).range(["#b2182b", "#f7f7f7"]);
      var cell = Math.max(4, Math.min(22, Math.floor(760 / m.steps.length)));
      var rowH = m.ranks.length > 96 ? 4 : m.ranks.length > 48 ? 7 : 12;
      var margin = { top: 10, right: 160, bottom: 36, left: 110 }, width = cell * m.steps.length, height = rowH * m.ranks.length;
      var root = d3.select("#chart-telemetry").append("svg").attr("width", width + margin.left + margin.right)
        .attr("height", height + margin.top + margin.bottom);
      var g = root.append("g").attr("transform", "translate(" + margin.left + "," + margin.top + ")");
      var culprit = data.focus.culprit ? data.focus.culprit.rank : -1;
      m.ranks.forEach(function (rank, i) {
        var row = g.append("g").attr("transform", "translate(0," + (i * rowH) + ")");
        row.selectAll("rect").data(m.values[i]).enter().append("rect").attr("class", "telemetry-cell")
          .attr("x", function (d, j) { return j * cell; }).attr("width", cell).attr("height", rowH)
          .attr("fill", function (d) { return d === null ? "#eee" : color(d / scale); })
          .append("title").text(function (d, j) { return "rank " + rank + ", step " + m.steps[j] + ": " + (d === null ? "no sample" : num(d / scale, 1) + " " + unit); });
        if (m.ranks.length <= 48 || rank === culprit || i % Math.ceil(m.ranks.length / 24) === 0) {
          row.append("text").attr("x", -6).attr("y", rowH / 2 + 4).attr("text-anchor", "end")
            .attr("class", rank === culprit ? "label-cause" : null).text("rank " + rank);
        }
      });
      var x = d3.scale.ordinal().domain(m.steps).rangeBands([0, width]);
      g.append("g").attr("class", "axis").attr("transform", "translate(0," + height + ")")
        .call(d3.svg.axis().scale(x).orient("bottom").tickValues(m.steps.filter(function (s, j) { return j % Math.ceil(m.steps.length / 20) === 0; })));
      g.append("text").attr("x", width / 2).attr("y", height + 30).attr("text-anchor", "middle").text("step");
      var lg = g.append("g").attr("transform", "translate(" + (width + 20) + ",0)");
      d3.range(0, 11).forEach(function (k) {
        lg.append("rect").attr("y", (10 - k) * 12).attr("width", 14).attr("height", 12).attr("fill", color(lo + (hi - lo) * k / 10));
      });
      lg.append("text").attr("x", 20).attr("y", 10).text(num(hi, 0) + " " + unit);
      lg.append("text").attr("x", 20).attr("y", 130).text(num(lo, 0) + " " + unit);
      d3.select("#note-telemetry").text("Cell: the mean " + m.field + " of the rank's GPU samples inside the step (on the run's clock); grey: no sample in the step.");
    };
  }

  // Beside the modelled dashboard of the Explain section: the real samples' utilisation, fleet
  // and per rank, when telemetry is attached (the same figures as explain's text line).
  function measuredActivity(data) {
    return function activityFromTelemetry() {
      var e = focusExplanation(data);
      if (!e || !e.telemetry) return;
      ["baseline", "candidate"].forEach(function (side) {
        var t = e.telemetry[side];
        var f = t && t.fields.filter(function (x) { return ["GPU_UTIL", "GR_ENGINE_ACTIVE", "SM_ACTIVE"].indexOf(x.field) >= 0; })[0];
        if (!f) return;
        var means = f.ranks.map(function (r) { return r.mean; });
        d3.select("#numbers-activity").append("div").attr("class", "telemetry-activity")
          .text("GPU telemetry of run " + t.run_id + " (" + side + ", " + f.field + " over the steady steps): fleet " +
            num(f.fleet_mean, 1) + " %, per rank " + num(d3.min(means), 1) + "–" + num(d3.max(means), 1) +
            " %, exact busy share " + num(100 * e.sampled_activity[side].busy_share, 1) + " %. It does not locate the cause either: " +
            "a GPU waiting inside a collective kernel counts as active.");
      });
    };
  }

  function withHelpers(make) {
    return function (data, helpers) {
      table = helpers.table;
      absent = helpers.absent;
      return make(data);
    };
  }

  window.culpritExtraParts = (window.culpritExtraParts || []).concat(
    [whyBlock, telemetryMap, measuredActivity].map(withHelpers));
})();
