"""Composite, guards, bootstrap statistics and paired comparison; no I/O."""
