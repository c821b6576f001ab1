"""A map from state keys to small values that grows as it fills (the kernels: :mod:`.kernels.keymap`)."""

from __future__ import annotations

import numpy as np

from . import kernels as K


def _columns(rows: np.ndarray):
    return (np.ascontiguousarray(rows[:, 0]), np.ascontiguousarray(rows[:, 1]), rows[:, 2].astype(np.int64))


class KeyMap:
    """Keys (rows of uint64 ``[k0, k1, meta]``) to int8 values, kept under half full."""

    def __init__(self, bits: int = 16):
        self._arrays(1 << bits)
        self.count = np.zeros(1, np.int64)

    def _arrays(self, size: int) -> None:
        self.k0 = np.zeros(size, np.uint64)
        self.k1 = np.zeros(size, np.uint64)
        self.tag = np.zeros(size, np.uint8)
        self.val = np.zeros(size, np.int8)

    def __len__(self) -> int:
        return int(self.count[0])

    def get(self, rows: np.ndarray) -> np.ndarray:
        """Each key's value, -1 where the key is not in the map."""
        out = np.empty(rows.shape[0], np.int8)
        K.map_get(self.k0, self.k1, self.tag, self.val, *_columns(rows), out)
        return out

    def put(self, rows: np.ndarray, values: np.ndarray) -> None:
        k0, k1, meta = _columns(rows)
        values = np.ascontiguousarray(values, np.int8)
        i = 0
        while True:
            i = K.map_put(self.k0, self.k1, self.tag, self.val, k0, k1, meta, values, i, self.count)
            if i == k0.shape[0]:
                return
            self._grow()

    def _grow(self) -> None:
        # 4x, not 2x: the perfect-play graph's map of next positions grows to millions of keys,
        # and each growth rehashes every key and faults in new pages (2x: 1.7 s of its main
        # thread for 4.5 million keys)
        old = (self.k0, self.k1, self.tag, self.val)
        self._arrays(4 * old[0].shape[0])
        K.map_rehash(*old, self.k0, self.k1, self.tag, self.val)
