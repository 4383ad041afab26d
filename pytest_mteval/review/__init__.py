"""Human validation (benchmark spec §7.3): sample a run's outputs, collect bilingual reviewers' ratings, record them on a card."""
