"""A workspace's arrays handed to compiled code as one small index of their addresses.

numba's dispatch unboxes every array argument on every call (65-150 ns each); a short search
took 12 of the workspace's arrays (``g``, ``parent``, ``jump_parent``, ``mark``, the heap's two
and the bucket queue's four, the counters, the block of short paths). One index of them instead:
a search on an 8x8 grid 6.0-6.1 -> 4.6-4.7 µs the whole call (2026-12-06, alternated runs).
:func:`index_of` writes each array's address and shape into one int64 array; compiled code
makes the same arrays again from it (:func:`arrays_of`: ``numba.carray`` over the address, no
copy, no reference count). The index is only as good as the arrays it was made from are
alive and unchanged, so :class:`~.workspace.Workspace` writes it again whenever it replaces one
of them, and keeps the arrays themselves: the index never owns memory.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import carray, njit, types
from numba.core import cgutils
from numba.extending import intrinsic
from numpy.typing import NDArray

#: The arrays of an index, in order: name, dtype, dimensions (as :func:`arrays_of` makes them).
FIELDS = (
    ("g", np.float64, 1),
    ("parent", np.uint8, 1),
    ("jump_parent", np.int64, 1),
    ("mark", np.uint16, 1),
    ("heap_key", np.float64, 1),
    ("heap_node", np.int32, 1),
    ("kh_key", np.float64, 1),
    ("q32", np.int32, 2),
    ("q64", np.int64, 2),
    ("entries", np.int32, 2),
    ("stats", np.int64, 1),
    ("path", np.int32, 2),
)
_PER = 3  # int64s an array: its address, then its shape (the second 0 for a 1-D array)
SIZE = _PER * len(FIELDS)


def index_of(arrays: tuple[NDArray[Any], ...], out: NDArray[np.int64]) -> None:
    """Write the addresses and shapes of ``arrays`` (one for each of :data:`FIELDS`, in order)
    into ``out`` (int64, :data:`SIZE`); see :func:`index_one`."""
    if len(arrays) != len(FIELDS):
        raise ValueError(f"an index holds {len(FIELDS)} arrays, got {len(arrays)}")
    for k, a in enumerate(arrays):
        index_one(k, a, out)


def index_one(k: int, a: NDArray[Any], out: NDArray[np.int64]) -> None:
    """Write the address and shape of ``a``, the ``k``-th of :data:`FIELDS` (of its dtype and
    dimensions, C-contiguous and writeable), into ``out`` (~1.5 µs: the address is numpy's slow part)."""
    name, dtype, ndim = FIELDS[k]
    # (a wrong array here would be read as another type by compiled code: refuse it outright)
    if a.dtype != dtype or a.ndim != ndim or not a.flags.c_contiguous or not a.flags.writeable:
        raise ValueError(f"{name} must be a writeable C-contiguous {np.dtype(dtype)} array of "
                         f"{ndim} dimension(s), got {a.dtype} {a.shape}")  # fmt: skip
    out[_PER * k] = a.ctypes.data
    out[_PER * k + 1] = a.shape[0]
    out[_PER * k + 2] = a.shape[1] if ndim == 2 else 0


@intrinsic
def _pointer(typingctx, index, k, dtype):
    """The address ``index[3 k]`` as a pointer to ``dtype`` (a numpy scalar type)."""
    pointer = types.CPointer(dtype.dtype)
    sig = pointer(index, k, dtype)

    def codegen(context, builder, signature, args):
        values = context.make_array(signature.args[0])(context, builder, args[0])
        at = builder.mul(args[1], cgutils.intp_t(_PER))
        address = builder.load(builder.gep(values.data, [at]))
        return builder.inttoptr(address, context.get_value_type(pointer))

    return sig, codegen


@njit(cache=True, inline="always")
def _flat(index, k, dtype):
    """The ``k``-th array of ``index``, 1-D."""
    return carray(_pointer(index, k, dtype), index[_PER * k + 1])


@njit(cache=True, inline="always")
def _table(index, k, dtype):
    """The ``k``-th array of ``index``, 2-D."""
    return carray(_pointer(index, k, dtype), (index[_PER * k + 1], index[_PER * k + 2]))


@njit(cache=True)
def arrays_of(index):
    """The arrays :func:`index_of` wrote into ``index``, as the kernels take them (in the order of
    :data:`FIELDS`): ``(g, parent, jump_parent, mark, (heap_key, heap_node), (kh_key, q32, q64,
    entries), stats, path)``."""
    heap = (_flat(index, 4, np.float64), _flat(index, 5, np.int32))
    buckets = (_flat(index, 6, np.float64), _table(index, 7, np.int32), _table(index, 8, np.int64),
               _table(index, 9, np.int32))  # fmt: skip
    g, parent, jump_parent = _flat(index, 0, np.float64), _flat(index, 1, np.uint8), _flat(index, 2, np.int64)
    mark, stats, path = _flat(index, 3, np.uint16), _flat(index, 10, np.int64), _table(index, 11, np.int32)
    return g, parent, jump_parent, mark, heap, buckets, stats, path
