"""Metric families, one module each. They know nothing of pytest: each scores one entry on a
worker (``score_entry``) and the whole run on the controller (``aggregate``)."""
