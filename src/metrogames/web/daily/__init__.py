"""The daily challenge: its rules, attempts, leaderboards and published deals."""
