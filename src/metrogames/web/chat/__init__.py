"""The table chat of online rooms."""
