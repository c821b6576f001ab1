"""The fast engine: numba kernels over packed state keys (see kernels.py for the layout)."""
