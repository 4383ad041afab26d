"""What people read: the terminal summary, the HTML report of one run, the leaderboard, and
their plots."""
