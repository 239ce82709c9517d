/* convgrad's player for a view's static animation (see export.py).
 *
 * The export holds the first frame as an <img class="cgp-key"> and, in a
 * JSON <script class="cgp-data">, every later frame as the tiles that
 * changed since the frame before: [image, [x, y, w, h, sx, sy, ...]], in
 * tiles of data.tile px (where on the frame, the size, where in the image).
 * Frame k is the key frame with deltas 1..k drawn over it on a <canvas>.
 *
 * Controls: Play/Pause, one step back and forward, Reset, a step slider
 * counting from 1 (as the view's caption does) and a speed menu. Defined
 * once per page; every export calls convgradPlayer.mount(root). No network.
 */
(function () {
  "use strict";
  if (window.convgradPlayer) return;

  var SPEEDS = [0.25, 0.5, 1, 2, 4, 8];
  var ICONS = {
    play: "M7 4v16l13-8z",
    pause: "M6 4h4v16H6zM14 4h4v16h-4z",
    back: "M6 5h2v14H6zM20 5v14L9 12z",
    next: "M16 5h2v14h-2zM4 5l11 7-11 7z",
    reset: "M4 5h2v14H4zM20 5v14l-6-4.5V19L6 12l8-7v4.5z",
  };

  function icon(name) {
    var ns = "http://www.w3.org/2000/svg";
    var svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("aria-hidden", "true");
    var path = document.createElementNS(ns, "path");
    path.setAttribute("d", ICONS[name]);
    svg.appendChild(path);
    return svg;
  }

  function el(tag, cls, attrs) {
    var node = document.createElement(tag);
    node.className = cls;
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    return node;
  }

  function button(cls, name, tip) {
    var b = el("button", "cgp-button " + cls, { type: "button", title: tip, "aria-label": tip });
    b.appendChild(icon(name));
    return b;
  }

  function speedLabel(s) {
    return ({ 0.25: "\u00bc\u00d7", 0.5: "\u00bd\u00d7" })[s] || s + "\u00d7";
  }

  function mount(root) {
    if (!root || root.dataset.mounted) return;
    root.dataset.mounted = "1";
    var data = JSON.parse(root.querySelector(".cgp-data").textContent);
    var key = root.querySelector("img.cgp-key");
    var n = data.steps.length;
    var canvas = el("canvas", "cgp-canvas", { width: data.width, height: data.height });
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", key.alt);
    var ctx = canvas.getContext("2d");
    root.insertBefore(canvas, key);

    // the controls: two clusters in the figure's top corners
    var left = el("div", "cgp-bar cgp-left");
    var play = button("cgp-play", "play", "Play the steps from here (press again to pause)");
    var back = button("cgp-back", "back", "Back one step");
    var next = button("cgp-next", "next", "Forward one step");
    var reset = button("cgp-reset", "reset", "Pause and go back to step 1");
    [play, back, next, reset].forEach(function (b) { left.appendChild(b); });
    var right = el("div", "cgp-bar cgp-right");
    var slider = el("input", "cgp-slider", {
      type: "range", min: 1, max: n, step: 1, value: 1,
      title: "Drag to any step", "aria-label": "step",
    });
    var speed = el("select", "cgp-speed", { "aria-label": "speed" });
    SPEEDS.forEach(function (s) {
      var opt = el("option", "", { value: s });
      opt.textContent = speedLabel(s);
      if (s === 1) opt.selected = true;
      speed.appendChild(opt);
    });
    right.appendChild(slider);
    right.appendChild(speed);
    root.appendChild(left);
    root.appendChild(right);

    var images = new Array(n);
    var shown = -1; // the frame on the canvas
    var want = 0; // the frame asked for
    var timer = null;
    var ready = false;

    function speedTip() {
      var rate = data.fps * Number(speed.value);
      speed.title = "Playback speed: " + (Math.round(rate * 100) / 100) + " steps per second";
    }

    function draw(k) {
      if (k < shown || shown < 0) {
        ctx.drawImage(key, 0, 0);
        shown = 0;
      }
      for (var f = shown + 1; f <= k; f++) {
        var d = data.deltas[f - 1];
        if (!d) continue;
        var r = d[1], img = images[f], t = data.tile;
        for (var i = 0; i < r.length; i += 6) {
          var w = r[i + 2] * t, h = r[i + 3] * t;
          ctx.drawImage(img, r[i + 4] * t, r[i + 5] * t, w, h, r[i] * t, r[i + 1] * t, w, h);
        }
      }
      shown = k;
    }

    function show(k) {
      want = Math.max(0, Math.min(n - 1, k));
      slider.value = want + 1;
      slider.setAttribute("aria-valuetext", "step " + data.steps[want] + " of " + data.total);
      root.dataset.frame = want;
      if (ready) draw(want);
    }

    function setPlaying(on) {
      if (timer !== null) { clearTimeout(timer); timer = null; }
      root.dataset.playing = on ? "1" : "0";
      play.replaceChild(icon(on ? "pause" : "play"), play.firstChild);
      var tip = on ? "Pause" : "Play the steps from here (press again to pause)";
      play.title = tip;
      play.setAttribute("aria-label", tip);
      if (on) tick();
    }

    function tick() {
      timer = setTimeout(function () {
        timer = null;
        if (want < n - 1) show(want + 1);
        else if (data.loop) show(0);
        if (want >= n - 1 && !data.loop) setPlaying(false);
        else tick();
      }, 1000 / (data.fps * Number(speed.value)));
    }

    play.addEventListener("click", function () {
      var on = root.dataset.playing !== "1";
      if (on && want >= n - 1) show(0); // at the end, Play starts again
      setPlaying(on);
    });
    back.addEventListener("click", function () { setPlaying(false); show(want - 1); });
    next.addEventListener("click", function () { setPlaying(false); show(want + 1); });
    reset.addEventListener("click", function () { setPlaying(false); show(0); });
    slider.addEventListener("input", function () { show(Number(slider.value) - 1); });
    speed.addEventListener("change", function () {
      speedTip();
      if (root.dataset.playing === "1") setPlaying(true);
    });
    // keys on the player's own controls stay with it (reveal.js would
    // otherwise turn the slide)
    root.addEventListener("keydown", function (e) { e.stopPropagation(); });

    speedTip();
    show(0);
    root.dataset.playing = "0";
    var loads = [key.decode ? key.decode().catch(function () {}) : Promise.resolve()];
    data.deltas.forEach(function (d, i) {
      if (!d) return;
      var img = new Image();
      img.src = d[0];
      images[i + 1] = img;
      loads.push(img.decode ? img.decode() : new Promise(function (ok) { img.onload = ok; }));
    });
    Promise.all(loads).then(function () {
      ready = true;
      shown = -1;
      draw(want);
      root.classList.add("cgp-ready");
      root.dataset.ready = "1";
    }, function (err) {
      root.dataset.error = String(err);
    });
  }

  window.convgradPlayer = { mount: mount };
})();
