"""Metric families, one module each. They know nothing of pytest: each scores one entry on a
worker (``score_entry``) and the whole run on the controller (``aggregate``). Every run-level
metric is one definition (``definition.py``) in the name -> definition registry
(``catalog.py``), which the card, the intervals, the gate, ``mteval compare`` and the reports
read."""
