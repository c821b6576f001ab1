"""Layout files, shipped as package data (see pyproject.toml)."""
