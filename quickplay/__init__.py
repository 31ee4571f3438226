"""Quick play with strangers: a queue that fills public rooms, a multiplayer rating of the
games played so, the leaderboard, and reports of players."""
