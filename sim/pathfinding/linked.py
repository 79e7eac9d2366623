"""The search kernels called through their addresses, not linked into every caller.

numba compiles a callee into each compiled caller's own module (``linkonce_odr``), where LLVM
optimises it and makes its machine code once more: the A*, bucket queue and JPS kernels were
compiled again inside each entry point that reaches them (``search_one``, ``search_batch``, the
round's ``_round``, each in two variants), most of those entry points' compile time. Here each
kernel is compiled once, with one explicit signature per type of its ``codes`` (uint8, uint16 or
uint32), and its callers call it through a table of addresses (``_TABLE``, a numpy array this
process registers with LLVM as the symbol ``sim_pathfinding_kernels``). The table is filled on
first use: a caller finding its slot empty takes the GIL and asks :func:`_link` to compile the
kernel (or load it from numba's cache), so cached callers work in any process, and a kernel
that would compile where compiling is forbidden (``warm.runs_without_compiling``) raises
there as it would anywhere else. The call itself is numba's own first-class function call
(its calling convention: exceptions and all); it costs an indirect call. The round's compiled call
(``rounds._kind_round``) reaches the batch search (``kernel.search_batch``) the same way
(:func:`batch_pointer`), through slots of its own after the kernels'.
"""

from __future__ import annotations

import llvmlite.binding as ll
import numpy as np
from llvmlite import ir
from numba import typeof, types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.experimental.function_type import _get_jit_address
from numba.extending import intrinsic

from sim.pathfinding.compiled import KernelParams, Priority

#: The symbol compiled callers read the table through (registered once a process, below).
SYMBOL = "sim_pathfinding_kernels"
#: The kernels, in the table's order; each has a slot per type of ``codes``.
KERNELS = ("astar_core", "bucket_core", "jps_core", "jps_pairs_core")
CODES = (types.uint8, types.uint16, types.uint32)


def _a(dtype: types.Type, ndim: int = 1, readonly: bool = False) -> types.Array:
    return types.Array(dtype, ndim, "C", readonly=readonly)


_i8, _f8, _b = types.int64, types.float64, types.boolean
#: The batch search (``kernel.search_batch``) too, for the round's compiled call (``rounds._kind_round``):
#: a slot per type of the grid's data (none: uint8, 3-d; JPS's bits or JPS+'s table: uint64, 3-d; a
#: landmarks' table: float64, 2-d, read-only) and of codes, after the kernels' slots. (Linked into the
#: round, it was compiled there once more: ~1 CPU s a variant.)
BLOCKS = (_a(types.uint8, 3), _a(types.uint64, 3), _a(_f8, 2, readonly=True))
BATCH = len(KERNELS) * len(CODES)
_TABLE = np.zeros(BATCH + len(BLOCKS) * len(CODES), dtype=np.int64)
ll.add_symbol(SYMBOL, _TABLE.ctypes.data)
_PRIO = typeof(Priority(*(1.0,) * len(Priority._fields)))  # (its terms are floats; a new one is typed here too)
# (a search's parameters, typed as the options make them: a test holds them to a batch's from Python)
_PARAMS = typeof(KernelParams(0, 0, Priority(*(1.0,) * len(Priority._fields)), 1.0, 0, 0, 0))
_RECORD, _TRACE = _a(types.int32, 2), _a(types.int32)


def signature(kernel: int, codes: types.Type) -> types.Type:
    """The one signature kernel ``KERNELS[kernel]`` is compiled with for ``codes`` of that type:
    the types its callers in ``kernel.py`` hand it (each array C-contiguous)."""
    head = (_a(codes), _a(_f8))
    three, four = types.UniTuple(_i8, 3), types.UniTuple(_i8, 4)
    if kernel == 0:  # astar_core(codes, lut, moves, width, start, goal, metric, prio, max_nodes, g, parent,
        # mark, gen, heap_key, heap_node, record, trace, trace_at, stats, lm, sym, prune)
        return three(*head, _a(types.uint8), _i8, _i8, _i8, _i8, _PRIO, _i8, _a(_f8), _a(types.uint8),
                     _a(types.uint16), _i8, _a(_f8), _a(types.int32), _RECORD, _TRACE, _i8, _a(_i8),
                     _a(_f8, 2, readonly=True), _b, _b)  # fmt: skip
    if kernel == 1:  # bucket_core(codes, lut, moves, width, start, goal, heuristic, metric, prune, max_nodes,
        # gi, parent, mark, gen, kh_key, q32, q64, entries, hgen, record, trace, trace_at)
        return four(*head, _a(types.uint8), _i8, _i8, _i8, _i8, _i8, _b, _i8, _a(_i8), _a(types.uint8),
                    _a(types.uint16), _i8, _a(_f8), _a(types.int32, 2), _a(_i8, 2), _a(types.int32, 2), _i8,
                    _RECORD, _TRACE, _i8)  # fmt: skip
    blocks = _a(types.uint64, 3)
    if kernel == 2:  # jps_core(codes, lut, data, width, start, goal, metric, unit, prio, max_nodes, g, parent,
        # jump_parent, mark, gen, heap_key, heap_node, record, trace, trace_at, stats)
        return three(*head, blocks, _i8, _i8, _i8, _i8, _f8, _PRIO, _i8, _a(_f8), _a(types.uint8), _a(_i8),
                     _a(types.uint16), _i8, _a(_f8), _a(types.int32), _RECORD, _TRACE, _i8, _a(_i8))  # fmt: skip
    # jps_pairs_core(codes, lut, data, width, start, goal, metric, heuristic, max_nodes, g, jump_parent,
    # mark, gen, heap_key, heap_node, record, trace, trace_at)
    return three(*head, blocks, _i8, _i8, _i8, _i8, _i8, _i8, _a(_f8), _a(_i8), _a(types.uint16), _i8,
                 _a(_f8), _a(types.int32), _RECORD, _TRACE, _i8)  # fmt: skip


def batch_args(codes: types.Type, blocks: types.Array) -> tuple[types.Type, ...]:
    """The argument types the batch search's slot for ``codes`` and ``blocks`` is compiled with:
    those the round hands it (``rounds._kind_round``) and the engine's batch from Python
    (``batch.py``), so the one compiled copy serves both. Its return type is numba's to infer."""
    heap = types.Tuple((_a(_f8), _a(types.int32)))
    buckets = types.Tuple((_a(_f8), _a(types.int32, 2), _a(_i8, 2), _a(types.int32, 2)))
    # (codes, lut, moves, width, blocks, starts, goals, params, node_budget, g, parent, jump_parent, mark,
    # gen, heap, buckets, hgen, tracing, stats)
    return (_a(codes), _a(_f8), _a(types.uint8), _i8, blocks, _a(_i8), _a(_i8), _PARAMS, _i8, _a(_f8),
            _a(types.uint8), _a(_i8), _a(types.uint16), _i8, heap, buckets, _i8, _b, _a(_i8))  # fmt: skip


_dispatchers: list[object] = []
_batch: list[object] = []


def provide(*dispatchers: object, batch: object) -> None:
    """The kernels' dispatchers, in :data:`KERNELS`' order, and the batch search's (``kernel.py``
    hands them over once it has them: this module imports no kernel, so nothing imports in a circle)."""
    names = tuple(getattr(d, "__name__", "") for d in dispatchers)
    if names != KERNELS:  # (a slot's signature is its kernel's: the order is checked, not trusted)
        raise ValueError(f"the kernels must come in the order {', '.join(KERNELS)}, got {', '.join(names)}")
    if getattr(batch, "__name__", "") != "search_batch":
        raise ValueError(f"the batch search must be search_batch, got {getattr(batch, '__name__', batch)!r}")
    _dispatchers[:] = dispatchers
    _batch[:] = [batch]


#: The kernels filled together: A*'s two, and with a jumping kernel all four, as a caller linked
#: them when it was compiled (one for JPS's grid data linked all four, others A*'s two), so "this
#: caller runs without compiling" still means all it may reach is ready (``warm``, ``sim.prepare``).
GROUPS = ((0, 1), (0, 1), (0, 1, 2, 3), (0, 1, 2, 3))


def _link(slot: int) -> None:
    """Fill ``slot`` of the table, and those of its group (:data:`GROUPS`) for the same codes: each
    kernel compiled for its signature (or loaded from numba's cache), its address. Called by compiled
    code, holding the GIL, when it finds the slot empty. The batch search's slots fill alone (the
    kernels it calls fill theirs when it calls them)."""
    if slot >= BATCH:
        b, c = divmod(slot - BATCH, len(CODES))
        if _TABLE[slot] == 0:
            # By its arguments alone, the key a batch from Python compiles and caches it under (a
            # signature with a return type would be another key: compiled and cached once more).
            batch, args = _batch[0], batch_args(CODES[c], BLOCKS[b])
            batch.compile(args)  # type: ignore[attr-defined]
            _TABLE[slot] = _get_jit_address(batch, batch.overloads[args].signature)  # type: ignore[attr-defined]
        return
    k, c = divmod(slot, len(CODES))
    for kernel in GROUPS[k]:
        at = kernel * len(CODES) + c
        # (No lock: two threads that find a slot empty both write the same address; numba's own
        # lock keeps its compiling one at a time.)
        if _TABLE[at] == 0:
            _TABLE[at] = _get_jit_address(_dispatchers[kernel], signature(kernel, CODES[c]))


def _function(context, builder, fnty: types.FunctionType, slot: int):
    """Code for slot ``slot``'s function as a first-class function value of type ``fnty``: the
    table's entry, filled first (:func:`_link`, under the GIL) when it is empty."""
    i64 = ir.IntType(64)
    mod = builder.module
    table = mod.globals.get(SYMBOL)
    if table is None:
        table = ir.GlobalVariable(mod, ir.ArrayType(i64, len(_TABLE)), SYMBOL)
        table.linkage = "external"
    at = builder.gep(table, [ir.Constant(ir.IntType(32), 0), ir.Constant(ir.IntType(32), slot)])
    with builder.if_then(cgutils.is_null(builder, builder.load(at)), likely=False):
        pyapi = context.get_python_api(builder)
        gil = pyapi.gil_ensure()
        module = pyapi.import_module(context.insert_const_string(mod, __name__))
        link = pyapi.object_getattr_string(module, "_link")
        number = pyapi.long_from_longlong(ir.Constant(ir.IntType(64), slot))
        done = pyapi.call_function_objargs(link, (number,))
        for obj in (number, link, module):
            pyapi.decref(obj)
        with builder.if_then(cgutils.is_null(builder, done), likely=False):
            pyapi.gil_release(gil)  # (the exception stays set on this thread: it propagates)
            context.call_conv.return_exc(builder)
        pyapi.decref(done)
        pyapi.gil_release(gil)
    address = builder.inttoptr(builder.load(at), context.get_value_type(types.voidptr))
    fn = cgutils.create_struct_proxy(fnty)(context, builder)
    fn.jit_addr = address  # numba's own calling convention (c_addr is never read when this is set)
    fn.c_addr = address
    fn.py_addr = context.get_constant_null(types.voidptr)
    return fn._getvalue()


def _pointer(kernel: int) -> object:
    """An intrinsic: ``f = pointer(codes)`` is ``KERNELS[kernel]`` for ``codes``'s type, as a
    first-class function value to call."""

    @intrinsic
    def pointer(typingctx, codes):
        fnty = types.FunctionType(signature(kernel, codes.dtype))
        slot = kernel * len(CODES) + CODES.index(codes.dtype)
        return fnty(codes), lambda context, builder, sig, args: _function(context, builder, fnty, slot)

    return pointer


@intrinsic
def batch_pointer(typingctx, codes, blocks):
    """``f = batch_pointer(codes, blocks)`` is ``kernel.search_batch`` for the types of the grid's
    ``codes`` and jump data ``blocks`` (:func:`batch_args`), as a first-class function value to call."""
    at = [b for b, like in enumerate(BLOCKS) if (like.dtype, like.ndim) == (blocks.dtype, blocks.ndim)]
    if not at or codes.dtype not in CODES:
        raise TypingError(f"no batch search slot for codes {codes} and grid data {blocks}")
    args = batch_args(codes.dtype, BLOCKS[at[0]])
    found = typingctx.resolve_function_type(typingctx.resolve_value_type(_batch[0]), args, {})
    fnty = types.FunctionType(found.return_type(*args))
    slot = BATCH + at[0] * len(CODES) + CODES.index(codes.dtype)
    return fnty(codes, blocks), lambda context, builder, sig, args: _function(context, builder, fnty, slot)


astar_pointer = _pointer(0)
bucket_pointer = _pointer(1)
jps_pointer = _pointer(2)
jps_pairs_pointer = _pointer(3)
