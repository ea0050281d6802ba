// proctor's run figures: reads the JSON in #figures-data and draws it with Chart.js.
// Every point or bar opens the trials behind it.
function proctorDrawFigures() {
  "use strict";
  var holder = document.getElementById("figures-data");
  if (!holder || typeof Chart === "undefined") { return; }
  var data = JSON.parse(holder.textContent);
  var colours = { passed: "#1a7f37", failed: "#cf222e", timeout: "#fb8f44" };
  function open(url) { if (url) { window.location.href = url; } }
  function onPoint(points) {
    return function (event, elements) {
      if (elements.length) { open(points[elements[0].datasetIndex][elements[0].index].url); }
    };
  }
  function draw(id, config) {
    // A live refresh swaps the canvases: the charts of the old ones go, or they pile up.
    var canvas = document.getElementById(id);
    Object.values(Chart.instances || {}).forEach(function (chart) {
      if (!chart.canvas || !chart.canvas.isConnected || chart.canvas === canvas) { chart.destroy(); }
    });
    if (!canvas) { return; }  // a figure with no data is a sentence, not a canvas
    config.options = Object.assign({ animation: false, responsive: true, maintainAspectRatio: false }, config.options || {});
    canvas.chart = new Chart(canvas, config);
  }
  // A group is "case · agent · condition", often longer than a tick has room for: a tick shows
  // only the parts that tell the groups apart, each cut to its room with an ellipsis in the
  // middle; the tooltip of a point or bar names the whole group.
  function fit(text, room) {
    if (text.length <= room) { return text; }
    var keep = Math.max(room - 1, 2), head = Math.ceil(keep * 0.6);
    return text.slice(0, head) + "\u2026" + text.slice(text.length - (keep - head));
  }
  function fitAll(parts, room) {  // one line: the longest part gives way first
    var cut = parts.map(function (p) { return p.length; }), spare = 3 * (parts.length - 1);
    for (;;) {
      var total = cut.reduce(function (a, b) { return a + b; }, spare), longest = cut.indexOf(Math.max.apply(null, cut));
      if (total <= room || cut[longest] <= 4) { break; }
      cut[longest] -= 1;
    }
    return parts.map(function (p, i) { return fit(p, cut[i]); }).join(" \u00b7 ");
  }
  function varying(labels) {
    var parts = labels.map(function (g) { return g.split(" \u00b7 "); });
    var shown = [0, 1, 2].filter(function (i) {
      return parts.some(function (p) { return p[i] !== parts[0][i]; });
    });
    return function (label) {
      var p = label.split(" \u00b7 ");
      return (shown.length ? shown : [0]).map(function (i) { return p[i] || ""; });
    };
  }
  var CHAR_PX = 6.5;  // the width of a character of Chart.js's 12 px tick font, about
  function categoryTick(labels) {
    var partsOf = varying(labels), widest = [];  // the longest of each part shown
    labels.forEach(function (g) {
      partsOf(g).forEach(function (p, i) { widest[i] = Math.max(widest[i] || 0, p.length); });
    });
    var whole = widest.reduce(function (a, b) { return a + b; }, 0);
    var rotated = Math.min(whole, 24 - 3 * (widest.length - 1));
    return function (value, index) {
      var label = labels[typeof value === "number" && this.type === "linear" ? value : index];
      if (label === undefined) { return ""; }
      var parts = partsOf(label);
      var room = Math.floor((this.chart.width - 60) / Math.max(labels.length, 1) / CHAR_PX);
      // Side by side, a line a part, while that shows as much of the names as a rotated tick:
      // eight groups of long names cut to 9 characters each ("build…nts") told them apart
      // less than rotated ticks of 24 do.
      var side = widest.reduce(function (a, w) { return a + Math.min(w, room); }, 0);
      if (room >= 8 && side >= rotated) { return parts.map(function (p) { return fit(p, room); }); }
      return fitAll(parts, 24);  // too many to stand side by side: rotated
    };
  }
  function sideTick(labels) {
    var partsOf = varying(labels);
    return function (value, index) {
      var label = labels[index];
      if (label === undefined) { return ""; }
      var parts = partsOf(label), room = Math.max(Math.floor(this.chart.width * 0.4 / CHAR_PX), 8);
      var lines = Math.floor((this.chart.height - 60) / Math.max(labels.length, 1) / 14);
      if (lines >= parts.length) { return parts.map(function (p) { return fit(p, room); }); }
      return fitAll(parts, room);
    };
  }
  var groupTick = categoryTick(data.groups);
  var wholeGroup = { title: function (items) { return items.length ? items[0].label : ""; } };
  draw("fig-scores", {
    type: "scatter",
    data: { datasets: [{ label: "score per trial", data: data.scores, backgroundColor: "#0969da", clip: false }] },
    options: { onClick: onPoint([data.scores]), plugins: { legend: { display: false },
        tooltip: { callbacks: { title: function (items) { return items.length ? data.groups[items[0].raw.x] : ""; },
                                label: function (item) { return item.raw.trial + ": score " + item.raw.y; } } } },
      scales: { x: { min: -0.5, max: data.groups.length - 0.5, ticks: { autoSkip: false, callback: groupTick },
                     afterBuildTicks: function (axis) { axis.ticks = data.groups.map(function (g, i) { return { value: i }; }); } },
                y: { min: 0, max: 100, title: { display: true, text: "score" } } } }
  });
  var byStatus = {};
  var priced = data.costSuccess.some(function (p) { return p.x > 0; });
  data.costSuccess.forEach(function (p) {
    var point = priced ? p : Object.assign({}, p, { x: p.tokens });
    (byStatus[p.status] = byStatus[p.status] || []).push(point);
  });
  var statuses = Object.keys(byStatus).sort();
  draw("fig-cost", {
    type: "scatter",
    data: { datasets: statuses.map(function (s) {
      return { label: s, data: byStatus[s], backgroundColor: colours[s] || "#bf8700", clip: false }; }) },
    options: { onClick: onPoint(statuses.map(function (s) { return byStatus[s]; })),
      plugins: { tooltip: { callbacks: { label: function (item) {
        return item.raw.trial + ": " + item.raw.status + ", " + (priced ? "$" + item.raw.x : item.raw.tokens + " tokens"); } } } },
      scales: { x: { min: 0, title: { display: true, text: priced ? "cost (USD)" : "tokens (no cost recorded)" } },
                y: { min: -0.2, max: 1.2, ticks: { stepSize: 1, callback: function (v) { return v === 1 ? "passed" : v === 0 ? "not passed" : ""; } } } } }
  });
  var groupClick = function (event, elements) { if (elements.length) { open(data.groupUrls[elements[0].index]); } };
  draw("fig-phases", {
    type: "bar",
    data: { labels: data.groups, datasets: [
      { label: "agent (s)", data: data.phases.agent, backgroundColor: "#8250df" },
      { label: "harness (s)", data: data.phases.harness, backgroundColor: "#bf8700" }] },
    // A group's column answers anywhere over it, not only on its bars: a group whose times are
    // a sliver of the largest has a bar a pixel high, which no one can hit.
    options: { onClick: groupClick, interaction: { mode: "index", intersect: false },
      plugins: { tooltip: { callbacks: wholeGroup } },
      scales: { x: { stacked: true, ticks: { autoSkip: false, callback: groupTick } }, y: { stacked: true } } }
  });
  var models = Object.keys(data.tokens);
  draw("fig-tokens", {
    type: "bar",
    data: { labels: models, datasets: [{ label: "tokens", data: models.map(function (m) { return data.tokens[m]; }), backgroundColor: "#0969da" }] },
    options: { plugins: { legend: { display: false } }, onClick: function (event, elements) { if (elements.length) { open("#trials"); } } }
  });
  draw("fig-ranges", {
    type: "bar",
    data: { labels: data.ranges.map(function (r) { return r.group; }), datasets: [
      { label: "agent's elapsed seconds, min to max", data: data.ranges.map(function (r) { return [r.min, r.max]; }), backgroundColor: "#afb8c1" },
      { type: "line", label: "median", data: data.ranges.map(function (r) { return r.median; }), showLine: false, pointRadius: 5, backgroundColor: "#24292f", clip: false }] },
    options: { indexAxis: "y", interaction: { mode: "index", axis: "y", intersect: false }, onClick: function (event, elements) { if (elements.length) { open(data.ranges[elements[0].index].url); } },
      plugins: { tooltip: { callbacks: wholeGroup } },
      scales: { y: { ticks: { autoSkip: false, callback: sideTick(data.ranges.map(function (r) { return r.group; })) } } } }
  });
}
proctorDrawFigures();
