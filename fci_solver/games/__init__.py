"""Thin modules for three other food-themed card games."""
