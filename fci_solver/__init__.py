"""The Food Chain Island solver."""
