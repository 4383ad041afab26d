"""Run cards: sealing, signing and verifying."""
