// proctor view: follow runs in progress (swap in fresh server-rendered fragments) and drive
// the playground. No inline script runs on a viewer page; this file is all of it.
(function () {
  "use strict";
  var token = (document.querySelector('meta[name="proctor-token"]') || {}).content || "";

  // Whether a person is choosing filters in the region: its form has the focus, or a choice
  // not yet applied. A refresh then waits: it would reset the choice and drop the focus.
  function editing(region) {
    var active = document.activeElement;
    if (active && region.contains(active) && active.closest("form")) { return true; }
    return Array.prototype.some.call(region.querySelectorAll("form select, form input"), function (el) {
      if (el.tagName === "SELECT") {  // (with no option marked, the first one is the default)
        var marked = Array.prototype.filter.call(el.options, function (o) { return o.defaultSelected; });
        var first = marked.length ? marked[0] : el.options[0];
        return first !== undefined && el.value !== first.value;
      }
      return el.type === "checkbox" || el.type === "radio" ? el.checked !== el.defaultChecked : el.value !== el.defaultValue;
    });
  }
  // The run's folder was removed while the page followed it: say so once, and stop.
  function gone(region) {
    if (document.getElementById("live-gone")) { return; }
    var note = document.createElement("p");
    note.id = "live-gone";
    note.className = "muted";
    note.textContent = "This run is no longer in the results folder (its folder was removed or " +
      "renamed): what is shown below is as it was, and the page stopped following it.";
    region.parentNode.insertBefore(note, region);
  }
  // A link (a run, a trial, a matrix cell) a keyboard user had reached in the region: the
  // same link of the fresh part takes the focus back, so Tab goes on from there rather than
  // from the top of the page.
  function focusKey(region) {
    var active = document.activeElement;
    if (!active || active === region || !region.contains(active)) { return null; }
    var links = region.querySelectorAll("a[href], summary");
    var href = active.getAttribute("href");
    var nth = 0;
    for (var i = 0; i < links.length && links[i] !== active; i++) {
      if (links[i].tagName === active.tagName && links[i].getAttribute("href") === href) { nth++; }
    }
    return { tag: active.tagName, href: href, nth: nth };
  }
  function refocus(region, key) {
    if (!key) { return; }
    var same = Array.prototype.filter.call(region.querySelectorAll("a[href], summary"), function (el) {
      return el.tagName === key.tag && el.getAttribute("href") === key.href;
    });
    var el = same[Math.min(key.nth, same.length - 1)];
    if (el) { el.focus({ preventScroll: true }); }
  }
  // Which folded parts (a tool call's details) of the region a person opened or closed, by
  // the id of the event holding them: the fresh part keeps them as they were, not as served.
  function folds(region) {
    var kept = {};
    region.querySelectorAll("details").forEach(function (el) {
      var holder = el.parentElement && el.parentElement.closest("[id]");
      if (holder && holder !== region && region.contains(holder)) { kept[holder.id] = el.open; }
    });
    return kept;
  }
  function refold(region, kept) {
    region.querySelectorAll("details").forEach(function (el) {
      var holder = el.parentElement && el.parentElement.closest("[id]");
      if (holder && Object.prototype.hasOwnProperty.call(kept, holder.id)) { el.open = kept[holder.id]; }
    });
  }
  function follow(region) {
    var url = region.getAttribute("data-live");
    var last = null;
    function tick() {
      fetch(url, { credentials: "same-origin" }).then(function (r) {
        if (r.status === 404) { gone(region); return null; }
        if (!r.ok) { window.setTimeout(tick, 5000); return null; }  // a passing failure
        return r.text();
      }).then(function (html) {
        if (html === null) { return; }
        if (html !== last && editing(region)) { window.setTimeout(tick, 2000); return; }
        if (html !== last) {
          last = html;
          var focused = focusKey(region);
          var folded = folds(region);
          region.innerHTML = html;  // rendered and escaped by the server
          refold(region, folded);
          refocus(region, focused);
          if (typeof window.proctorDrawFigures === "function") { window.proctorDrawFigures(); }
        }
        var progress = region.querySelector("[data-done]");
        // A trial that started or ended: its page is another one now.
        if (progress && progress.getAttribute("data-reload") === "1") { window.location.reload(); return; }
        if (progress && progress.getAttribute("data-done") === "1") { return; }
        window.setTimeout(tick, 2000);
      }).catch(function () { window.setTimeout(tick, 5000); });
    }
    window.setTimeout(tick, 2000);
  }
  document.querySelectorAll("[data-live]").forEach(follow);

  // Compare: the treatment and baseline offered are the conditions of the run chosen, the
  // pair `proctor compare RUN` would choose selected (the server wrote them on each run).
  var pick = document.getElementById("compare-conditions");
  var runs = pick && pick.querySelector('select[name="run"]');
  if (runs) {
    runs.addEventListener("change", function () {
      var choices = JSON.parse(runs.options[runs.selectedIndex].getAttribute("data-choices") || "{}");
      ["treatment", "baseline"].forEach(function (side) {
        var select = pick.querySelector('select[name="' + side + '"]');
        if (!select || !choices.conditions) { return; }
        while (select.firstChild) { select.removeChild(select.firstChild); }
        choices.conditions.forEach(function (c) {
          var option = document.createElement("option");
          option.value = c[0]; option.textContent = c[1]; option.selected = c[0] === choices[side];
          select.appendChild(option);
        });
      });
    });
  }

  var form = document.getElementById("playground-form");
  if (!form) { return; }
  var status = document.getElementById("batch-status");
  // Each suite's cases are a fieldset: only the chosen suite's is shown, and only its ticks are
  // sent (a case ticked under another suite is no case of the suite run, which would refuse it).
  var chooser = form.querySelector('[name="suite"]');
  function suiteCases() {
    return Array.prototype.filter.call(form.querySelectorAll("fieldset[data-suite]"), function (f) {
      return f.getAttribute("data-suite") === chooser.value;
    })[0];
  }
  function showChosen() {
    form.querySelectorAll("fieldset[data-suite]").forEach(function (f) {
      f.hidden = f.getAttribute("data-suite") !== chooser.value;
    });
  }
  chooser.addEventListener("change", showChosen);
  showChosen();  // (a reload may bring back the suite chosen before it)
  // Why the last "run" was refused (a batch still running, say): kept beside the state that
  // a batch followed meanwhile shows, never overwritten by it.
  var refused = "";
  function show(batch) {
    status.textContent = batch.state + (batch.message ? ": " + batch.message : "") + (refused ? " (" + refused + ")" : "");
    status.setAttribute("data-state", batch.state);
    var link = document.getElementById("batch-run");
    if (batch.runUrl) { link.href = batch.runUrl; link.textContent = batch.run; }
    var done = document.getElementById("batch-progress");
    if (done && batch.planned) { done.textContent = (batch.finishedTrials || []).length + " of " + batch.planned + " trials"; }
    var list = document.getElementById("batch-trials");
    if (!list) { return; }
    while (list.firstChild) { list.removeChild(list.firstChild); }
    (batch.finishedTrials || []).forEach(function (t) {
      var item = document.createElement("li");
      var a = document.createElement("a");
      a.href = t.url; a.textContent = t.key;
      item.appendChild(a);
      item.appendChild(document.createTextNode(" " + t.status));
      list.appendChild(item);
    });
  }
  // The list of batches, as the server renders it, brought up to date in place: a reload
  // would drop the finished batch's trials that show() listed, each linked.
  function refreshBatches() {
    var list = document.getElementById("batches");
    if (!list) { return; }
    fetch(window.location.href, { credentials: "same-origin" }).then(function (r) {
      return r.ok ? r.text() : null;
    }).then(function (html) {
      if (html === null) { return; }
      var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("batches");
      if (fresh) { list.innerHTML = fresh.innerHTML; }  // rendered and escaped by the server
    });
  }
  function poll(id) {
    fetch("/api/batches/" + encodeURIComponent(id)).then(function (r) { return r.json(); }).then(function (batch) {
      show(batch);
      if (batch.state === "queued" || batch.state === "running") { window.setTimeout(function () { poll(id); }, 1000); }
      else { refreshBatches(); }
    });
  }
  // The latest batch, as the page was served: still running (the page was opened or reloaded
  // meanwhile), it is followed; finished, its state stays shown after the reload.
  var current = status.getAttribute("data-state");
  if ((current === "queued" || current === "running") && status.getAttribute("data-batch")) {
    poll(status.getAttribute("data-batch"));
  }
  var sent = 0;  // submissions made, and the last one refused: a refusal of a later click
  var refusedAt = 0;  // stays shown when an earlier click's batch is accepted after it
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var mine = ++sent;
    var chosen = suiteCases();
    var cases = chosen ? Array.prototype.map.call(chosen.querySelectorAll('input[name="case"]:checked'), function (i) { return i.value; }) : [];
    var suite = chooser.value;
    fetch("/api/batches", {
      method: "POST",
      headers: { "content-type": "application/json", "x-proctor-token": token },
      body: JSON.stringify({ suite: suite, cases: cases })
    }).then(function (r) { return r.json().then(function (body) { return { status: r.status, body: body }; }); })
      .then(function (res) {
        if (res.status !== 202) { refusedAt = mine; refused = res.body.error || ("refused: " + res.status); status.textContent = refused; status.setAttribute("data-state", "refused"); return; }
        if (refusedAt < mine) { refused = ""; }
        show(res.body); poll(res.body.id);
      });
  });
}());
