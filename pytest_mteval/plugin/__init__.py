"""The pytest layer, the only one that imports pytest: hooks, options, collection."""
