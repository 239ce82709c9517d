/* convgrad's scene renderer, an ES module: draws a view's scene (see
 * scene.py) as SVG.
 *
 * One renderer for every host, loaded as it is: anywidget's module of the
 * live widget (its default export, render), and the one module a slide
 * deck or a web page loads for all its embedded views (<convgrad-scene>,
 * below; export.py). Play, pause, step, scrub and speed are browser state
 * only; the kernel hears of nothing while a view plays. The panels are laid
 * out for the container's width, again on every resize: one row while the
 * numbers stay at least 12 CSS px, else the panels wrap and stack.
 *
 * Keyboard: Space plays or pauses, the arrow keys step, Home and End go to
 * the first and the last step. On the player's own controls (the step
 * slider, a parameter's slider or menu, the speed menu) the keys move that
 * control and Space on the step slider plays; no key that moves a control
 * reaches the host page (JupyterLab would move its active cell). Where a
 * scene's panel lists picks, a click on a cell goes to the step it names
 * (the keys reach every step too). The caption is
 * text in the page (a polite live region while paused) that says what the
 * step changed and where; the step slider's value says it too.
 *
 * A reader's settings: with prefers-reduced-motion nothing moves but the
 * steps the reader asks for (no transition, no animation, no loop: Play
 * plays once); with forced colours (a high-contrast theme) the grids take
 * the system's colours and every outline keeps a colour of its own
 * (scene.css).
 *
 * Exports: mount(root, scene, options) -> player; options.live shows the
 *   parameter controls, on options.params (their values); options.onParams
 *   (values) and options.onFrame(i) are what the host hears (a control
 *   changed; the player stopped on step i). render({model, el}), the
 *   widget's (and the default export's). prepare(scene), the frames'
 *   replay (for tests).
 *
 * Nothing here may spell an HTML end tag or comment opener: a page inlines
 * the module in a script element (tests/test_export.py checks). (The body
 * keeps the indent it had inside the script's old function wrapper.)
 */
  var SVG = "http://www.w3.org/2000/svg";
  // the measures (sizes, gaps, lines, fonts) are the scene's: scene.style.layout
  // (palette.py's LAYOUT, which the painter of pictures reads too)
  var TRAILS = { trail1: 1, trail2: 1 }; // the fading trail: no edge
  // the keys a focused control moves itself with: kept from the host page
  var CONTROL_KEYS = { ArrowLeft: 1, ArrowRight: 1, ArrowUp: 1, ArrowDown: 1, Home: 1, End: 1,
                       PageUp: 1, PageDown: 1, " ": 1 };
  var ICONS = {
    play: "M7 4v16l13-8z",
    pause: "M6 4h4v16H6zM14 4h4v16h-4z",
    back: "M6 5h2v14H6zM20 5v14L9 12z",
    next: "M16 5h2v14h-2zM4 5l11 7-11 7z",
    reset: "M4 5h2v14H4zM20 5v14l-6-4.5V19L6 12l8-7v4.5z",
  };

  function el(tag, cls, attrs) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    return node;
  }

  function sv(tag, attrs) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    return node;
  }

  function icon(name) {
    var svg = sv("svg", { viewBox: "0 0 24 24", "aria-hidden": "true", focusable: "false" });
    svg.appendChild(sv("path", { d: ICONS[name] }));
    return svg;
  }

  /* JupyterLab (Lumino) matches its command-mode shortcuts against the
   * focused element itself before it looks for this attribute on the
   * element's ancestors, so each control that moves with keys carries it
   * (a button's keys are the player's: key() stops them) */
  function ownKeys(node) {
    node.setAttribute("data-lm-suppress-shortcuts", "true");
    return node;
  }

  function button(cls, name, label) {
    var b = el("button", "cgs-button " + cls, { type: "button", title: label, "aria-label": label });
    b.appendChild(icon(name));
    return b;
  }

  // ---- numbers and colours ---------------------------------------------

  var measurer = null;
  function textWidth(text, px, font) {
    if (!measurer) measurer = document.createElement("canvas").getContext("2d");
    measurer.font = px + "px " + font;
    return measurer.measureText(text).width;
  }

  function hexRgb(hex) {
    var v = parseInt(hex.slice(1, 7), 16);
    return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
  }

  function colourOf(stops, t) {
    if (!(t >= 0)) t = 0;
    if (t > 1) t = 1;
    var x = t * (stops.length - 1), k = Math.min(Math.floor(x), stops.length - 2);
    var f = x - k, a = stops[k], b = stops[k + 1];
    return [0, 1, 2].map(function (j) { return Math.round(a[j] + (b[j] - a[j]) * f); });
  }

  function darkText(rgb) { // black reads better than white: WCAG contrast
    var lin = rgb.map(function (c) {
      c /= 255;
      return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    });
    var lum = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
    return (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05);
  }

  function css(rgb) { return "rgb(" + rgb.join(",") + ")"; }

  function dashOf(dash, w) {
    if (dash === "--") return (3 * w) + " " + (2 * w);
    if (dash === ":") return w + " " + (1.4 * w);
    return "none";
  }

  // ---- a scene, prepared once --------------------------------------------

  /* a frame's changes onto a state: st[cell] >= 0 is a number index, < 0
   * a cell not written yet (-1 - index) */
  function applySet(st, set) {
    for (var k = 0; k < set.length; k++) {
      var s = set[k];
      st[s[0]] = s[2] ? s[1] : -1 - s[1];
    }
  }

  /* The frames are what each step changed; prepare keeps a checkpoint (the
   * state and the outlines) per state's worth of changes, so memory grows
   * with the scene and not with steps x cells. at(i) is frame i, from the
   * last frame asked when that is on the way (Play), else from the nearest
   * checkpoint: {frame, state, marks}, shared (read it, do not keep it). */
  export function prepare(scene) {
    var numbers = scene.numbers.map(function (v) {
      return typeof v === "string" ? (v === "nan" ? NaN : v === "inf" ? Infinity : -Infinity) : v;
    });
    var size = scene.state_size, n = scene.steps, frames = scene.frames;
    var every = Math.max(size, 64), work = every, checks = [];
    var cur = new Int32Array(size).fill(-1), now = {};
    for (var i = 0; i < n; i++) {
      applySet(cur, frames[i].set);
      Object.assign(now, frames[i].marks);
      work += frames[i].set.length + 1;
      if (work >= every) { // frame 0 always
        checks.push({ frame: i, state: cur.slice(), marks: Object.assign({}, now) });
        work = 0;
      }
    }
    var cursor = null;
    function at(i) {
      var lo = 0, hi = checks.length - 1;
      while (lo < hi) { // the last checkpoint at or before frame i
        var mid = (lo + hi + 1) >> 1;
        if (checks[mid].frame <= i) lo = mid; else hi = mid - 1;
      }
      var c = checks[lo];
      if (!cursor || cursor.frame > i || cursor.frame < c.frame) {
        cursor = { frame: c.frame, state: c.state.slice(), marks: Object.assign({}, c.marks) };
      }
      while (cursor.frame < i) {
        cursor.frame += 1;
        applySet(cursor.state, frames[cursor.frame].set);
        Object.assign(cursor.marks, frames[cursor.frame].marks);
      }
      return cursor;
    }
    var stops = scene.style.cmap.map(hexRgb), L = scene.style.layout;
    return { scene: scene, numbers: numbers, at: at, stops: stops, L: L,
             fontMin: L.font_min, labelFont: L.text.label[0], soft: L.font_soft };
  }

  // ---- one panel -----------------------------------------------------------

  function Panel(prep, p) {
    this.prep = prep;
    this.p = p;
    var texts = prep.scene.texts, compact = prep.scene.compact, font = prep.L.font;
    // the widest number it will ever show, at 1 px
    var wide = 0, wideC = 0, seen = {};
    var consider = function (k) {
      if (seen[k]) return;
      seen[k] = 1;
      wide = Math.max(wide, textWidth(texts[k], 100, font) / 100);
      wideC = Math.max(wideC, textWidth(compact[k], 100, font) / 100);
    };
    if (p.cells) p.cells.forEach(consider);
    else if (prep.scene.steps) { // frame 0's cells, then every later change in the panel
      var size = p.rows * p.cols, frames = prep.scene.frames, st = prep.at(0).state;
      for (var j = 0; j < size; j++) {
        var v = st[p.offset + j];
        consider(v < 0 ? -1 - v : v);
      }
      for (var i = 1; i < frames.length; i++) {
        frames[i].set.forEach(function (s) {
          if (s[0] >= p.offset && s[0] < p.offset + size) consider(s[1]);
        });
      }
    }
    this.wide = Math.max(wide, 0.5);
    this.wideC = Math.max(wideC, 0.5);
    this.labels = [p.row_labels || range(p.rows).map(String), p.col_labels || range(p.cols).map(String)];
    this.orient(false);
  }

  /* draw the panel as it is, or turned (its rows down the screen's columns:
   * a wide, short grid on a phone); q is the grid as drawn */
  Panel.prototype.orient = function (turned) {
    var p = this.p, t = turned ? 1 : 0;
    this.turned = !!turned;
    this.q = { rows: t ? p.cols : p.rows, cols: t ? p.rows : p.cols,
               pad: t ? [p.pad[1], p.pad[0]] : p.pad,
               blocks: p.blocks && (t ? [p.blocks[1], p.blocks[0]] : p.blocks) };
    var rl = this.labels[t], cl = this.labels[1 - t];
    this.rowLabels = rl;
    this.colLabels = cl;
    var px = this.prep.labelFont, font = this.prep.L.font, gap = this.prep.L.label_gap;
    var widest = function (labels) {
      return Math.max.apply(null, labels.map(function (x) { return textWidth(x, px, font); }).concat([0]));
    };
    this.labelW = gap[0] + widest(rl);
    this.colLabelW = gap[1] + widest(cl);
  };

  /* the panel's width on screen at cell c (its svg: row labels, cells, margin) */
  Panel.prototype.span = function (c) {
    return this.labelW + this.extent()[1] * c + this.prep.L.grid_right;
  };

  /* on a screen ``avail`` px wide (a phone), the panel's cell and whether it
   * is turned: as laid out if it fits; else smaller cells while its numbers
   * stay legible; else turned, if that fits; else the larger of the cells
   * that fit either way, down to the layout's cell_floor (colours, no numbers) */
  Panel.prototype.fit = function (cell, least, avail) {
    this.orient(false);
    if (this.span(cell) <= avail) return cell;
    var self = this, need = this.need(least);
    var fits = function (turned) {
      self.orient(turned);
      return Math.floor((avail - self.span(0)) / self.extent()[1]);
    };
    var flat = fits(false);
    if (flat >= need) return Math.min(cell, flat);
    var turned = this.p.cols > this.p.rows ? fits(true) : -1;
    if (turned >= need) return Math.min(cell, turned);
    this.orient(turned > flat);
    return Math.max(this.prep.L.cell_floor, Math.min(cell, Math.max(flat, turned)));
  };

  /* the reader asked for less motion (prefers-reduced-motion) */
  function lessMotion() {
    return typeof matchMedia !== "undefined" && matchMedia("(prefers-reduced-motion: reduce)").matches;
  }

  function range(n) { var a = []; for (var i = 0; i < n; i++) a.push(i); return a; }

  /* the cell size (px) at which the panel's numbers read at the smallest
   * font allowed (the layout's font_min; a slide, which the projector scales up, may set
   * --cgs-font-min lower) */
  Panel.prototype.need = function (font) {
    var fill = this.prep.L.fill;
    return Math.ceil(((font || this.prep.fontMin) * Math.min(this.wide, this.wideC) + fill[1]) / fill[0]);
  };
  /* the height of panels wrapped into rows of the given width, at cell c */
  function wrapHeight(subs, c, width, tall) {
    var total = 0, rowW = 0, rowH = 0;
    subs.forEach(function (s) {
      var w = s.fixed + s.cols * c, h = tall(s.g, c);
      if (rowW && rowW + w > width) { total += rowH; rowW = 0; rowH = 0; }
      rowW += w;
      rowH = Math.max(rowH, h);
    });
    return total + rowH;
  }

  Panel.prototype.extent = function () {
    return [this.q.rows + 2 * this.q.pad[0], this.q.cols + 2 * this.q.pad[1]];
  };

  Panel.prototype.build = function (cell, least) {
    var p = this.q, ph = p.pad[0], pw = p.pad[1], ext = this.extent(), turned = this.turned;
    this.cell = cell;
    least = least || this.prep.fontMin;
    var L = this.prep.L, room = L.fill[0] * cell - L.fill[1]; // a number's width
    var fontMax = Math.max(L.font_max, 0.36 * cell, least);
    var font = Math.min(fontMax, room / this.wide);
    this.compact = false;
    if (font < least) {
      font = Math.min(fontMax, room / this.wideC);
      this.compact = true;
    }
    this.numbers = font >= least - 1e-9;
    this.font = font;
    this.coloured = this.p.colored || !this.numbers;
    var left = this.labelW, top = L.grid_top;
    var rot = this.colLabelW > cell * 0.98 * this.labelStep(cell); // vertical labels
    var labelFont = this.prep.labelFont;
    var below = 6 + (rot ? Math.min(this.colLabelW, 60) : labelFont + 2);
    var width = left + ext[1] * cell + L.grid_right, height = top + ext[0] * cell + below;
    var svg = sv("svg", { class: "cgs-grid", width: width, height: height,
                          viewBox: "0 0 " + width + " " + height, role: "img" });
    this.svg = svg;
    svg.setAttribute("data-numbers", this.numbers ? "1" : "0");
    var g = sv("g", { transform: "translate(" + (left + pw * cell) + "," + (top + ph * cell) + ")" });
    svg.appendChild(g);
    if (ph || pw) {
      g.appendChild(sv("rect", { x: -pw * cell, y: -ph * cell, width: ext[1] * cell,
                                 height: ext[0] * cell, fill: this.prep.scene.style.padding,
                                 class: "cgs-pad" }));
    }
    this.rects = [];
    this.texts = [];
    var cells = sv("g", { class: "cgs-cells" }), nums = sv("g", { class: "cgs-nums" });
    if (this.numbers) nums.setAttribute("font-size", font.toFixed(1));
    // one rect and one text per cell, in the scene's order (row by row of
    // the panel as declared), each where the panel is drawn
    var R = turned ? p.cols : p.rows, C = turned ? p.rows : p.cols;
    for (var r = 0; r < R; r++) {
      for (var c = 0; c < C; c++) {
        var dx = (turned ? r : c) * cell, dy = (turned ? c : r) * cell;
        var rect = sv("rect", { x: dx, y: dy, width: cell, height: cell, fill: "#fff" });
        cells.appendChild(rect);
        this.rects.push(rect);
        var t = sv("text", { x: dx + 0.5 * cell, y: dy + 0.5 * cell, "text-anchor": "middle",
                             "dominant-baseline": "central" });
        nums.appendChild(t);
        this.texts.push(t);
      }
    }
    g.appendChild(cells);
    // every cell border, the padding ring's too
    var path = "";
    // (cells too small for borders between them: the outer border only)
    var thin = cell < L.lines_min_cell;
    for (var x = -pw; x <= p.cols + pw; x++) {
      if (!thin || x === -pw || x === p.cols + pw) path += "M" + x * cell + " " + (-ph * cell) + "V" + (p.rows + ph) * cell;
    }
    for (var y = -ph; y <= p.rows + ph; y++) {
      if (!thin || y === -ph || y === p.rows + ph) path += "M" + (-pw * cell) + " " + y * cell + "H" + (p.cols + pw) * cell;
    }
    g.appendChild(sv("path", { d: path, stroke: L.lines[0], "stroke-width": L.lines[1], fill: "none",
                               class: "cgs-lines" }));
    if (p.blocks) {
      var heavy = "";
      for (var bx = p.blocks[1]; bx < p.cols; bx += p.blocks[1]) heavy += "M" + bx * cell + " 0V" + p.rows * cell;
      for (var by = p.blocks[0]; by < p.rows; by += p.blocks[0]) heavy += "M0 " + by * cell + "H" + p.cols * cell;
      g.appendChild(sv("path", { d: heavy, stroke: L.blocks[0], "stroke-width": L.blocks[1], fill: "none",
                                 class: "cgs-lines cgs-blocks" }));
    }
    g.appendChild(nums);
    // labels: rows on the left, columns below (thinned until they fit)
    var labels = sv("g", { class: "cgs-labels", "font-size": labelFont });
    var rstep = Math.max(1, Math.ceil(labelFont * 1.2 / cell));
    for (r = 0; r < p.rows; r += rstep) {
      var rl = sv("text", { x: -pw * cell - 4, y: (r + 0.5) * cell, "text-anchor": "end",
                            "dominant-baseline": "central" });
      rl.textContent = this.rowLabels[r];
      labels.appendChild(rl);
    }
    var cstep = this.labelStep(cell), yb = (p.rows + ph) * cell + 4;
    for (c = 0; c < p.cols; c += cstep) {
      var label = this.colLabels[c];
      if (!label) continue;
      var cx = (c + 0.5) * cell;
      var ct = rot
        ? sv("text", { x: cx, y: yb, "text-anchor": "end", "dominant-baseline": "central",
                       transform: "rotate(-90 " + cx + " " + yb + ")" })
        : sv("text", { x: cx, y: yb, "text-anchor": "middle", "dominant-baseline": "hanging" });
      ct.textContent = label;
      labels.appendChild(ct);
    }
    g.appendChild(labels);
    // the outlines, drawn over everything
    var style = this.prep.scene.style, roles = this.p.marks.slice();
    if (roles.indexOf("dst") >= 0) roles.push("trail1", "trail2");
    this.marks = {};
    var self = this;
    // each outline (but the fading trail) between edges a pixel wide, black
    // then white, dashed alike: an orange outline is 2.3:1 on a white cell
    // and 1.9:1 on a grey one, but black or white is 4.6:1 at least on any
    // cell (WCAG 1.4.11); the edges lie under every outline, the white ones
    // under every black one, so none hides another
    var rims = sv("g", { class: "cgs-halos" }), halos = sv("g", { class: "cgs-halos" });
    g.appendChild(rims);
    g.appendChild(halos);
    roles.forEach(function (role) {
      var s = style.marks[role], w = s.width * cell * L.mark_width[0] + L.mark_width[1];
      var colour = s.color.slice(0, 7), alpha = s.color.length > 7 ? parseInt(s.color.slice(7), 16) / 255 : 1;
      var m = sv("rect", { fill: "none", stroke: colour, "stroke-opacity": alpha.toFixed(2),
                           "stroke-width": w.toFixed(2), "stroke-dasharray": dashOf(s.dash, w),
                           visibility: "hidden", class: "cgs-mark cgs-mark-" + role });
      var edges = TRAILS[role] ? [] : [[rims, L.edges[0], "cgs-rim-"], [halos, L.edges[1], "cgs-edge-"]]
        .map(function (e) {
          var node = sv("rect", { fill: "none", stroke: e[1][0], "stroke-width": (w + e[1][1]).toFixed(2),
                                  "stroke-dasharray": dashOf(s.dash, w), visibility: "hidden",
                                  class: "cgs-halo " + e[2] + role });
          e[0].appendChild(node);
          return node;
        });
      self.marks[role] = { node: m, edges: edges, inset: (style.inset[role] || 0) * cell };
      g.appendChild(m);
    });
    svg.style.overflow = "visible";
    this.shown = null;
    if (this.p.cells) this.paint(Int32Array.from(this.p.cells), 0);
    return svg;
  };

  /* the panel's cell (its index in the scene's row-by-row order) under the
   * point (x, y) of the page, or null */
  Panel.prototype.cellAt = function (x, y) {
    var box = this.svg.getBoundingClientRect(), q = this.q;
    var scale = box.width / (+this.svg.getAttribute("width") || 1), cell = this.cell * scale;
    var left = box.left + (this.labelW + q.pad[1] * this.cell) * scale;
    var top = box.top + (this.prep.L.grid_top + q.pad[0] * this.cell) * scale;
    var r = Math.floor((y - top) / cell), c = Math.floor((x - left) / cell);
    if (!(r >= 0 && c >= 0 && r < q.rows && c < q.cols)) return null;
    if (this.turned) { var t = r; r = c; c = t; }
    return r * this.p.cols + c;
  };

  Panel.prototype.labelStep = function (cell) {
    return Math.max(1, Math.ceil((this.colLabelW + 4) / cell));
  };

  /* show values: st[offset + k] (>= 0: number index, < 0: not written) */
  Panel.prototype.paint = function (st, offset) {
    var prep = this.prep, sc = prep.scene, lo = this.p.scale[0], hi = this.p.scale[1];
    var words = this.compact ? sc.compact : sc.texts;
    var size = this.p.rows * this.p.cols;
    if (!this.shown) this.shown = new Int32Array(size).fill(-2147483647);
    for (var k = 0; k < size; k++) {
      var v = st[offset + k];
      if (v === this.shown[k]) continue;
      this.shown[k] = v;
      var rect = this.rects[k], text = this.texts[k];
      if (v < 0) { // not written yet: blank
        rect.setAttribute("fill", "#fff");
        text.textContent = "";
        continue;
      }
      var x = prep.numbers[v];
      var rgb = this.coloured ? colourOf(prep.stops, (x - lo) / (hi - lo)) : [255, 255, 255];
      if (this.coloured && isNaN(x)) rgb = [255, 255, 255];
      rect.setAttribute("fill", css(rgb));
      text.textContent = this.numbers ? words[v] : "";
      text.setAttribute("fill", darkText(rgb) ? "#000" : "#fff");
    }
  };

  Panel.prototype.place = function (role, where) {
    var m = this.marks[role];
    if (!m) return;
    var nodes = m.edges.concat([m.node]);
    if (!where) {
      nodes.forEach(function (node) { node.setAttribute("visibility", "hidden"); });
      return;
    }
    var r = where[0], c = where[1], h = where.length > 2 ? where[2] : 1, w = where.length > 2 ? where[3] : 1;
    if (this.turned) { var t = r; r = c; c = t; t = h; h = w; w = t; }
    var cell = this.cell, inset = m.inset;
    nodes.forEach(function (node) {
      node.setAttribute("x", (c * cell + inset).toFixed(2));
      node.setAttribute("y", (r * cell + inset).toFixed(2));
      node.setAttribute("width", Math.max(1, w * cell - 2 * inset).toFixed(2));
      node.setAttribute("height", Math.max(1, h * cell - 2 * inset).toFixed(2));
      node.setAttribute("visibility", "visible");
    });
  };

  // ---- the player ----------------------------------------------------------

  function Player(root, scene, options) {
    this.root = root;
    this.options = options || {};
    // the controls' values: the host's (options.params, setParams), else the
    // scene's own
    this.values = this.options.params || null;
    this.frame = 0;
    this.playing = false;
    this.timer = 0;
    root.classList.add("cgs");
    root.setAttribute("tabindex", "0");
    root.setAttribute("role", "group");
    // JupyterLab leaves keys pressed in here to the player (Lumino's rule)
    root.setAttribute("data-lm-suppress-shortcuts", "true");
    this.head = el("div", "cgs-head");
    this.title = el("div", "cgs-title");
    this.sub = el("div", "cgs-sub");
    this.warn = el("div", "cgs-warn");
    this.head.appendChild(this.title);
    this.head.appendChild(this.sub);
    this.head.appendChild(this.warn);
    root.appendChild(this.head);
    this.buildBar();
    this.inputs = el("div", "cgs-controls");
    // "computing…", or why a value was refused: news the reader asked for,
    // not urgent, so a polite status (role=alert would interrupt); it stays
    // in the accessibility tree while empty, so what it then says is heard
    this.message = el("div", "cgs-message", { role: "status" });
    root.appendChild(this.inputs);
    root.appendChild(this.message);
    // the caption sits by the controls, above the grids: in sight while a
    // view taller than the screen plays
    this.caption = el("p", "cgs-caption", { "aria-live": "polite" });
    root.appendChild(this.caption);
    this.area = el("div", "cgs-panels");
    root.appendChild(this.area);
    this.legend = el("div", "cgs-legend");
    root.appendChild(this.legend);
    var self = this;
    root.addEventListener("keydown", function (e) { self.key(e); });
    if (typeof ResizeObserver !== "undefined") {
      this.resizer = new ResizeObserver(function () { self.relayout(); });
      this.resizer.observe(root);
    }
    this.setScene(scene);
  }

  Player.prototype.buildBar = function () {
    var self = this, bar = el("div", "cgs-bar");
    this.play = button("cgs-play", "play", "Play");
    this.back = button("cgs-back", "back", "Back one step");
    this.next = button("cgs-next", "next", "Forward one step");
    this.reset = button("cgs-reset", "reset", "Pause and go back to step 1");
    this.slider = ownKeys(el("input", "cgs-slider", { type: "range", min: 1, max: 1, step: 1, value: 1,
                                                      "aria-label": "step", title: "Drag to any step" }));
    this.count = el("span", "cgs-count", { "aria-hidden": "true" });
    this.speed = ownKeys(el("select", "cgs-speed", { "aria-label": "speed", title: "Steps per second" }));
    [this.play, this.back, this.slider, this.next, this.reset, this.speed, this.count].forEach(function (x) { bar.appendChild(x); });
    this.root.appendChild(bar);
    this.play.addEventListener("click", function () { self.toggle(); });
    this.back.addEventListener("click", function () { self.pause(); self.goto(self.frame - 1); self.stopped(); });
    this.next.addEventListener("click", function () { self.pause(); self.goto(self.frame + 1); self.stopped(); });
    this.reset.addEventListener("click", function () { self.pause(); self.goto(0); self.stopped(); });
    this.slider.addEventListener("input", function () { self.pause(); self.goto(+self.slider.value - 1); });
    this.slider.addEventListener("change", function () { self.stopped(); });
    this.speed.addEventListener("change", function () {
      self.interval = +self.speed.value;
      if (self.playing) { self.pause(); self.start(); }
    });
  };

  Player.prototype.setScene = function (scene) {
    var was = this.prep && this.prep.scene;
    this.pause();
    this.prep = prepare(scene);
    var n = Math.max(scene.steps, 1), self = this;
    // the text's sizes and colours: the layout's, for scene.css
    var text = this.prep.L.text, rootStyle = this.root.style;
    Object.keys(text).forEach(function (name) {
      rootStyle.setProperty("--cgs-" + name + "-size", text[name][0] + "px");
      rootStyle.setProperty("--cgs-" + name + "-ink", text[name][1]);
    });
    rootStyle.setProperty("--cgs-font", this.prep.L.font);
    rootStyle.setProperty("--cgs-line-height", String(this.prep.L.line_height));
    ["gap", "row_gap", "group_gap", "stack_gap"].forEach(function (name) {
      rootStyle.setProperty("--cgs-" + name.replace("_", "-"), self.prep.L[name] + "px");
    });
    this.title.textContent = scene.title;
    this.sub.textContent = scene.subtitle;
    this.warn.textContent = scene.warning || "";
    this.root.setAttribute("aria-label", scene.title + ": an animation of " + scene.steps +
      " steps. Space plays or pauses, the arrow keys step, Home and End go to the first and last step.");
    this.slider.max = n;
    if (!was || was.speeds !== scene.speeds) {
      this.speed.textContent = "";
      scene.speeds.forEach(function (s) {
        var o = el("option", "", { value: s[1] });
        o.textContent = s[0];
        self.speed.appendChild(o);
      });
      this.interval = this.interval || scene.speed;
      this.speed.value = String(this.interval);
    }
    this.buildControls(scene);
    this.legend.textContent = "";
    scene.legend.forEach(function (entry) {
      var item = el("span", "cgs-key"), s = scene.style.marks[entry[0]];
      var sw = sv("svg", { width: 22, height: 12, "aria-hidden": "true" });
      sw.appendChild(sv("line", { x1: 1, y1: 6, x2: 21, y2: 6, stroke: scene.style.layout.edges[1][0], "stroke-width": 5,
                                  "stroke-dasharray": dashOf(s.dash, 3), class: "cgs-halo" }));
      sw.appendChild(sv("line", { x1: 1, y1: 6, x2: 21, y2: 6, stroke: s.color.slice(0, 7),
                                  "stroke-width": 3, "stroke-dasharray": dashOf(s.dash, 3),
                                  class: "cgs-mark-" + entry[0] }));
      item.appendChild(sw);
      // "where it lands (vermillion, solid)": the colour's name is not said
      // in forced colours, where the outline takes a system colour
      var said = /^(.*\()([^,()]+, )([^()]*\))$/.exec(entry[1]), words = el("span");
      if (!said) words.textContent = " " + entry[1];
      else {
        var hue = el("span", "cgs-key-colour");
        hue.textContent = said[2];
        words.appendChild(document.createTextNode(" " + said[1]));
        words.appendChild(hue);
        words.appendChild(document.createTextNode(said[3]));
      }
      item.appendChild(words);
      self.legend.appendChild(item);
    });
    this.panels = scene.panels.map(function (p) { return new Panel(self.prep, p); });
    this.width = -1;
    this.frame = Math.min(this.frame, Math.max(scene.steps - 1, 0));
    if (was) this.frame = 0;
    this.relayout(true);
  };

  /* the parameter controls of a live view; a new scene with the same
   * controls keeps them (and the focus on them), only their values move */
  Player.prototype.buildControls = function (scene) {
    var self = this, live = this.options.live && scene.controls.length;
    var shape = JSON.stringify(scene.controls.map(function (c) { return [c.name, c.kind, c.lo, c.hi, c.choices || null]; }));
    this.message.textContent = "";
    if (live && shape === this.controlShape) { this.syncControls(scene); return; }
    var focused = document.activeElement;
    var had = this.inputs.contains(focused) ? focused.name : null;
    this.inputs.textContent = "";
    this.controlShape = live ? shape : null;
    this.controls = {};
    this.readouts = {};
    if (!live) { this.inputs.hidden = true; return; }
    this.inputs.hidden = false;
    scene.controls.forEach(function (c) {
      var label = el("label", "cgs-control");
      var input;
      if (c.kind === "bool") {
        input = el("input", "", { type: "checkbox", name: c.name });
        label.appendChild(input);
        label.appendChild(document.createTextNode(" " + c.name));
      } else if (c.kind === "choice") { // a menu of words
        input = el("select", "cgs-choice", { name: c.name });
        (c.choices || []).forEach(function (word) {
          var o = el("option", "", { value: word });
          o.textContent = word;
          input.appendChild(o);
        });
        label.appendChild(document.createTextNode(c.name + " "));
        label.appendChild(input);
      } else {
        input = el("input", "", { type: "range", min: c.lo, max: c.hi, step: 1, name: c.name });
        var out = el("output", "cgs-value");
        label.appendChild(document.createTextNode(c.name + " "));
        label.appendChild(input);
        label.appendChild(out);
        self.readouts[c.name] = out;
        input.addEventListener("input", function () { out.textContent = input.value; });
      }
      ownKeys(input);
      input.setAttribute("aria-label", c.name);
      input.addEventListener("change", function () { self.sendParams(); });
      self.controls[c.name] = input;
      self.inputs.appendChild(label);
    });
    this.syncControls(scene);
    if (had && this.controls[had]) this.controls[had].focus();
  };

  /* every parameter control on its value: the host's (setParams), else the
   * one the scene was built with */
  Player.prototype.syncControls = function (scene) {
    var self = this, values = this.values || {};
    (scene || this.prep.scene).controls.forEach(function (c) {
      var input = self.controls && self.controls[c.name];
      if (!input) return;
      var v = c.name in values ? values[c.name] : c.value;
      if (c.kind === "bool") input.checked = !!v;
      else if (c.kind === "choice") input.value = String(v);
      else {
        input.value = v;
        self.readouts[c.name].textContent = input.value;
      }
    });
  };

  /* the host's values of the parameters (its state): the controls show them,
   * so a refused value, which the host puts back, leaves its control */
  Player.prototype.setParams = function (values) {
    this.values = values || null;
    this.syncControls();
  };

  /* a control changed: the host hears every control's value (nothing if
   * they are the values it holds already) */
  Player.prototype.sendParams = function () {
    var values = {}, self = this;
    Object.keys(this.controls).forEach(function (k) {
      var x = self.controls[k];
      values[k] = x.type === "checkbox" ? x.checked : x.tagName === "SELECT" ? x.value : +x.value;
    });
    var held = this.values;
    if (held && Object.keys(values).every(function (k) { return held[k] === values[k]; })) return;
    this.values = values;
    this.message.textContent = "computing\u2026";
    if (this.options.onParams) this.options.onParams(values);
  };

  /* the host's answer to the last onParams: why it was refused ("" if it
   * was not) */
  Player.prototype.showError = function (text) {
    this.message.textContent = text || "";
  };

  /* lay the panels out for the root's width (and the height a slide has) */
  Player.prototype.relayout = function (force) {
    var width = Math.floor(this.root.clientWidth || 800);
    if (!force && width === this.width) return;
    this.width = width;
    var style = getComputedStyle(this.root), L = this.prep.L;
    // a host's --cgs-* properties (a slide's) before the layout's own measures
    var maxH = parseFloat(style.getPropertyValue("--cgs-max-grid-height")) || L.max_grid_height;
    var cellMax = parseFloat(style.getPropertyValue("--cgs-cell-max")) || L.cell_max;
    this.prep.fontMin = parseFloat(style.getPropertyValue("--cgs-font-min")) || L.font_min;
    // no grid text below --cgs-text-min (a slide that a 1024-px screen scales
    // down sets it): the labels, and the numbers even where a wide screen
    // would shrink them to font_soft; numbers that cannot hold it give way
    // to colours alone
    var textMin = parseFloat(style.getPropertyValue("--cgs-text-min")) || 0;
    this.prep.labelFont = Math.max(L.text.label[0], textMin);
    this.prep.soft = Math.max(L.font_soft, textMin);
    var soft = this.prep.soft;
    // a host whose height is fixed (a slide: --cgs-fixed-height: 1) keeps
    // the grids within --cgs-max-grid-height, their numbers giving way to
    // colours where they cannot stay legible; a page grows taller instead
    var fixedH = maxH > 0 && style.getPropertyValue("--cgs-fixed-height").trim() === "1";
    // columns: panels sharing a column stack
    var groups = [], by = {};
    this.panels.forEach(function (pn) {
      var key = pn.p.column;
      if (key === null || key === undefined) { groups.push([pn]); return; }
      if (!by[key]) { by[key] = []; groups.push(by[key]); }
      by[key].push(pn);
    });
    var floor = this.prep.fontMin, narrow = width < L.narrow;
    this.panels.forEach(function (pn) { pn.orient(false); });
    var need = 0, needSoft = 0;
    this.panels.forEach(function (pn) {
      need = Math.max(need, pn.need(floor));
      needSoft = Math.max(needSoft, pn.need(Math.min(floor, soft)));
    });
    // a stack taller than the height allowed (a slide) at legible cells is
    // split into columns side by side: a tensor's channels in a grid
    // px: a panel's title and column labels; on a fixed height counted in
    // full (the title's line, the grid's margins and column labels, and the
    // 6 px between stacked panels, with a title about as large as a label)
    var TITLE = fixedH ? 2 * this.prep.labelFont + 26 : 40;
    var tall = function (g, c) {
      return g.reduce(function (s, pn) { return s + pn.extent()[0] * c + TITLE; }, 0);
    };
    // the panels in one row, each stack split into as many columns as
    // cells of ``target`` px need to keep within the height allowed
    var plan = function (target) {
      var columns = [];
      groups.forEach(function (g) {
        var k = maxH && g.length > 1 ? Math.min(g.length, Math.ceil(tall(g, target) / maxH)) : 1;
        var per = Math.ceil(g.length / k), parts = [];
        for (var j = 0; j < g.length; j += per) parts.push(g.slice(j, j + per));
        columns.push(parts);
      });
      var fixed = 0, cells = 0, rows = 0, stack = 1, subs = [];
      columns.forEach(function (parts) {
        parts.forEach(function (g) {
          var lw = Math.max.apply(null, g.map(function (pn) { return pn.labelW; })) + L.grid_right + L.gap;
          var cw = Math.max.apply(null, g.map(function (pn) { return pn.extent()[1]; }));
          fixed += lw;
          cells += cw;
          rows = Math.max(rows, g.reduce(function (s, pn) { return s + pn.extent()[0]; }, 0));
          stack = Math.max(stack, g.length);
          subs.push({ fixed: lw, cols: cw, g: g });
        });
      });
      var wFit = (width - fixed) / Math.max(cells, 1);
      var hFit = maxH ? (maxH - stack * TITLE) / Math.max(rows, 1) : Infinity;
      return { columns: columns, subs: subs, wFit: wFit, hFit: hFit,
               cell: Math.min(cellMax, wFit, hFit) };
    };
    var best = plan(need), cell = best.cell;
    if (cell < need) {
      // legible numbers come first: the panels wrap at cells that hold them,
      // unless (on a wide screen) that would be taller than the height
      // allowed while one row still holds numbers of font_soft px
      var wrapped = wrapHeight(best.subs, need, width, tall);
      if (!narrow && maxH && wrapped > maxH && Math.min(cellMax, best.wFit) >= needSoft) {
        cell = Math.min(cellMax, best.wFit);
        floor = Math.min(floor, soft);
      } else if (fixedH && wrapped > maxH) {
        // one row within the height, its stacks split for the largest cells:
        // numbers where they still fit, colours where they do not
        for (var t = Math.floor(need) - 1; t >= L.cell_floor; t--) {
          var other = plan(t);
          if (other.cell > best.cell) best = other;
        }
        cell = best.cell;
      } else {
        cell = Math.min(cellMax, need);
      }
    }
    var columns = best.columns;
    this.root.dataset.cell = cell.toFixed(1); // the layout chosen, for tests
    this.root.dataset.need = String(need);
    this.area.textContent = "";
    var self = this;
    columns.forEach(function (parts) {
      // a stack still taller than the height allowed (on a wide screen)
      // takes smaller cells of its own, while its numbers hold font_soft
      // (or --cgs-text-min)
      var own = cell, least = floor;
      var high = Math.max.apply(null, parts.map(function (g) { return tall(g, cell); }));
      if (!narrow && maxH && high > maxH) {
        var softNeed = 0, rowsG = 0, titles = 0;
        parts.forEach(function (g) {
          g.forEach(function (pn) { softNeed = Math.max(softNeed, pn.need(Math.min(floor, soft))); });
          rowsG = Math.max(rowsG, g.reduce(function (t, pn) { return t + pn.extent()[0]; }, 0));
          titles = Math.max(titles, g.length * TITLE);
        });
        var fit = (maxH - titles) / Math.max(rowsG, 1);
        if (fit < cell) {
          own = fixedH ? fit : Math.max(softNeed, fit);
          least = Math.min(floor, soft);
        }
      }
      var outer = el("div", "cgs-group");
      parts.forEach(function (g) {
        var col = el("div", "cgs-column");
        g.forEach(function (pn) {
          var fig = el("figure", "cgs-panel");
          var cap = el("figcaption", "cgs-panel-title");
          // a phone: a grid wider than the screen takes smaller cells, or
          // is turned, rather than scroll sideways
          var mine = narrow ? pn.fit(own, least, width - 8) : own;
          cap.textContent = pn.p.title + (pn.turned ? " (turned: its rows drawn as columns)" : "");
          fig.appendChild(cap);
          fig.dataset.turned = pn.turned ? "1" : "0";
          var svg = pn.build(mine, least);
          svg.setAttribute("aria-label", pn.p.title);
          if (pn.p.picks) self.pickable(pn, svg);
          var scroller = el("div", "cgs-scroll");
          scroller.appendChild(svg);
          fig.appendChild(scroller);
          col.appendChild(fig);
        });
        outer.appendChild(col);
      });
      self.area.appendChild(outer);
    });
    this.draw();
  };

  /* a panel whose cells pick a step (the scene's picks): a click on a cell
   * goes to its step, as the step keys and the slider do */
  Player.prototype.pickable = function (pn, svg) {
    var self = this;
    svg.classList.add("cgs-pick");
    svg.addEventListener("click", function (e) {
      var k = pn.cellAt(e.clientX, e.clientY), step = k === null ? -1 : pn.p.picks[k];
      if (!(step >= 0)) return;
      self.pause();
      self.goto(step);
      self.stopped();
    });
  };

  Player.prototype.draw = function () {
    var prep = this.prep, n = prep.scene.steps, i = this.frame;
    this.slider.value = i + 1;
    if (!n) {
      this.caption.textContent = "no events for this configuration";
      this.count.textContent = "";
      return;
    }
    var now = prep.at(i), st = now.state, marks = now.marks;
    var byId = {};
    this.panels.forEach(function (pn) {
      byId[pn.p.id] = pn;
      if (!pn.p.cells) pn.paint(st, pn.p.offset);
    });
    Object.keys(marks).forEach(function (key) {
      var dot = key.indexOf("."), pn = byId[key.slice(0, dot)];
      if (pn) pn.place(key.slice(dot + 1), marks[key]);
    });
    var said = prep.scene.frames[i].text;
    this.caption.textContent = "step " + (i + 1) + "/" + n + ":  " + said;
    this.count.textContent = (i + 1) + "/" + n;
    this.slider.setAttribute("aria-valuetext", "step " + (i + 1) + " of " + n + ": " + said);
    this.root.dataset.frame = String(i);
  };

  Player.prototype.goto = function (i) {
    var n = this.prep.scene.steps;
    this.frame = Math.max(0, Math.min(i, Math.max(n - 1, 0)));
    this.draw();
  };

  Player.prototype.toggle = function () {
    if (this.playing) { this.pause(); this.stopped(); } else this.start();
  };

  Player.prototype.start = function () {
    var n = this.prep.scene.steps, self = this;
    if (n < 2) return;
    if (this.frame >= n - 1) this.goto(0);
    this.playing = true;
    this.caption.setAttribute("aria-live", "off"); // no flood of speech
    this.setPlayIcon();
    var from = this.frame, t0 = performance.now(), interval = this.interval;
    var tick = function (now) {
      if (!self.playing) return;
      var target = from + Math.floor((now - t0) / interval);
      // a looping export plays once for a reader who asked for less motion
      if (self.prep.scene.loop && !lessMotion()) target = target % n;
      else if (target >= n - 1) {
        self.goto(n - 1);
        self.pause();
        self.stopped();
        return;
      }
      if (target !== self.frame) self.goto(target);
      self.timer = requestAnimationFrame(tick);
    };
    this.timer = requestAnimationFrame(tick);
  };

  Player.prototype.pause = function () {
    if (this.timer) cancelAnimationFrame(this.timer);
    this.timer = 0;
    if (!this.playing) return;
    this.playing = false;
    this.caption.setAttribute("aria-live", "polite");
    // said again, now that it is heard: the step the player stopped on
    this.caption.textContent = this.caption.textContent;
    this.setPlayIcon();
  };

  Player.prototype.setPlayIcon = function () {
    var label = this.playing ? "Pause" : "Play";
    this.play.textContent = "";
    this.play.appendChild(icon(this.playing ? "pause" : "play"));
    this.play.setAttribute("aria-label", label);
    this.play.setAttribute("title", label);
    this.play.setAttribute("aria-pressed", this.playing ? "true" : "false");
    this.root.dataset.playing = this.playing ? "1" : "0";
  };

  /* the player came to rest on a step: the host may want to know */
  Player.prototype.stopped = function () {
    if (this.options.onFrame) this.options.onFrame(this.frame);
  };

  Player.prototype.key = function (e) {
    var target = e.target, tag = (target && target.tagName) || "";
    if (tag === "INPUT" || tag === "SELECT") {
      // the control moves itself (the step slider's "input" event moves the
      // player); Space on the step slider plays. The host hears none of it.
      if (target === this.slider && e.key === " ") { this.toggle(); e.preventDefault(); }
      if (CONTROL_KEYS[e.key] && !e.ctrlKey && !e.metaKey && !e.altKey) e.stopPropagation();
      return;
    }
    if (tag === "BUTTON" && (e.key === " " || e.key === "Enter")) { e.stopPropagation(); return; }
    var n = this.prep.scene.steps, handled = true;
    if (e.key === " " || e.key === "k") this.toggle();
    else if (e.key === "ArrowRight" || e.key === "ArrowDown") { this.pause(); this.goto(this.frame + 1); this.stopped(); }
    else if (e.key === "ArrowLeft" || e.key === "ArrowUp") { this.pause(); this.goto(this.frame - 1); this.stopped(); }
    else if (e.key === "Home") { this.pause(); this.goto(0); this.stopped(); }
    else if (e.key === "End") { this.pause(); this.goto(n - 1); this.stopped(); }
    else handled = false;
    if (handled) { e.preventDefault(); e.stopPropagation(); }
  };

  Player.prototype.destroy = function () {
    this.pause();
    if (this.resizer) this.resizer.disconnect();
    this.root.textContent = "";
  };

  /* draw ``scene`` in ``root`` (a player there before is destroyed) */
  export function mount(root, scene, options) {
    if (root.convgradPlayer) root.convgradPlayer.destroy();
    var player = new Player(root, scene, options);
    root.convgradPlayer = player;
    return player;
  }

  // ---- the live widget: anywidget's module ----------------------------------

  /* The widget's traits are the player's state: ``scene`` (what is drawn),
   * ``params`` (the values of the parameter controls), ``frame`` (the step
   * on show) and ``error`` (why the last change of params was refused).
   * The browser sets ``params`` when a control changes and ``frame`` when
   * the player comes to rest; the kernel answers a change of params with a
   * new scene, or with ``error`` and params put back (the controls follow
   * params, so a refused value leaves its control). */
  export function render({ model, el }) {
    var root = document.createElement("div");
    el.appendChild(root);
    el.classList.add("convgrad-live");
    var quiet = false; // a frame the kernel set: not sent back
    var asking = false; // params the player set: not an answer
    var player = mount(root, model.get("scene"), {
      live: true,
      params: model.get("params"),
      onParams: function (values) {
        asking = true;
        try { model.set("params", values); } finally { asking = false; }
        model.save_changes();
      },
      onFrame: function (i) {
        if (quiet || model.get("frame") === i) return;
        model.set("frame", i);
        model.save_changes();
      },
    });
    var answered = function () {
      if (asking) return;
      player.setParams(model.get("params"));
      player.showError(model.get("error"));
    };
    var onScene = function () {
      player.setScene(model.get("scene"));
      answered();
    };
    var onFrame = function () {
      quiet = true;
      player.pause();
      player.goto(model.get("frame"));
      quiet = false;
    };
    model.on("change:scene", onScene);
    model.on("change:params", answered);
    model.on("change:error", answered);
    model.on("change:frame", onFrame);
    if (model.get("frame")) player.goto(model.get("frame"));
    player.showError(model.get("error"));
    return function () {
      model.off("change:scene", onScene);
      model.off("change:params", answered);
      model.off("change:error", answered);
      model.off("change:frame", onFrame);
      player.destroy();
    };
  }

  export default { render: render };

  // ---- embedded scenes: <convgrad-scene> ------------------------------------

  /* An export (a slide deck, a web page, to_jshtml) writes each view as a
   * <convgrad-scene> element holding its scene's JSON (a child script
   * element of type application/json, class cgs-data) and loads this module once
   * per page. Loading it defines the element: every <convgrad-scene> of the
   * page, there already or added later, is drawn when it comes near the
   * screen (a page of many views opens at once; a slide's view is drawn when
   * its slide shows). data-mounted is "0" while it waits, "1" once drawn. */
  export var ELEMENT = "convgrad-scene";

  function whenNear(node) {
    node.setAttribute("data-mounted", "0");
    var fallback = node.querySelector(".cgs-fallback");
    if (fallback) fallback.hidden = true; // JavaScript runs: it is drawn soon
    if (typeof IntersectionObserver === "undefined" || printing()) {
      mountEmbedded(node);
      return;
    }
    var seen = new IntersectionObserver(function (entries) {
      if (!entries.some(function (e) { return e.isIntersecting; })) return;
      seen.disconnect();
      mountEmbedded(node);
    }, { rootMargin: "300px 0px" });
    seen.observe(node);
  }

  /* a printed page (reveal's ?print-pdf, or the print dialog) draws all */
  function printing() {
    return /print-pdf/.test(location.search) ||
      (typeof matchMedia !== "undefined" && matchMedia("print").matches);
  }

  function mountEmbedded(node) {
    var data = node.querySelector("script.cgs-data");
    if (!data || node.getAttribute("data-mounted") === "1") return;
    node.setAttribute("data-mounted", "1");
    var stage = node.querySelector(".cgs-stage") || node;
    var fallback = node.querySelector(".cgs-fallback");
    if (fallback) fallback.remove();
    mount(stage, JSON.parse(data.textContent), {});
  }

  function defineElement() {
    if (typeof customElements === "undefined" || customElements.get(ELEMENT)) return;
    class SceneElement extends HTMLElement {
      connectedCallback() {
        if (!this.hasAttribute("data-mounted")) whenNear(this);
      }
      disconnectedCallback() { // taken out of the page (a host's virtual scroll)
        var stage = this.querySelector(".cgs-stage") || this;
        if (stage.convgradPlayer) stage.convgradPlayer.pause();
      }
    }
    customElements.define(ELEMENT, SceneElement);
    window.addEventListener("beforeprint", function () {
      var nodes = document.querySelectorAll(ELEMENT + '[data-mounted="0"]');
      Array.prototype.forEach.call(nodes, mountEmbedded);
    });
  }

  defineElement();
