"""The Rate tab: rating sessions, the comparison view, the ranking grid, reliability."""
