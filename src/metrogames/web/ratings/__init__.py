"""Ratings of online play."""
