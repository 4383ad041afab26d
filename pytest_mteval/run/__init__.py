"""Running a method over a corpus: translation, batches, cache, records, state."""
