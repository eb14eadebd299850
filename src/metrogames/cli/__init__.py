"""The command line: ``metrogames score|replay|play|simulate|bench``."""
