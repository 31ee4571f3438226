"""The daily board: one board a day for everyone, a solo timed round, a leaderboard by
nickname; and solo practice rooms that start their round at once (docs/features.md, "Daily
board and solo practice"; docs/api.md, "Daily board")."""
