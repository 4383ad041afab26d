// Sorting and filtering of every pytest-mteval page, inlined into the page by its template.
// Sorting: click a header of a table.sortable; cells sort by their data-sort value (numbers
// numerically, missing values last). Filtering: every [data-filter] control names a row
// attribute (data-domain...); a select keeps rows whose attribute holds its value (empty:
// all), a checkbox keeps rows whose attribute is "1"; #shown counts what is left.
// The page's data (what it shows, for scripts reading the page) is the JSON of
// <script type="application/json" id="mteval-page">; this script does not need it.
(function () {
  "use strict";

  function key(cell) {
    var value = cell ? cell.getAttribute("data-sort") : null;
    if (value === null || value === "") {
      return null;
    }
    var n = Number(value);
    return isNaN(n) ? value.toLowerCase() : n;
  }

  function compare(x, y) {
    if (x === y) {
      return 0;
    }
    if (x === null) {
      return 1;
    }
    if (y === null) {
      return -1;
    }
    if (typeof x === typeof y) {
      return x < y ? -1 : 1;
    }
    return typeof x === "number" ? -1 : 1;
  }

  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, column) {
      th.addEventListener("click", function () {
        var up = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(heads, function (h) {
          h.removeAttribute("aria-sort");
        });
        th.setAttribute("aria-sort", up ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var order = compare(key(a.cells[column]), key(b.cells[column]));
          return up ? order : -order;
        });
        rows.forEach(function (row) {
          body.appendChild(row);
        });
      });
    });
  });

  var controls = document.querySelectorAll("[data-filter]");

  function apply() {
    var rows = document.querySelectorAll("tr[data-entry]");
    var shown = 0;
    rows.forEach(function (row) {
      var keep = true;
      controls.forEach(function (control) {
        var held = row.getAttribute("data-" + control.getAttribute("data-filter")) || "";
        if (control.type === "checkbox") {
          if (control.checked && held !== "1") {
            keep = false;
          }
        } else if (control.value !== "" && (" " + held + " ").indexOf(" " + control.value + " ") < 0) {
          keep = false;
        }
      });
      row.hidden = !keep;
      if (keep) {
        shown++;
      }
    });
    var out = document.getElementById("shown");
    if (out) {
      out.textContent = shown + " of " + rows.length;
    }
  }

  controls.forEach(function (control) {
    control.addEventListener("change", apply);
  });
  apply();
})();
