"""Reports a person reads: leaderboard, the HTML report of one run, and their plots."""
