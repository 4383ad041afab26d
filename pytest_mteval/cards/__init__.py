"""Run cards beyond one run: verification tiers, submission bundles and publishing."""
