"""pytest hooks of pytest-mteval (being written)."""
