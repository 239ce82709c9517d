// convgrad course website: load MathJax 3 (_static/mathjax/tex-chtml.js) once
// the page has loaded. Its megabyte of script then never delays the page's
// text, views and navigation; the formulas are typeset a moment later.
(function () {
  var src = new URL("mathjax/tex-chtml.js", document.currentScript.src).href;
  function load() {
    var script = document.createElement("script");
    script.src = src;
    script.async = true;
    document.head.appendChild(script);
  }
  if (document.readyState === "complete") {
    load();
  } else {
    window.addEventListener("load", load, { once: true });
  }
})();
