// proctor's run figures: reads the JSON in #figures-data and draws it with Chart.js.
// Every point or bar opens the trials behind it.
function proctorDrawFigures() {
  "use strict";
  var holder = document.getElementById("figures-data");
  if (!holder || typeof Chart === "undefined") { return; }
  var data = JSON.parse(holder.textContent);
  var colours = { passed: "#1a7f37", failed: "#cf222e", timeout: "#cf222e" };
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
  var groupTick = function (value) { return data.groups[value] || ""; };
  draw("fig-scores", {
    type: "scatter",
    data: { datasets: [{ label: "score per trial", data: data.scores, backgroundColor: "#0969da" }] },
    options: { onClick: onPoint([data.scores]), plugins: { legend: { display: false } },
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
      return { label: s, data: byStatus[s], backgroundColor: colours[s] || "#bf8700" }; }) },
    options: { onClick: onPoint(statuses.map(function (s) { return byStatus[s]; })),
      scales: { x: { title: { display: true, text: priced ? "cost (USD)" : "tokens (no cost recorded)" } },
                y: { min: -0.2, max: 1.2, ticks: { stepSize: 1, callback: function (v) { return v === 1 ? "passed" : v === 0 ? "not passed" : ""; } } } } }
  });
  var groupClick = function (event, elements) { if (elements.length) { open(data.groupUrls[elements[0].index]); } };
  draw("fig-phases", {
    type: "bar",
    data: { labels: data.groups, datasets: [
      { label: "agent (s)", data: data.phases.agent, backgroundColor: "#8250df" },
      { label: "harness (s)", data: data.phases.harness, backgroundColor: "#bf8700" }] },
    options: { onClick: groupClick, scales: { x: { stacked: true }, y: { stacked: true } } }
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
      { label: "elapsed seconds, min to max", data: data.ranges.map(function (r) { return [r.min, r.max]; }), backgroundColor: "#afb8c1" },
      { type: "line", label: "median", data: data.ranges.map(function (r) { return r.median; }), showLine: false, pointRadius: 5, backgroundColor: "#24292f" }] },
    options: { indexAxis: "y", onClick: function (event, elements) { if (elements.length) { open(data.ranges[elements[0].index].url); } } }
  });
}
proctorDrawFigures();
