"""Run history: the index of run cards under .mteval/runs, and the commands that read it."""
