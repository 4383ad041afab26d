"""What people read: the terminal summary and other renderings of a run."""
