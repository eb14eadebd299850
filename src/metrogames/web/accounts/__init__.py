"""Accounts: passwords, sessions, names, sign-in backoff, guest players."""
