"""The fast engine: numba kernels over packed state keys (:mod:`.kernels`, the key's layout in
:mod:`.kernels.keys`); :mod:`.search` drives the searches, :mod:`.probe` the beam, :mod:`.perft`
counts positions."""
