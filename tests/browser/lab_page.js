/*
 * The page side of the browser test (tests/browser/browser_harness.py).
 *
 * browser_harness.py installs this file in every page with Playwright's
 * `page.add_init_script`, and calls its functions as
 * `window.convgradTest.NAME(arg)` from `page.evaluate` and
 * `page.wait_for_function`. A function that takes several values takes one
 * array (Playwright passes one argument). Check the syntax with
 * `node --check tests/browser/lab_page.js`.
 */
window.convgradTest = (() => {
  'use strict';

  const VIEW = '.cgs';  // a view's scene player (convgrad/viz/scene.js)

  // Every frame the page sends on a websocket (the kernel's channels), with
  // the page's clock: a comm message sent while a view plays is work the
  // kernel was asked for during playback.
  const sends = [];
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    let text = '';
    try {
      text = typeof data === 'string' ? data : new TextDecoder('latin1').decode(data);
    } catch (e) { text = ''; }
    sends.push({ t: performance.now(), comm: text.includes('comm_msg'),
      head: text.slice(0, 240) });
    return send.call(this, data);
  };
  function commSends([t0, t1]) {
    return sends.filter((x) => x.comm && x.t > t0 && x.t <= t1).map((x) => x.head);
  }
  // Elements drawn edge to edge (text is measured by its glyphs instead).
  const DRAWN = 'canvas, img, svg, button, select, input, textarea, .noUi-target';

  // A notebook panel by path (not `currentWidget`, which follows focus).
  function findPanel(path) {
    const app = window.jupyterapp;
    if (!app) return null;
    for (const w of app.shell.widgets('main')) {
      if (w.context && w.context.path === path && w.content && w.sessionContext) {
        return w;
      }
    }
    return null;
  }

  function kernelOf(panel) {
    const session = panel.sessionContext.session;
    return session ? session.kernel : null;
  }

  // true once the kernel is connected and idle; 'dead' if it died.
  function kernelReady(path) {
    const panel = findPanel(path);
    if (!panel || !panel.context.isReady) return false;
    const kernel = kernelOf(panel);
    if (!kernel) return false;
    if (kernel.status === 'dead') return 'dead';
    return kernel.connectionStatus === 'connected' && kernel.status === 'idle';
  }

  async function runAll(path) {
    const panel = findPanel(path);
    window.jupyterapp.shell.activateById(panel.id);
    await window.jupyterapp.commands.execute('notebook:run-all-cells');
    return true;
  }

  // Done: the kernel is idle and no code cell is running or queued.
  function runDone(path) {
    const panel = findPanel(path);
    if (!panel) return false;
    const kernel = kernelOf(panel);
    if (!kernel) return 'no kernel';
    if (kernel.status === 'dead') return 'dead';
    if (kernel.status !== 'idle') return false;
    for (const cell of panel.content.widgets) {
      if (cell.model.type !== 'code') continue;
      if (cell.model.executionState === 'running') return false;
      const prompt = cell.node.querySelector('.jp-InputPrompt');
      if (prompt && prompt.textContent.includes('*')) return false;
    }
    return true;
  }

  // Per code cell: error outputs (model type "error", with the text the DOM
  // shows at the same index), tracebacks shown inside widgets, widget
  // placeholders, and the parts of a live view.
  function cellReport([path, tracebackText, widgetErrorText]) {
    const panel = findPanel(path);
    const rows = [];
    panel.content.widgets.forEach((cell, index) => {
      if (cell.model.type !== 'code') return;
      const outputs = cell.model.outputs ? cell.model.outputs.toJSON() : [];
      const children = cell.outputArea ? cell.outputArea.widgets : [];
      const domErrors = [];
      const modelErrors = [];
      outputs.forEach((o, i) => {
        if (o.output_type !== 'error') return;
        modelErrors.push(o.ename + ': ' + o.evalue);
        const child = children[i];
        const node = child && child.node.querySelector('.jp-OutputArea-output');
        domErrors.push(node
          ? (node.innerText || node.textContent || '').slice(-1500)
          : '(error output not rendered) ' + o.ename + ': ' + o.evalue);
      });
      cell.node.querySelectorAll('.jupyter-widgets .jp-OutputArea-output')
        .forEach((n) => {
          const text = n.innerText || n.textContent || '';
          if (text.includes(tracebackText)) domErrors.push(text.slice(-1500));
        });
      const widgetErrors = Array.from(cell.node.querySelectorAll('.jp-OutputArea-output'))
        .filter((el) => (el.textContent || '').includes(widgetErrorText))
        .map((el) => (el.textContent || '').slice(0, 300));
      rows.push({
        index,
        count: cell.model.executionCount,
        tags: cell.model.getMetadata('tags') || [],
        source: cell.model.sharedModel.getSource().slice(0, 160),
        domErrors,
        modelErrors,
        widgetErrors,
        views: cell.node.querySelectorAll(VIEW).length,
        drawn: cell.node.querySelectorAll(VIEW + ' svg.cgs-grid').length,
      });
    });
    return rows;
  }

  // Run code on the panel's kernel (no cell, no history); stdout and errors.
  async function kernelExec([path, code]) {
    const kernel = kernelOf(findPanel(path));
    const future = kernel.requestExecute(
      { code, silent: false, store_history: false, allow_stdin: false });
    let out = '';
    let err = null;
    future.onIOPub = (msg) => {
      const t = msg.header.msg_type;
      if (t === 'stream') out += msg.content.text;
      else if (t === 'error') err = msg.content.ename + ': ' + msg.content.evalue;
    };
    const reply = await future.done;
    return { out, err, status: reply.content.status };
  }

  // Close the tab without saving (the file on disk must stay as stored).
  function close(path) {
    const panel = findPanel(path);
    if (!panel) return false;
    panel.context.model.dirty = false;
    panel.dispose();
    return true;
  }

  // The widget model id displayed by one output, or null.
  function modelId([path, cellIndex, outputIndex]) {
    const panel = findPanel(path);
    const outputs = panel.content.widgets[cellIndex].model.outputs.toJSON();
    const out = outputs[outputIndex];
    const data = out && out.data && out.data['application/vnd.jupyter.widget-view+json'];
    return data ? data.model_id : null;
  }

  // The top-level output nodes of a code cell (not those nested in widgets).
  function cellOutputs(cell) {
    return Array.from(cell.node.querySelectorAll('.jp-OutputArea-output'))
      .filter((o) => !o.parentElement.closest('.jp-OutputArea-output'));
  }

  // [cell, output] of each output holding a view's player
  function viewOutputs(path) {
    const panel = findPanel(path);
    const found = [];
    panel.content.widgets.forEach((cell, ci) => {
      if (cell.model.type !== 'code') return;
      cellOutputs(cell).forEach((out, oi) => {
        if (out.querySelector(VIEW + ' svg.cgs-grid')) found.push([ci, oi]);
      });
    });
    return found;
  }

  function anyViewDrawn(panelSelector) {
    return document.querySelectorAll(panelSelector + ' ' + VIEW + ' svg.cgs-grid')
      .length > 0;
  }

  // ---- layout and fit ------------------------------------------------------

  const round = (v) => Math.round(v * 10) / 10;

  function describe(el) {
    const cls = (typeof el.className === 'string' ? el.className : '')
      .split(/\s+/).filter((c) => c && !c.startsWith('lm-')).slice(0, 3).join('.');
    return el.tagName.toLowerCase() + (cls ? '.' + cls : '');
  }

  // The notebook's scrolling viewport: how much of the notebook is visible.
  function scroller(panel) {
    return panel.node.querySelector('.jp-WindowedPanel-outer') || panel.content.node;
  }

  // The window, the left sidebar and the notebook viewport, in CSS px.
  function layout(path) {
    const shell = window.jupyterapp.shell;
    const panel = findPanel(path);
    const left = document.querySelector('#jp-left-stack');
    const view = panel ? scroller(panel) : null;
    return {
      window: [window.innerWidth, window.innerHeight],
      leftCollapsed: shell.leftCollapsed,
      leftWidth: left ? round(left.getBoundingClientRect().width) : 0,
      fileBrowserShown: !!document.querySelector('#filebrowser:not(.lm-mod-hidden)')
        && !shell.leftCollapsed,
      notebookWidth: view ? view.clientWidth : null,
      visibleHeight: view ? view.clientHeight : null,
      pageScrollWidth: view ? view.scrollWidth : null,
    };
  }

  // The boxes of what is drawn inside `root`: pictures, controls, and the
  // glyphs of every text (the ranges of a text node's words, not its
  // element, which may stretch far wider than its words).
  function drawnBoxes(root) {
    const boxes = [];
    for (const el of root.querySelectorAll(DRAWN)) {
      const b = el.getBoundingClientRect();
      if (b.width && b.height) boxes.push({ el, b });
    }
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      if (!t.textContent.trim() || !t.parentElement) continue;
      // each run of visible characters: a space draws nothing, and spaces
      // that hang past the edge where a line wraps (pre-wrap) overflow nothing
      for (const m of t.textContent.matchAll(/\S+/g)) {
        range.setStart(t, m.index);
        range.setEnd(t, m.index + m[0].length);
        for (const b of range.getClientRects()) {
          if (b.width && b.height) boxes.push({ el: t.parentElement, b });
        }
      }
    }
    return boxes;
  }

  // How each top-level output fits its output area: the area's content width;
  // how far anything drawn reaches past its right edge (`excess`); every
  // element that scrolls sideways (the learner sees a scrollbar) or hides
  // drawn content past its edge (`clipped`). For a player or a figure widget:
  // the picture (canvas or img) and the widget box, with the width its drawn
  // content takes.
  function measureOutputs(path) {
    const panel = findPanel(path);
    const rows = [];
    panel.content.widgets.forEach((cell, ci) => {
      if (cell.model.type !== 'code') return;
      cellOutputs(cell).forEach((out, oi) => {
        const cs = getComputedStyle(out);
        const r = out.getBoundingClientRect();
        const left = r.left + out.clientLeft + parseFloat(cs.paddingLeft);
        const right = r.left + out.clientLeft + out.clientWidth
          - parseFloat(cs.paddingRight);
        const drawn = drawnBoxes(out);
        let reach = left;
        let widest = null;
        for (const { el, b } of drawn) {
          if (b.right > reach) {
            reach = b.right;
            widest = describe(el);
          }
        }
        const clipped = [];
        for (const el of [out, ...out.querySelectorAll('*')]) {
          if (el.scrollWidth <= el.clientWidth + 1) continue;
          if (['SELECT', 'INPUT', 'TEXTAREA', 'OPTION'].includes(el.tagName)) continue;
          const ox = getComputedStyle(el).overflowX;
          if (ox === 'visible') continue;
          const edge = el.getBoundingClientRect().left + el.clientLeft + el.clientWidth;
          const inside = drawn.filter(({ el: d }) => el.contains(d));
          const hidden = Math.max(0, ...inside.map(({ b }) => b.right - edge));
          const scrolls = ox === 'auto' || ox === 'scroll';
          if (scrolls || hidden > 0.5) {
            clipped.push({ what: el === out ? 'the output area' : describe(el),
              overflowX: ox, scrollWidth: el.scrollWidth, clientWidth: el.clientWidth,
              hidden: round(hidden) });
          }
        }
        const player = out.querySelector(VIEW);
        const img = out.querySelector('img');
        let kind = 'other';
        if (player) kind = 'view';
        else if (img) kind = 'figure';
        else if (out.querySelector('.jupyter-widgets')) kind = 'widget';
        else if (out.querySelector('pre')) kind = 'text';
        const row = { cell: ci, output: oi, kind, area: round(right - left),
          excess: round(reach - right), widest, clipped };
        const picture = player || img;
        if (picture) {
          const p = picture.getBoundingClientRect();
          row.picture = { what: describe(picture), width: round(p.width),
            height: round(p.height), excess: round(p.right - right) };
        }
        const root = out.querySelector(VIEW + ', .widget-vbox');
        if (root) {
          const b = root.getBoundingClientRect();
          const inside = drawn.filter(({ el }) => root.contains(el));
          const contentRight = Math.max(b.left, ...inside.map((d) => d.b.right));
          row.box = { width: round(b.width), height: round(b.height),
            content: round(contentRight - b.left) };
          // a view: its controls, caption and first row of grids, which
          // must be in sight together while it plays
          const groups = Array.from(root.querySelectorAll('.cgs-panels > *'))
            .map((g) => g.getBoundingClientRect());
          if (groups.length) {
            const top = Math.min(...groups.map((g) => g.top));
            const first = groups.filter((g) => g.top < top + 4);
            row.box.firstRow = round(Math.max(...first.map((g) => g.bottom)) - b.top);
          }
        }
        rows.push(row);
      });
    });
    return rows;
  }

  // Scroll the notebook so that one output starts at the top of the viewport.
  function scrollToOutput([path, ci, oi]) {
    const panel = findPanel(path);
    const out = cellOutputs(panel.content.widgets[ci])[oi];
    const view = scroller(panel);
    view.scrollTop += out.getBoundingClientRect().top
      - view.getBoundingClientRect().top - 8;
    return view.scrollTop;
  }

  // The player of one output, as the learner sees it.
  function player(out) {
    const root = out.querySelector(VIEW);
    const buttons = Array.from(root ? root.querySelectorAll('button') : [])
      .filter((b) => b.getClientRects().length > 0);
    const caption = root && root.querySelector('.cgs-caption');
    const slider = root && root.querySelector('.cgs-slider');
    const fonts = Array.from(root ? root.querySelectorAll('.cgs-nums[font-size], .cgs-labels')
      : []).map((g) => parseFloat(g.getAttribute('font-size')));
    return {
      toggle: root ? root.querySelector('.cgs-play').getAttribute('aria-label') : null,
      playing: root ? root.dataset.playing === '1' : false,
      t: performance.now(),
      step: slider ? parseInt(slider.value, 10) : null,
      steps: slider ? parseInt(slider.max, 10) : null,
      caption: caption ? caption.textContent : null,
      minFont: fonts.length ? Math.min(...fonts) : null,
      untitled: buttons.filter((b) => !(b.title || b.getAttribute('aria-label') || '')
        .trim()).map((b) => describe(b)),
      buttons: buttons.map((b) => b.getAttribute('aria-label') || b.title),
    };
  }

  return {
    findPanel, kernelReady, runAll, runDone, cellReport, kernelExec, close,
    modelId, viewOutputs, anyViewDrawn, layout, measureOutputs, scrollToOutput,
    player, commSends,
  };
})();
