"""A prefetch for compiled loops that read or write memory far apart: ask for a cache line a few
items ahead of its use, so the loop does not wait on each miss in turn (numba has no such call)."""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def prefetch(typingctx, address):
    """LLVM's prefetch of the cache line at ``address`` (an integer: ``array.ctypes.data`` plus a
    byte offset), for a write (a read finds it as well), kept close. Call it from compiled code."""
    sig = types.void(types.intp)

    def codegen(context, builder, signature, args):
        byte_ptr = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte_ptr, i32, i32, i32]), "llvm.prefetch.p0"
        )
        rw, locality, data = ir.Constant(i32, 1), ir.Constant(i32, 3), ir.Constant(i32, 1)
        builder.call(fn, [builder.inttoptr(args[0], byte_ptr), rw, locality, data])
        return context.get_dummy_value()

    return sig, codegen
