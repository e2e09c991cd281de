(function () {
  "use strict";
  var STEPS = [1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5, 6e5, 9e5, 18e5, 36e5, 72e5, 108e5, 216e5, 432e5, 864e5];
  var UNITS = 1000;
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  var MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  function tickLabel(ms, seconds) {
    var d = new Date(ms);
    if (d.getUTCHours() === 0 && d.getUTCMinutes() === 0 && d.getUTCSeconds() === 0) {
      return MONTHS[d.getUTCMonth()] + " " + d.getUTCDate(); // a new day
    }
    return hhmm(ms, seconds);
  }
  function hhmm(ms, seconds) {
    var d = new Date(ms);
    var s = pad(d.getUTCHours()) + ":" + pad(d.getUTCMinutes());
    return seconds ? s + ":" + pad(d.getUTCSeconds()) : s;
  }
  function num(v) { return String(Math.round(v * 10) / 10); }

  function setupTimeline(fig) {
    var svg = fig.querySelector("svg.tl");
    var wrap = fig.querySelector(".svgwrap");
    var bar = fig.querySelector(".zoom");
    var state = fig.querySelector(".zoom-state");
    if (!svg || !wrap || !bar) { return; }
    var L = +svg.getAttribute("data-left"), P = +svg.getAttribute("data-plot");
    var t0 = +svg.getAttribute("data-t0"), t1 = +svg.getAttribute("data-t1");
    var minSpan = Math.max(0.5, UNITS * 1000 / Math.max(1, t1 - t0)); // at least one second
    var v0 = 0, v1 = UNITS;
    var axis = svg.querySelector("g.axis");
    var tickProto = axis.querySelector("g.tick");
    var yTop = tickProto ? tickProto.querySelector("line").getAttribute("y1") : "18";
    var yBot = tickProto ? tickProto.querySelector("line").getAttribute("y2") : "0";
    var NS = svg.namespaceURI;

    function X(u) { return L + (u - v0) * P / (v1 - v0); }
    function clampX(x) { return Math.min(Math.max(x, L - 2), L + P + 2); }

    function drawTicks() {
      var ms0 = t0 + (t1 - t0) * v0 / UNITS, ms1 = t0 + (t1 - t0) * v1 / UNITS;
      var step = STEPS[STEPS.length - 1];
      for (var i = 0; i < STEPS.length; i++) {
        if ((ms1 - ms0) / STEPS[i] <= 8) { step = STEPS[i]; break; }
      }
      while (axis.firstChild) { axis.removeChild(axis.firstChild); }
      for (var t = Math.ceil(ms0 / step) * step; t <= ms1; t += step) {
        var u = (t - t0) / (t1 - t0) * UNITS, x = num(X(u));
        var g = document.createElementNS(NS, "g");
        g.setAttribute("class", "tick");
        var line = document.createElementNS(NS, "line");
        line.setAttribute("x1", x); line.setAttribute("x2", x);
        line.setAttribute("y1", yTop); line.setAttribute("y2", yBot);
        var text = document.createElementNS(NS, "text");
        text.setAttribute("x", x); text.setAttribute("y", "12");
        text.textContent = tickLabel(t, step < 6e4);
        g.appendChild(line); g.appendChild(text); axis.appendChild(g);
      }
    }

    function placeLabels() {
      var lastEnd = {};
      var labels = svg.querySelectorAll("g.mark");
      for (var i = 0; i < labels.length; i++) {
        var g = labels[i], text = g.querySelector("text.ml");
        if (!text || g.style.display === "none") { continue; }
        var x = X(+g.getAttribute("data-u")), y = g.getAttribute("data-y");
        var w = text.getComputedTextLength() + 8;
        if (lastEnd[y] !== undefined && x - w / 2 < lastEnd[y]) {
          text.setAttribute("visibility", "hidden");
        } else {
          text.removeAttribute("visibility");
          lastEnd[y] = x + w / 2;
        }
      }
    }

    function draw() {
      var els = svg.querySelectorAll("[data-b]");
      for (var i = 0; i < els.length; i++) {
        var a = clampX(X(+els[i].getAttribute("data-a"))), b = clampX(X(+els[i].getAttribute("data-b")));
        els[i].setAttribute("x", num(a));
        els[i].setAttribute("width", num(Math.max(b - a, 0.6)));
      }
      var texts = svg.querySelectorAll("text[data-a]");
      for (i = 0; i < texts.length; i++) {
        texts[i].setAttribute("x", num(Math.max(X(+texts[i].getAttribute("data-a")), L)));
      }
      var marks = svg.querySelectorAll("g.mark");
      for (i = 0; i < marks.length; i++) {
        var x = X(+marks[i].getAttribute("data-u"));
        marks[i].setAttribute("transform", "translate(" + num(x) + "," + marks[i].getAttribute("data-y") + ")");
        marks[i].style.display = (x < L - 8 || x > L + P + 8) ? "none" : "";
      }
      drawTicks();
      placeLabels();
      var ms0 = t0 + (t1 - t0) * v0 / UNITS, ms1 = t0 + (t1 - t0) * v1 / UNITS;
      var zoomed = v0 > 0 || v1 < UNITS;
      state.textContent = zoomed ? "showing " + hhmm(ms0, true) + " to " + hhmm(ms1, true) + " UTC" : "";
    }

    function zoom(factor, centre) {
      var span = v1 - v0;
      var next = Math.min(UNITS, Math.max(minSpan, span * factor));
      if (centre === undefined) { centre = (v0 + v1) / 2; }
      var f = (centre - v0) / span;
      v0 = centre - f * next; v1 = v0 + next;
      shift(0);
    }
    function shift(by) {
      var span = v1 - v0;
      v0 += by; v1 += by;
      if (v0 < 0) { v0 = 0; v1 = span; }
      if (v1 > UNITS) { v1 = UNITS; v0 = UNITS - span; }
      draw();
    }
    function act(what) {
      switch (what) {
        case "in": zoom(0.5); break;
        case "out": zoom(2); break;
        case "left": shift(-(v1 - v0) / 4); break;
        case "right": shift((v1 - v0) / 4); break;
        case "reset": v0 = 0; v1 = UNITS; draw(); break;
      }
    }
    bar.hidden = false;
    bar.addEventListener("click", function (e) {
      var b = e.target.closest("button[data-zoom]");
      if (b) { act(b.getAttribute("data-zoom")); }
    });
    wrap.setAttribute("aria-keyshortcuts", "+ - ArrowLeft ArrowRight 0");
    wrap.addEventListener("keydown", function (e) {
      var map = { "+": "in", "=": "in", "-": "out", "_": "out", "ArrowLeft": "left", "ArrowRight": "right", "0": "reset", "Home": "reset" };
      var what = map[e.key];
      if (what && !e.altKey && !e.ctrlKey && !e.metaKey) { e.preventDefault(); act(what); }
    });
    svg.addEventListener("wheel", function (e) {
      if (!e.deltaY) { return; }
      var box = svg.getBoundingClientRect();
      var vb = svg.viewBox.baseVal;
      var x = (e.clientX - box.left) * vb.width / box.width;
      if (x < L) { return; }
      e.preventDefault();
      zoom(e.deltaY < 0 ? 0.8 : 1.25, v0 + (x - L) / P * (v1 - v0));
    }, { passive: false });
  }

  function setupCopy(button) {
    var code = button.parentNode.querySelector("code");
    button.hidden = false;
    button.setAttribute("aria-label", "Copy command: " + code.textContent);
    button.addEventListener("click", function () {
      var text = code.textContent;
      function done() {
        button.textContent = "Copied";
        button.classList.add("copied");
        setTimeout(function () { button.textContent = "Copy"; button.classList.remove("copied"); }, 1500);
      }
      function fallback() {
        var range = document.createRange();
        range.selectNodeContents(code);
        var sel = window.getSelection();
        sel.removeAllRanges(); sel.addRange(range);
        try { document.execCommand("copy"); done(); } catch (err) { button.textContent = "Press Ctrl+C"; }
      }
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(done, fallback);
      } else {
        fallback();
      }
    });
  }

  var figs = document.querySelectorAll("figure.timeline");
  for (var i = 0; i < figs.length; i++) { setupTimeline(figs[i]); }
  var copies = document.querySelectorAll("button.copy");
  for (i = 0; i < copies.length; i++) { setupCopy(copies[i]); }
  document.documentElement.setAttribute("data-script", "ready");
})();
