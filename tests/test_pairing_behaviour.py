"""Pairing and comparable runs (scoring/pairing.py, scoring/comparable.py) under mutation testing.

Empty on purpose: both modules are being rewritten (a metric becomes one object), and their
mutation pass waits for that. The file is listed in [tool.mutmut] already, because changing the
list later resets every recorded mutmut result.
"""
