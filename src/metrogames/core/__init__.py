"""Game-independent pieces: the game protocol, errors and the seeded generator."""
