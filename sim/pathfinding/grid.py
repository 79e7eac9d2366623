"""How a cost grid is stored for the kernels: a byte (or two) per cell and a table of multipliers.

A map has few distinct multipliers (one per terrain), so each cell holds a small code and
``lut[code]`` is its multiplier: 1 byte per cell instead of 8 for up to 255 distinct
values (2 bytes up to 65535, 4 beyond). The grid is padded with a border of code 0
(blocked, ``lut[0] == 0``) and flattened. Per diagonal rule, a ``moves`` mask (one byte
per cell: the legal directions) is built on first use and kept up to date. The smallest
and largest multipliers (the heuristic's scale, JPS's uniformity test) are kept from a
count per code, so an update costs time in proportion to the patch, not the grid.
"""

from __future__ import annotations

import time
from numbers import Integral

import numpy as np

from sim.pathfinding.checks import _short, as_array
from sim.pathfinding.compiled import GridArgs
from sim.pathfinding.jps import EMPTY_BLOCKS, PLANES, build_blocks
from sim.pathfinding.jpsplus import build_table, repair_table
from sim.pathfinding.jpsw import repair_weighted_blocks, weighted_blocks
from sim.pathfinding.rules import build_moves

#: The largest multiplier accepted for a passable cell. Sums of larger ones could overflow to
#: inf and lose optimality; 0, negatives, NaN and inf are the ways to say "impassable".
MAX_COST = 1e12
#: The most cells a grid may have (8192 × 8192, or any other shape of as many cells): a search's
#: buffers take up to ~30 bytes a cell (2 GB here), and the kernels' flat indices stay far from
#: the 32-bit limit of the paths they write.
MAX_CELLS = 1 << 26


def check_shape(name: str, shape: tuple[int, ...]) -> None:
    """Refuse a grid of more than :data:`MAX_CELLS` cells, before anything of its size is made."""
    h, w = int(shape[0]), int(shape[1])
    if h * w > MAX_CELLS:
        raise ValueError(f"{name} has {h} × {w} = {h * w:,} cells; a grid may have at most {MAX_CELLS:,} "
                         f"(8192 × 8192)")  # fmt: skip


def check_array(name: str, a: object) -> np.ndarray:
    """A 2-D, non-empty array of a real numeric dtype (exact errors otherwise)."""
    if isinstance(a, str | bytes) or (not hasattr(a, "__array__") and not isinstance(a, list | tuple)):
        raise TypeError(f"{name} must be a numpy array, not {type(a).__name__}")
    if not isinstance(a, np.ndarray):
        if name == "costs":
            raise TypeError(f"costs must be a numpy array, not {type(a).__name__}")
        a = as_array(name, a, "a 2-D numpy array of numbers")
    check_2d(name, a)
    if a.shape[0] == 0 or a.shape[1] == 0:
        raise ValueError(f"{name} must not be empty, got shape {a.shape}")
    check_shape(name, a.shape)
    return a


def check_2d(name: str, a: np.ndarray, bools: bool = False) -> None:
    """``a`` is 2-D, of a real numeric dtype (or bool, with ``bools``): exact errors otherwise."""
    if a.dtype.kind not in ("biuf" if bools else "iuf"):
        raise TypeError(f"{name} must have a real numeric dtype (int or float), got {a.dtype}")
    if a.ndim != 2:
        raise ValueError(f"{name} must be 2-D (indexed [y, x]), got {a.ndim}-D with shape {a.shape}")


def _blocked_to_zero(values: np.ndarray, name: str) -> np.ndarray:
    """float64 multipliers with every impassable value made 0; too large ones refused."""
    out = values.astype(np.float64, copy=True)
    bad = ~(np.isfinite(out) & (out > 0))
    out[bad] = 0.0
    huge = out > MAX_COST
    if huge.any():
        y, x = (int(v) for v in np.argwhere(huge)[0])
        raise ValueError(
            f"{name} must be at most {MAX_COST:g} where passable (0, negative, NaN or inf mark impassable "
            f"cells), got {out[y, x]:g} at {(x, y)}"
        )
    return out


def _check_codes(codes: object) -> np.ndarray:
    """A 2-D numpy array of integer (or bool) codes, ``[y, x]`` (exact errors otherwise)."""
    c = as_array("codes", codes, "a 2-D numpy integer array")
    if c.dtype.kind not in "biu":
        raise TypeError(f"codes must be a 2-D numpy integer array, got dtype {c.dtype}")
    if c.ndim != 2:
        raise ValueError(f"codes must be 2-D (indexed [y, x]), got {c.ndim}-D with shape {c.shape}")
    if c.shape[0] == 0 or c.shape[1] == 0:
        raise ValueError(f"codes must not be empty, got shape {c.shape}")
    check_shape("codes", c.shape)
    return c


def _code_dtype(n: int) -> type:
    return np.uint8 if n <= 256 else np.uint16 if n <= 65536 else np.uint32


class CodedGrid:
    """A padded, coded cost grid. ``width``/``height`` are the caller's (unpadded) sizes.

    ``CodedGrid(costs)`` takes a float (or int) multiplier grid: each distinct passable
    value gets a code. :meth:`from_codes` takes codes and their table directly.
    """

    def __init__(self, costs: object) -> None:
        costs = check_array("costs", costs)
        values = _blocked_to_zero(costs, "costs")
        distinct, codes = np.unique(values, return_inverse=True)
        if distinct[0] != 0.0:  # no blocked cell: code 0 stays reserved for the border
            distinct = np.concatenate(([0.0], distinct))
            codes = codes + 1
        self._setup(codes.reshape(costs.shape), distinct)

    @classmethod
    def from_codes(cls, codes: np.ndarray, lut: np.ndarray):
        """A grid whose cell ``(x, y)`` costs ``lut[codes[y, x]]`` (0, or any value that is not a
        finite number > 0, is blocked; so is a code outside ``0 .. len(lut) - 1``)."""
        codes = _check_codes(codes)
        given, lut = lut, as_array("lut", lut, "a non-empty 1-D numpy array of multipliers")
        if lut.dtype.kind not in "biuf" or lut.ndim != 1 or lut.size == 0:
            raise TypeError(f"lut must be a non-empty 1-D numpy array of multipliers, got {_short(given)}")
        lut = lut.astype(np.float64).reshape(1, -1)
        table = np.concatenate(([0.0], _blocked_to_zero(lut, "lut")[0]))  # code c is stored as c + 1
        grid = cls.__new__(cls)
        grid._shift = 1
        grid._setup(grid._stored(codes, table.size), table)
        return grid

    _shift = 0  # stored code = given code + _shift (from_codes keeps 0 for the border)

    def _stored(self, codes: np.ndarray, n: int) -> np.ndarray:
        c = np.asarray(codes)
        if not self._shift:
            return c
        if c.dtype == np.uint8:  # terrain ids: one table lookup, no wider temporary (maps can be 4M cells)
            table: np.ndarray = np.zeros(256, dtype=_code_dtype(n))
            table[: min(256, n - 1)] = np.arange(1, min(256, n - 1) + 1)
            return table[c]
        c = c.astype(np.int64)
        return np.where((c >= 0) & (c < n - 1), c + 1, 0)

    def _setup(self, codes: np.ndarray, lut: np.ndarray) -> None:
        """``codes`` (H, W) index ``lut`` (multipliers; entry 0 is 0 = blocked)."""
        self.height, self.width = codes.shape
        self._lut = np.ascontiguousarray(lut, dtype=np.float64)
        self._index = {float(v): i for i, v in enumerate(self._lut) if i > 0}
        padded = np.zeros((self.height + 2, self.width + 2), dtype=_code_dtype(self._lut.size))
        padded[1:-1, 1:-1] = codes
        self._codes = padded.reshape(-1)
        self._counts = np.bincount(padded[1:-1, 1:-1].reshape(-1), minlength=self._lut.size).astype(np.int64)
        self._moves: dict[int, np.ndarray] = {}
        self._blocks: np.ndarray | None = None  # the bits of block-based JPS, made on its first use
        self._jps_stops = np.zeros((4, 0, 0), np.bool_)  # a weighted grid's JPS stops, kept to repair them
        #: ms a weighted grid's JPS data (successor table, :mod:`.jpsw`) took to make (0.0: not made).
        self.jps_table_ms = 0.0
        self._table: np.ndarray | None = None  # JPS+'s jump distances, made on first use, then repaired
        # Answers worked out from the grid, kept until it changes (_write, the only change path):
        # kernel_args', and the plans of searches (plans.plan_of).
        self._kept: dict = {}
        self._table_free = np.zeros((0, 0), np.bool_)  # the free cells it was made from, kept with it
        #: ms the jump table took to make (its first use), and its last repair (0.0: none yet).
        self.jump_table_ms = 0.0
        self.jump_repair_ms = 0.0
        self._costs: np.ndarray | None = None
        self._range = self._multiplier_range()

    # ------------------------------------------------------------------ reading
    @property
    def padded_width(self) -> int:
        return self.width + 2

    @property
    def cells(self) -> int:
        """Cells of the padded grid (what a workspace must hold)."""
        return self._codes.size

    @property
    def costs(self) -> np.ndarray:
        """A read-only ``(H, W)`` float64 array of the multipliers; 0 = blocked (made on first use)."""
        if self._costs is None:
            inner = self._codes.reshape(self.height + 2, self.width + 2)[1:-1, 1:-1]
            self._costs = self._lut[inner]
            self._costs.flags.writeable = False
        return self._costs

    @property
    def min_cost(self) -> float:
        """The smallest positive multiplier: the heuristic's scale (1.0 on an all-blocked grid)."""
        return self._range[0]

    @property
    def max_cost(self) -> float:
        return self._range[1]

    @property
    def uniform(self) -> bool:
        """Whether every passable cell has the same multiplier (then ``"jps"`` applies)."""
        return self._range[0] == self._range[1]

    def passable(self, x: int, y: int) -> bool:
        """Whether cell ``(x, y)`` can be entered."""
        return self.multiplier(x, y) > 0

    def multiplier(self, x: int, y: int) -> float:
        """The cost multiplier of entering cell ``(x, y)`` (0 = impassable)."""
        return float(self._lut[self._codes[(y + 1) * (self.width + 2) + x + 1]])

    def passable_mask(self) -> np.ndarray:
        """A new ``(H, W)`` bool array: True where a cell can be entered."""
        inner = self._codes.reshape(self.height + 2, self.width + 2)[1:-1, 1:-1]
        return (self._lut > 0)[inner]

    def passable_at(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """Vectorised :meth:`passable` for arrays of x and y."""
        return self._lut[self._codes[(np.asarray(ys) + 1) * (self.width + 2) + np.asarray(xs) + 1]] > 0

    def cost_block(self, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
        """The multipliers of cells ``x0 <= x < x1``, ``y0 <= y < y1`` (a new array)."""
        codes = self._codes.reshape(self.height + 2, self.width + 2)[1 + y0 : 1 + y1, 1 + x0 : 1 + x1]
        return self._lut[codes]

    def kernel_args(self, rule: int, jps: bool | str = False) -> GridArgs:
        """The grid as the kernels take it, under diagonal rule ``rule`` (a code of
        ``DIAGONAL_RULES``): read-only views of its own arrays, always up to date; with
        ``jps``, its free cells as bits too, with ``jps="jps+"`` its :meth:`jump_table`
        (else an empty array in their place)."""
        args = self._kept.get((rule, jps))
        if args is None:  # (kept until the grid changes, :meth:`_write`: made afresh, ~0.3 µs a call)
            blocks = self._table_words() if jps == "jps+" else self.blocks() if jps else EMPTY_BLOCKS
            args = self._kept[rule, jps] = GridArgs(self._codes, self._lut, self.moves(rule), self.width + 2,
                                                         blocks)  # fmt: skip
        return args

    def jump_table(self) -> np.ndarray:
        """JPS+'s jump distances (:mod:`.jpsplus`; ``(padded cells, 8)`` int16): made on first
        use (:attr:`jump_table_ms` says how long that took), then kept, and repaired where the
        grid changes (:attr:`jump_repair_ms`)."""
        if self._table is None:
            t0 = time.perf_counter()
            self._table_free = self._free()
            self._table = build_table(self._table_free)
            self.jump_table_ms = (time.perf_counter() - t0) * 1000.0
        return self._table

    def _table_words(self) -> np.ndarray:
        """The jump table as the kernels take it: its bytes as one plane of uint64 words,
        ``(1, cells, 2)``, the type of JPS's bits, so JPS and JPS+ share one compiled kernel
        (``jps.jps_core`` tells them apart by the planes: one is the table)."""
        return self.jump_table().view(np.uint64).reshape(1, -1, 2)  # (kept by kernel_args)

    def _free(self) -> np.ndarray:
        """The padded grid's passable cells, bool ``[y, x]`` (a new array)."""
        return (self._lut[self._codes] > 0).reshape(self.height + 2, self.width + 2)

    def blocks(self) -> np.ndarray:
        """The free cells as bits in four orientations and where a straight scan halts, for
        block-based JPS (:mod:`.jps`), and on a weighted grid its successor table too
        (:mod:`.jpsw`): made on first use (~1.3 ms for a uniform 512x512 grid), made again after
        a change."""
        if self._blocks is None:
            if self.uniform:
                self._blocks = build_blocks(self._free())
            else:
                t0 = time.perf_counter()
                self._blocks, self._jps_stops = weighted_blocks(self._codes, self._lut, self.width + 2)
                self.jps_table_ms = (time.perf_counter() - t0) * 1000.0
        return self._blocks

    def moves(self, rule: int) -> np.ndarray:
        """The padded, flattened moves mask under ``rule`` (built once, then kept up to date)."""
        mask = self._moves.get(rule)
        if mask is None:
            mask = np.zeros(self._codes.size, dtype=np.uint8)
            build_moves(self._codes, self._lut, self.width + 2, rule, mask, 0, self.height + 2, 0, self.width + 2)
            self._moves[rule] = mask
        return mask

    def _multiplier_range(self) -> tuple[float, float]:
        present = self._lut[(self._counts > 0) & (self._lut > 0)]
        return (float(present.min()), float(present.max())) if present.size else (1.0, 1.0)

    # ------------------------------------------------------------------ changing
    def update(self, x0: int, y0: int, patch: object) -> None:
        """Overwrite the cells from ``(x0, y0)`` on with the multipliers ``patch`` (indexed ``[y, x]``)."""
        x0, y0 = _check_int("x0", x0), _check_int("y0", y0)
        patch = check_array("patch", patch)
        values = _blocked_to_zero(patch, "patch")
        self._check_fits(x0, y0, values.shape)
        distinct, inverse = np.unique(values, return_inverse=True)
        codes = np.array([self._code_of(float(v)) for v in distinct], dtype=np.int64)[inverse]
        self._write(x0, y0, codes.reshape(values.shape))

    def update_codes(self, x0: int, y0: int, codes: np.ndarray) -> None:
        """Overwrite cells with codes of this grid's table (as given to :meth:`from_codes`)."""
        x0, y0, codes = _check_int("x0", x0), _check_int("y0", y0), _check_codes(codes)
        self._check_fits(x0, y0, codes.shape)
        self._write(x0, y0, self._stored(codes, self._lut.size))

    def _code_of(self, value: float) -> int:
        if value == 0.0:
            return 0
        code = self._index.get(value)
        if code is None:  # a multiplier not seen before: the table grows (and the codes widen if needed)
            code = self._lut.size
            self._lut = np.append(self._lut, value)
            self._index[value] = code
            self._counts = np.append(self._counts, 0)
            if np.iinfo(self._codes.dtype).max < code:
                self._codes = self._codes.astype(_code_dtype(code + 1))
        return code

    def _check_fits(self, x0: int, y0: int, shape: tuple[int, ...]) -> None:
        h, w = shape
        if x0 < 0 or y0 < 0 or x0 + w > self.width or y0 + h > self.height:
            raise ValueError(
                f"patch of width {w} and height {h} at {(x0, y0)} does not fit the grid of "
                f"width {self.width} and height {self.height}"
            )

    def _write(self, x0: int, y0: int, codes: np.ndarray) -> None:
        self._kept.clear()  # (the codes, multipliers or JPS data may be new arrays after this)
        h, w = codes.shape
        wp = self.width + 2
        grid = self._codes.reshape(self.height + 2, wp)
        block = grid[1 + y0 : 1 + y0 + h, 1 + x0 : 1 + x0 + w]
        n = self._lut.size
        self._counts -= np.bincount(block.reshape(-1), minlength=n)[:n]
        block[...] = codes
        self._counts += np.bincount(block.reshape(-1), minlength=n)[:n]
        self._range = self._multiplier_range()
        if self._costs is not None:
            self._costs.flags.writeable = True
            self._costs[y0 : y0 + h, x0 : x0 + w] = self._lut[block]
            self._costs.flags.writeable = False
        if self._blocks is not None and self._blocks.shape[0] > PLANES and not self.uniform:
            repair_weighted_blocks(self._blocks, self._jps_stops, self._codes, self._lut, wp,
                                   x0 + 1, y0 + 1, x0 + 1 + w, y0 + 1 + h)  # fmt: skip
        else:  # uniform JPS's bits are made again on use (~1 ms); so is a weighted grid's data if it was uniform
            self._blocks = None
        if self._table is not None:  # only what the change can reach (cells padded: + 1)
            t0 = time.perf_counter()
            self._table_free[1 + y0 : 1 + y0 + h, 1 + x0 : 1 + x0 + w] = self._lut[block] > 0
            repair_table(self._table_free, self._table, x0 + 1, y0 + 1, x0 + w, y0 + h)
            self.jump_repair_ms = (time.perf_counter() - t0) * 1000.0
        for rule, mask in self._moves.items():  # a cell's moves depend on its neighbours: one more ring
            build_moves(self._codes, self._lut, wp, rule, mask, y0, y0 + h + 2, x0, x0 + w + 2)


def _check_int(name: str, v: object) -> int:
    if not isinstance(v, Integral) or isinstance(v, bool):
        raise TypeError(f"{name} must be an int, got {v!r}")
    return int(v)
