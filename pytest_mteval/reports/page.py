"""The shell every HTML page shares: one self-contained file (styles, script and charts
inline; nothing fetched at view time), escaping, and the script that sorts and filters tables.

Sorting: click a header of a ``table.sortable``; cells sort by their ``data-sort`` value
(numbers numerically, missing values last). Filtering: every ``[data-filter]`` control names
a row attribute (``data-domain``...), a select keeps rows whose attribute equals its value
(empty: all), a checkbox keeps rows whose attribute is "1"; ``#shown`` counts what is left.
"""

from __future__ import annotations

import html
from typing import Any, Final

_STYLE: Final = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:1.5rem;
color:#1d1d1f;line-height:1.35;max-width:1400px}
h1{font-size:1.5rem;margin:0 0 .3rem}h2{font-size:1.2rem;margin:1.6rem 0 .4rem}
.note{background:#fff8e1;border-left:4px solid #f0b400;padding:.5rem .8rem;margin:.8rem 0}
.refused{background:#fdecea;border-left:4px solid #d93025;padding:.4rem .8rem}
table{border-collapse:collapse;font-size:.85rem;margin:.4rem 0}
th,td{border-bottom:1px solid #e2e2e2;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f5f5f7;position:sticky;top:0}
table.sortable th{cursor:pointer;user-select:none}
th[aria-sort=ascending]::after{content:" ▲"}th[aria-sort=descending]::after{content:" ▼"}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.badge{display:inline-block;border-radius:3px;padding:0 .35rem;font-size:.75rem;
font-weight:600;margin-left:.3rem;border:1px solid #999}
.dep-S{background:#e6f4ea;border-color:#34a853}.dep-O{background:#e8f0fe;border-color:#4285f4}
.dep-A1{background:#fef7e0;border-color:#f9ab00}.dep-A2{background:#fce8e6;border-color:#ea4335}
.dep-X{background:#3c4043;color:#fff;border-color:#3c4043}
.charts{display:flex;flex-wrap:wrap;gap:1rem;align-items:flex-start}
.charts svg{max-width:100%;height:auto}
.text{max-width:28rem;min-width:10rem;white-space:pre-wrap}.reason{min-width:16rem}
del{background:#fdd;text-decoration:line-through}ins{background:#dfd;text-decoration:none}
.filters{display:flex;flex-wrap:wrap;gap:1rem;margin:.5rem 0;align-items:center}
.muted{color:#666}
"""

_SCRIPT: Final = """
(function(){
function key(cell){var v=cell?cell.getAttribute('data-sort'):null;
 if(v===null||v===''){return null}var n=Number(v);return isNaN(n)?v.toLowerCase():n}
document.querySelectorAll('table.sortable').forEach(function(table){
 var heads=table.tHead.rows[0].cells;
 Array.prototype.forEach.call(heads,function(th,col){th.addEventListener('click',function(){
  var up=th.getAttribute('aria-sort')!=='ascending';
  Array.prototype.forEach.call(heads,function(h){h.removeAttribute('aria-sort')});
  th.setAttribute('aria-sort',up?'ascending':'descending');
  var body=table.tBodies[0];var rows=Array.prototype.slice.call(body.rows);
  rows.sort(function(a,b){var x=key(a.cells[col]),y=key(b.cells[col]);
   if(x===y){return 0}if(x===null){return 1}if(y===null){return -1}
   var c=(typeof x===typeof y)?(x<y?-1:1):(typeof x==='number'?-1:1);return up?c:-c});
  rows.forEach(function(r){body.appendChild(r)});});});});
var controls=document.querySelectorAll('[data-filter]');
function apply(){var rows=document.querySelectorAll('tr[data-entry]');var shown=0;
 rows.forEach(function(row){var keep=true;controls.forEach(function(c){
  var attr=row.getAttribute('data-'+c.getAttribute('data-filter'))||'';
  if(c.type==='checkbox'){if(c.checked&&attr!=='1'){keep=false}}
  else if(c.value!==''&&(' '+attr+' ').indexOf(' '+c.value+' ')<0){keep=false}});
  row.hidden=!keep;if(keep){shown++}});
 var out=document.getElementById('shown');if(out){out.textContent=shown+' of '+rows.length}}
controls.forEach(function(c){c.addEventListener('change',apply)});apply();
})();
"""


def is_page_path(path: str) -> bool:
    """A page is named ``*.html`` or ``*.htm``; any other path is a folder to write into."""
    return path.lower().endswith((".html", ".htm"))


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def page(title: str, body: str) -> str:
    """A whole HTML document around ``body`` (already escaped HTML)."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<link rel="icon" href="data:,">'
        f"<title>{esc(title)}</title><style>{_STYLE}</style></head>\n<body>\n{body}\n"
        f"<script>{_SCRIPT}</script>\n</body></html>\n"
    )


def number(value: Any, digits: int, suffix: str = "") -> str:
    """A number for display, "–" when not measured."""
    if value is None or isinstance(value, bool) or not isinstance(value, int | float):
        return "–"
    return f"{value:.{digits}f}{suffix}"


def sort_value(value: Any) -> str:
    if value is None or isinstance(value, bool) or not isinstance(value, int | float):
        return ""
    return repr(float(value))


def num_cell(value: Any, digits: int, suffix: str = "") -> str:
    return f'<td class="num" data-sort="{sort_value(value)}">{number(value, digits, suffix)}</td>'


def text_cell(text: Any, sort: Any = None, css: str = "") -> str:
    klass = f' class="{css}"' if css else ""
    key = esc(text if sort is None else sort)
    return f'<td{klass} data-sort="{key}">{esc(text)}</td>'


def select(attribute: str, label: str, values: list[str]) -> str:
    """A filter control keeping the rows whose ``data-<attribute>`` holds the chosen value."""
    options = "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in values)
    return (
        f'<label>{esc(label)} <select data-filter="{esc(attribute)}" id="filter-{esc(attribute)}">'
        f'<option value="">all</option>{options}</select></label>'
    )


def checkbox(attribute: str, label: str) -> str:
    return (
        f'<label><input type="checkbox" data-filter="{esc(attribute)}" '
        f'id="filter-{esc(attribute)}"> {esc(label)}</label>'
    )
