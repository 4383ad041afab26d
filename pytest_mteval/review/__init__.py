"""Human validation (benchmark spec §7.3): sample a run, collect ratings, record them."""
