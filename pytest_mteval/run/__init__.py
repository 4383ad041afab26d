"""Running a method over a corpus: secret corpora and what a run may write."""
