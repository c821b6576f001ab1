"""The fast engine: numba kernels over packed state keys (:mod:`.kernels`, the key's layout in
:mod:`.kernels.keys`, converted to and from positions by :mod:`.codec`).  :mod:`.engine` binds the
kernels to one board and card table; :mod:`.search` drives the exact searches over a table,
:mod:`.probe` the beam beside them, :mod:`.fresh` many searches from an empty table (the effort
line's options); :mod:`.line` turns a solved path back into turns; :mod:`.perft` counts
positions, :mod:`.dag` walks the state DAG, :mod:`.turns` and :mod:`.keymap` serve the
perfect-play graph, :mod:`.memory` makes large zeroed arrays."""
