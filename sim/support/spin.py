"""A barrier for compiled code on threads: parts of one pass that must all finish a step before
any starts the next, waiting inside compiled code (numba has no atomics or barrier of its own).

A Python ``threading.Barrier`` between compiled steps costs a sleep and a wake-up each time
and the GIL back after every step: four of them in the separation's pass at 100,000 animals
cost ~0.25 ms of its ~3.5 (measured on the 2-core development machine, 2026-12-05). Waiting
here spins on a shared counter, and after a few hundred tries gives its core away
(``sched_yield``) each time, so a machine busy with other work still runs the part that is
late. Every part must be running at once (one thread each), or the others wait for ever.
"""

from __future__ import annotations

import sys

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

#: Tries before a waiting part starts giving its core away between tries.
SPINS = 200


@intrinsic
def _atomic_add(typingctx, address, value):
    """Add ``value`` to the 64-bit integer at ``address`` (an integer), for every thread at once
    (sequentially consistent); returns what it held before."""
    sig = types.int64(types.intp, types.int64)

    def codegen(context, builder, signature, args):
        ptr = builder.inttoptr(args[0], ir.IntType(64).as_pointer())
        return builder.atomic_rmw("add", ptr, args[1], "seq_cst")

    return sig, codegen


@intrinsic
def _atomic_load(typingctx, address):
    """The 64-bit integer at ``address``, read again each time (not kept in a register) and
    after every write other threads made before theirs to it (acquire)."""
    sig = types.int64(types.intp)

    def codegen(context, builder, signature, args):
        ptr = builder.inttoptr(args[0], ir.IntType(64).as_pointer())
        return builder.load_atomic(ptr, "acquire", 8)

    return sig, codegen


@intrinsic
def _yield_cpu(typingctx):
    """Give this thread's core to another that is ready to run (``sched_yield``; nothing on
    Windows, which has no such C call: the wait there spins)."""
    sig = types.void()

    def codegen(context, builder, signature, args):
        if sys.platform != "win32":
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(32), []), "sched_yield")
            builder.call(fn, [])
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, nogil=True)
def arrive_and_wait(counter, target):
    """This part has finished a step: add one to ``counter[0]`` (an int64 array every part
    shares, 0 before the first step) and wait until it holds ``target`` (the parts times the
    steps done so far). Everything the parts wrote before arriving is seen after it."""
    address = counter.ctypes.data
    _atomic_add(address, 1)
    tries = 0
    while _atomic_load(address) < target:
        tries += 1
        if tries > SPINS:
            _yield_cpu()
