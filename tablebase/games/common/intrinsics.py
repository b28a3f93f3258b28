"""Processor instructions that numba does not offer, for compiled kernels."""

from __future__ import annotations

from typing import Any, Callable, cast

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def _prefetch_row(typingctx: Any, array: Any, index: Any) -> Any:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        at = [args[1]] + [context.get_constant(types.intp, 0)] * (aryty.ndim - 1)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, at)  # type: ignore[no-untyped-call]
        i32, byte = ir.IntType(32), ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [byte, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")  # type: ignore[no-untyped-call]
        # read-write, into every cache level, of data
        builder.call(fn, [builder.bitcast(ptr, byte), ir.Constant(i32, 1), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(array, types.int64), codegen


#: Fetch ``array[index]`` (the first element of row ``index`` of an array of more dimensions)
#: into the cache ahead of its use, in compiled code.
prefetch = cast(Callable[[np.ndarray, int], None], intrinsic(_prefetch_row))
