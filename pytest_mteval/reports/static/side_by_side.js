// The disagreement filter of the side-by-side page, inlined by its template. Each entry row
// carries data-spread-rank: 1 for the widest spread of sentence chrF++ across the runs, empty
// when fewer than two runs scored it. With the box ticked, only ranks 1..N stay shown.
(function () {
  "use strict";

  var box = document.getElementById("sxs-disagree");
  var top = document.getElementById("sxs-top");
  var out = document.getElementById("sxs-shown");
  var rows = document.querySelectorAll("tr.sxs-entry");

  function apply() {
    var limit = parseInt(top.value, 10);
    var shown = 0;
    rows.forEach(function (row) {
      var rank = parseInt(row.getAttribute("data-spread-rank") || "", 10);
      var keep = !box.checked || (!isNaN(rank) && !isNaN(limit) && rank <= limit);
      row.hidden = !keep;
      if (keep) {
        shown++;
      }
    });
    out.textContent = shown + " of " + rows.length;
  }

  box.addEventListener("change", apply);
  top.addEventListener("input", apply);
  apply();
})();
