"""``mteval corpus``: import, lint, describe and rotate corpora for a new language (spec §11)."""
