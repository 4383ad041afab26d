"""Sweeps (spec §6): a declared parameter space run as a matrix of ordinary runs."""
