"""The fast engine: numba kernels over packed state keys (:mod:`.kernels`, the key's layout in
:mod:`.kernels.keys`, converted to and from positions by :mod:`.codec`); :mod:`.search` drives
the searches, :mod:`.probe` the beam, :mod:`.line` turns a solved path back into turns,
:mod:`.perft` counts positions."""
