"""Data shipped with the package: the card table."""
