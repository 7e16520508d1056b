(function () {
  var box = document.getElementById("nav-search");
  var items = Array.prototype.slice.call(document.querySelectorAll(".nav-op"));
  var groups = Array.prototype.slice.call(document.querySelectorAll(".nav-group"));
  var none = document.getElementById("nav-none");
  function filter() {
    var words = box.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    items.forEach(function (li) {
      var text = li.getAttribute("data-search");
      var hit = words.every(function (w) { return text.indexOf(w) >= 0; });
      li.hidden = !hit;
      if (hit) shown++;
    });
    groups.forEach(function (g) { g.hidden = !g.querySelector(".nav-op:not([hidden])"); });
    none.hidden = shown > 0;
  }
  box.addEventListener("input", filter);
  box.addEventListener("keydown", function (e) {
    if (e.key === "Enter") {
      var first = document.querySelector(".nav-op:not([hidden]) a");
      if (first) { e.preventDefault(); location.hash = first.getAttribute("href"); }
    } else if (e.key === "Escape") { box.value = ""; filter(); }
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "/" && document.activeElement !== box) { e.preventDefault(); box.focus(); }
  });
})();
