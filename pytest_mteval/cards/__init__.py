"""Run cards: the model, building, sealing and verifying, the gate, comparison, verification
tiers, submission bundles and publishing."""
