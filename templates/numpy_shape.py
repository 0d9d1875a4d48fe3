"""Shape and indexing functions: reshape, transpose, concatenate, stack, split, tile, pad, ...

Most adjoints move the result's adjoint back without arithmetic (reshape it back, transpose it
back, slice it back). Sequence arguments (`numpy.concatenate((a, b))`) get one contribution per
element: their template line gives a tuple. Results that are lists (`numpy.split`) are unpacked
by the caller; `d[z]` is then the tuple of the pieces' adjoints.
"""
import numpy

from s2sad.runtime import rt  # noqa: F401  (templates name rt's helpers; they are read, not run)

from .registry import adjoint, check, d, nondifferentiable, tangent

M = (3, 4)   # the matrix shape most checks use
T = (2, 3, 4)


# ---- reshaping ----------------------------------------------------------------------------------

@adjoint(numpy.reshape, checks=[
    check("numpy.reshape(x, (4, 3))", x=M), check("numpy.reshape(x, 12)", x=M),
    check("numpy.reshape(x, -1)", x=M), check("numpy.reshape(x, (2, -1, 3))", x=M),
    check("numpy.reshape(x, (3, 4))", x=(12,)),
    check("numpy.reshape(x, (1, 1))", x=(), numba=False),
    check("numpy.reshape(x, shape=(2, 6))", x=M),
    check("numpy.reshape(x, (4, 3), order='F')", x=M, numba=False)])
def reshape(z, a, /, shape, order="C", *, copy=None):
    d[a] = rt.reshape_grad(d[z], a, order)


@tangent(numpy.reshape)
def reshape_tangent(z, a, /, shape, order="C", *, copy=None):
    d[z] = rt.reshape_grad(d[a], z, order)


@adjoint(numpy.ravel, checks=[
    check("numpy.ravel(x)", x=M), check("numpy.ravel(x)", x=T),
    check("numpy.ravel(x)", x=(), numba=False),
    check("numpy.ravel(x, order='F')", x=M, numba=False)])
def ravel(z, a, order="C"):
    d[a] = rt.reshape_grad(d[z], a, order)


@tangent(numpy.ravel)
def ravel_tangent(z, a, order="C"):
    d[z] = rt.reshape_grad(d[a], z, order)


@adjoint(numpy.squeeze, numba=False, checks=[   # Numba has no numpy.squeeze
    check("numpy.squeeze(x)", x=(3, 1, 4)), check("numpy.squeeze(x, axis=1)", x=(3, 1, 1)),
    check("numpy.squeeze(x, axis=(0, -1))", x=(1, 3, 1)), check("numpy.squeeze(x)", x=(1, 1))])
def squeeze(z, a, axis=None):
    d[a] = rt.reshape_like(d[z], a)


@tangent(numpy.squeeze)
def squeeze_tangent(z, a, axis=None):
    d[z] = rt.reshape_like(d[a], z)


@adjoint(numpy.expand_dims, checks=[
    check("numpy.expand_dims(x, 1)", x=M), check("numpy.expand_dims(x, axis=-1)", x=(3,)),
    check("numpy.expand_dims(x, 0)", x=(), numba=False),
    check("numpy.expand_dims(x, (0, 2))", x=M, numba=False)])
def expand_dims(z, a, axis):
    d[a] = rt.reshape_like(d[z], a)


@tangent(numpy.expand_dims)
def expand_dims_tangent(z, a, axis):
    d[z] = rt.reshape_like(d[a], z)


@adjoint(numpy.atleast_1d, numpy.atleast_2d, numpy.atleast_3d, checks=[
    check("{f}(x)", x=(3,)), check("{f}(x)", x=M), check("{f}(x)", x=T),
    check("{f}(x)", x=(), numba=False),
    check("a, b = {f}(x, y)\nout = numpy.sum(a) + numpy.sum(b * b)", x=(3,), y=M),
    check("a, b = {f}(x, y)\nout = a * b", x=(), y=(), numba=False)])
def atleast_nd(z, *arys):
    d[arys] = rt.atleast_grads(d[z], arys)


@tangent(numpy.atleast_1d, numpy.atleast_2d, numpy.atleast_3d)
def atleast_nd_tangent(z, *arys):
    d[z] = rt.atleast_tangents(d[arys], z)


@adjoint(numpy.transpose, checks=[
    check("numpy.transpose(x)", x=M), check("numpy.transpose(x)", x=T),
    check("numpy.transpose(x, (1, 0, 2))", x=T), check("numpy.transpose(x, axes=(2, 0, 1))", x=T),
    check("numpy.transpose(x, (-1, 0, 1))", x=T), check("numpy.transpose(x)", x=(4,))])
def transpose(z, a, axes=None):
    d[a] = rt.transpose_grad(d[z], a, axes)


@tangent(numpy.transpose)
def transpose_tangent(z, a, axes=None):
    d[z] = numpy.transpose(d[a], axes)


@adjoint(numpy.swapaxes, checks=[
    check("numpy.swapaxes(x, 0, 1)", x=M), check("numpy.swapaxes(x, 0, -1)", x=T),
    check("numpy.swapaxes(x, axis1=1, axis2=2)", x=T)])
def swapaxes(z, a, axis1, axis2):
    d[a] = numpy.swapaxes(d[z], axis1, axis2)


@tangent(numpy.swapaxes)
def swapaxes_tangent(z, a, axis1, axis2):
    d[z] = numpy.swapaxes(d[a], axis1, axis2)


@adjoint(numpy.moveaxis, checks=[
    check("numpy.moveaxis(x, 0, -1)", x=T), check("numpy.moveaxis(x, -1, 0)", x=T),
    check("numpy.moveaxis(x, (0, 1), (2, 0))", x=T), check("numpy.moveaxis(x, 1, 0)", x=M)])
def moveaxis(z, a, source, destination):
    d[a] = numpy.moveaxis(d[z], destination, source)


@tangent(numpy.moveaxis)
def moveaxis_tangent(z, a, source, destination):
    d[z] = numpy.moveaxis(d[a], source, destination)


# ---- copies and conversions ---------------------------------------------------------------------

@adjoint(numpy.copy, checks=[
    check("numpy.copy(x)", x=M), check("numpy.copy(x)", x=(4,)), check("numpy.copy(x)", x=())])
def copy(z, a, order="K", subok=False):
    d[a] = rt.reshape_like(d[z], a)


@tangent(numpy.copy)
def copy_tangent(z, a, order="K", subok=False):
    d[z] = numpy.copy(d[a])


@adjoint(numpy.array, checks=[
    check("numpy.array([x, y])", x=(), y=()),
    check("numpy.array([[x, y], [y, 1.0]])", x=(), y=()),
    check("numpy.array((x, y, x))", x=(), y=()),
    check("numpy.array(x)", x=M),
    check("numpy.array([x, y])", x=(3,), y=(3,)),
    check("numpy.array([[x, y], [y, x]])", x=(2,), y=(2,), numba=False),
    check("numpy.array(x, dtype='float64', ndmin=2)", x=(3,), numba=False)])
def array(z, object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, ndmax=0,
          like=None):
    d[object] = rt.array_grad(d[z], object)


@tangent(numpy.array)
def array_tangent(z, object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, ndmax=0,
                  like=None):
    d[z] = rt.reshape_like(numpy.array(d[object]), z)


@adjoint(numpy.asarray, checks=[
    check("numpy.asarray(x)", x=M), check("numpy.asarray(x, dtype='float64')", x=M, numba=False),
    check("numpy.asarray(x)", x=()), check("numpy.asarray((x, y))", x=(), y=()),
    check("numpy.asarray([x, y])", x=(3,), y=(3,), numba=False)])
def asarray(z, a, dtype=None, order=None, *, device=None, copy=None, like=None):
    d[a] = rt.array_grad(d[z], a)


@tangent(numpy.asarray)
def asarray_tangent(z, a, dtype=None, order=None, *, device=None, copy=None, like=None):
    d[z] = numpy.asarray(d[a])


@adjoint(numpy.ascontiguousarray, checks=[
    check("numpy.ascontiguousarray(x)", x=M), check("numpy.ascontiguousarray(x.T)", x=M),
    check("numpy.ascontiguousarray(x)", x=()),
    check("numpy.ascontiguousarray((x, y))", x=(), y=(), numba=False)])
def ascontiguousarray(z, a, dtype=None, *, like=None):
    d[a] = rt.array_grad(d[z], a)


@tangent(numpy.ascontiguousarray)
def ascontiguousarray_tangent(z, a, dtype=None, *, like=None):
    d[z] = numpy.ascontiguousarray(d[a])


@adjoint(numpy.broadcast_to, checks=[
    check("numpy.broadcast_to(x, (2, 3, 4))", x=M), check("numpy.broadcast_to(x, (3, 4))", x=(4,)),
    check("numpy.broadcast_to(x, (3, 4))", x=(3, 1)),
    check("numpy.broadcast_to(x, shape=(3,))", x=())])
def broadcast_to(z, array, shape, subok=False):
    d[array] = rt.unbroadcast(d[z], array)


@tangent(numpy.broadcast_to)
def broadcast_to_tangent(z, array, shape, subok=False):
    d[z] = rt.broadcast_like(d[array], z)


# ---- joining and splitting ----------------------------------------------------------------------

@adjoint(numpy.concatenate, checks=[
    check("numpy.concatenate((x, y))", x=(3,), y=(2,)),
    check("numpy.concatenate([x, y, x], axis=1)", x=(2, 3), y=(2, 1)),
    check("numpy.concatenate((x, y), axis=-1)", x=(2, 3), y=(2, 1)),
    check("numpy.concatenate((x, y), 0)", x=M, y=(1, 4)),
    check("numpy.concatenate((x, y), axis=None)", x=M, y=(3,), numba=False)])
def concatenate(z, arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    d[arrays] = rt.concatenate_grads(d[z], arrays, axis)


@tangent(numpy.concatenate)
def concatenate_tangent(z, arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    d[z] = numpy.concatenate(d[arrays], axis)


@adjoint(numpy.stack, checks=[
    check("numpy.stack((x, y))", x=(3,), y=(3,)), check("numpy.stack([x, y], axis=1)", x=M, y=M),
    check("numpy.stack((x, y, x), axis=-1)", x=M, y=M),
    check("numpy.stack([x, y])", x=(), y=(), numba=False)])
def stack(z, arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    d[arrays] = rt.stack_grads(d[z], arrays, axis)


@tangent(numpy.stack)
def stack_tangent(z, arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    d[z] = numpy.stack(d[arrays], axis)


@adjoint(numpy.hstack, checks=[
    check("numpy.hstack((x, y))", x=(3,), y=(2,)), check("numpy.hstack([x, y])", x=M, y=(3, 2)),
    check("numpy.hstack((x, y))", x=(), y=(2,), numba=False)])
def hstack(z, tup, *, dtype=None, casting="same_kind"):
    d[tup] = rt.hstack_grads(d[z], tup)


@tangent(numpy.hstack)
def hstack_tangent(z, tup, *, dtype=None, casting="same_kind"):
    d[z] = numpy.hstack(d[tup])


@adjoint(numpy.vstack, checks=[
    check("numpy.vstack((x, y))", x=(4,), y=(4,)),
    check("numpy.vstack([x, y])", x=M, y=(4,), numba=False),
    check("numpy.vstack((x, y))", x=(2, 2, 3), y=(1, 2, 3))])
def vstack(z, tup, *, dtype=None, casting="same_kind"):
    d[tup] = rt.vstack_grads(d[z], tup)


@tangent(numpy.vstack)
def vstack_tangent(z, tup, *, dtype=None, casting="same_kind"):
    d[z] = numpy.vstack(d[tup])


@adjoint(numpy.column_stack, checks=[
    check("numpy.column_stack((x, y))", x=(3,), y=(3,)),
    check("numpy.column_stack([x, y])", x=M, y=(3,))])
def column_stack(z, tup):
    d[tup] = rt.column_stack_grads(d[z], tup)


@tangent(numpy.column_stack)
def column_stack_tangent(z, tup):
    d[z] = numpy.column_stack(d[tup])


@adjoint(numpy.dstack, checks=[
    check("numpy.dstack((x, y))", x=(3,), y=(3,)), check("numpy.dstack([x, y])", x=M, y=M),
    check("numpy.dstack((x, y))", x=T, y=(2, 3), numba=False)])
def dstack(z, tup):
    d[tup] = rt.dstack_grads(d[z], tup)


@tangent(numpy.dstack)
def dstack_tangent(z, tup):
    d[z] = numpy.dstack(d[tup])


@adjoint(numpy.split, numpy.array_split, checks=[
    check("a, b = {f}(x, 2)\nout = a * b", x=(4,)),
    check("a, b, c = {f}(x, 3, axis=1)\nout = a + 2.0 * c", x=(2, 6)),
    check("a, b = {f}(x, [1], axis=0)\nout = numpy.sum(a) * b", x=M),
    check("a, b = {f}(x, 2)\nout = a", x=(4,))])
def split(z, ary, indices_or_sections, axis=0):
    d[ary] = rt.split_grad(d[z], ary, axis)


@tangent(numpy.split)
def split_tangent(z, ary, indices_or_sections, axis=0):
    d[z] = numpy.split(d[ary], indices_or_sections, axis)


@tangent(numpy.array_split)
def array_split_tangent(z, ary, indices_or_sections, axis=0):
    d[z] = numpy.array_split(d[ary], indices_or_sections, axis)


@adjoint(numpy.append, checks=[
    check("numpy.append(x, y)", x=M, y=(3,)), check("numpy.append(x, y, axis=0)", x=M, y=(2, 4)),
    check("numpy.append(x, y)", x=(3,), y=()), check("numpy.append(x, y, axis=-1)", x=M, y=M)])
def append(z, arr, values, axis=None):
    d[arr] = rt.append_grad_arr(d[z], arr, values, axis)
    d[values] = rt.append_grad_values(d[z], arr, values, axis)


@tangent(numpy.append)
def append_tangent(z, arr, values, axis=None):
    d[z] = numpy.append(d[arr], d[values], axis)


@adjoint(numpy.delete, checks=[   # Numba has numpy.delete without axis only
    check("numpy.delete(x, 1)", x=(4,)), check("numpy.delete(x, numpy.array([0, 2]))", x=M),
    check("numpy.delete(x, [0, 2])", x=M),
    check("numpy.delete(x, 1, axis=1)", x=M, numba=False),
    check("numpy.delete(x, [0, -1], axis=0)", x=M, numba=False)])
def delete(z, arr, obj, axis=None):
    d[arr] = rt.delete_grad(d[z], arr, obj, axis)


@tangent(numpy.delete)
def delete_tangent(z, arr, obj, axis=None):
    d[z] = rt.delete(d[arr], obj, axis)


# ---- repeating and reordering -------------------------------------------------------------------

@adjoint(numpy.tile, numba=False, checks=[   # Numba has no numpy.tile
    check("numpy.tile(x, 2)", x=M), check("numpy.tile(x, (2, 1, 3))", x=M),
    check("numpy.tile(x, (3, 2))", x=(4,)), check("numpy.tile(x, 3)", x=())])
def tile(z, A, reps):
    d[A] = rt.tile_grad(d[z], A, reps)


@tangent(numpy.tile)
def tile_tangent(z, A, reps):
    d[z] = numpy.tile(d[A], reps)


@adjoint(numpy.repeat, checks=[
    check("numpy.repeat(x, 2)", x=M), check("numpy.repeat(x, 3)", x=(4,)),
    check("numpy.repeat(x, 2, axis=0)", x=M),
    check("numpy.repeat(x, 3, axis=-1)", x=T),
    check("numpy.repeat(x, numpy.array([1, 0, 2]), axis=0)", x=M, numba=False)])
def repeat(z, a, repeats, axis=None):
    d[a] = rt.repeat_grad(d[z], a, repeats, axis)


@tangent(numpy.repeat)
def repeat_tangent(z, a, repeats, axis=None):
    d[z] = rt.repeat(d[a], repeats, axis)


@adjoint(numpy.flip, checks=[
    check("numpy.flip(x)", x=M), check("numpy.flip(x)", x=(4,)),
    check("numpy.flip(x, 1)", x=M, numba=False),
    check("numpy.flip(x, axis=(0, -1))", x=T, numba=False)])
def flip(z, m, axis=None):
    d[m] = rt.flip_grad(d[z], axis)


@tangent(numpy.flip)
def flip_tangent(z, m, axis=None):
    d[z] = rt.flip_grad(d[m], axis)


@adjoint(numpy.fliplr, checks=[check("numpy.fliplr(x)", x=M), check("numpy.fliplr(x)", x=T)])
def fliplr(z, m):
    d[m] = numpy.fliplr(d[z])


@tangent(numpy.fliplr)
def fliplr_tangent(z, m):
    d[z] = numpy.fliplr(d[m])


@adjoint(numpy.flipud, checks=[check("numpy.flipud(x)", x=M), check("numpy.flipud(x)", x=(4,))])
def flipud(z, m):
    d[m] = numpy.flipud(d[z])


@tangent(numpy.flipud)
def flipud_tangent(z, m):
    d[z] = numpy.flipud(d[m])


@adjoint(numpy.roll, checks=[
    check("numpy.roll(x, 2)", x=M), check("numpy.roll(x, -1)", x=(5,)),
    check("numpy.roll(x, 1, axis=1)", x=M, numba=False),
    check("numpy.roll(x, (1, -2), axis=(0, 2))", x=T, numba=False)])
def roll(z, a, shift, axis=None):
    d[a] = rt.roll_grad(d[z], shift, axis)


@tangent(numpy.roll)
def roll_tangent(z, a, shift, axis=None):
    d[z] = rt.roll(d[a], shift, axis)


@adjoint(numpy.sort, checks=[
    check("numpy.sort(x)", x=(5,)), check("numpy.sort(x)", x=M),
    check("numpy.sort(x, axis=0)", x=M, numba=False),
    check("numpy.sort(x, axis=None)", x=M, numba=False)])
def sort(z, a, axis=-1, kind=None, order=None, *, stable=None):
    d[a] = rt.sort_grad(d[z], a, axis)


@tangent(numpy.sort)
def sort_tangent(z, a, axis=-1, kind=None, order=None, *, stable=None):
    d[z] = rt.sort_permute(d[a], a, axis)


# ---- diagonals ----------------------------------------------------------------------------------

@adjoint(numpy.diag, checks=[
    check("numpy.diag(x)", x=(3,)), check("numpy.diag(x, 1)", x=(3,)),
    check("numpy.diag(x, k=-2)", x=(3,)), check("numpy.diag(x)", x=M),
    check("numpy.diag(x, 1)", x=M), check("numpy.diag(x, -1)", x=M)])
def diag(z, v, k=0):
    d[v] = rt.diag_grad(d[z], v, k)


@tangent(numpy.diag)
def diag_tangent(z, v, k=0):
    d[z] = numpy.diag(d[v], k)


@adjoint(numpy.diagonal, numba=False, checks=[   # Numba has no numpy.diagonal
    check("numpy.diagonal(x)", x=M), check("numpy.diagonal(x, 1)", x=M),
    check("numpy.diagonal(x, offset=-1)", x=(4, 4)),
    check("numpy.diagonal(x, 0, 1, 2)", x=T),
    check("numpy.diagonal(x, 1, axis1=-1, axis2=0)", x=T)])
def diagonal(z, a, offset=0, axis1=0, axis2=1):
    d[a] = rt.diagonal_grad(d[z], a, offset, axis1, axis2)


@tangent(numpy.diagonal)
def diagonal_tangent(z, a, offset=0, axis1=0, axis2=1):
    d[z] = numpy.diagonal(d[a], offset, axis1, axis2)


@adjoint(numpy.triu, checks=[
    check("numpy.triu(x)", x=M), check("numpy.triu(x, 1)", x=(4, 4)),
    check("numpy.triu(x, k=-1)", x=M)])
def triu(z, m, k=0):
    d[m] = numpy.triu(d[z], k)


@tangent(numpy.triu)
def triu_tangent(z, m, k=0):
    d[z] = numpy.triu(d[m], k)


@adjoint(numpy.tril, checks=[
    check("numpy.tril(x)", x=M), check("numpy.tril(x, -1)", x=(4, 4)),
    check("numpy.tril(x, k=2)", x=M)])
def tril(z, m, k=0):
    d[m] = numpy.tril(d[z], k)


@tangent(numpy.tril)
def tril_tangent(z, m, k=0):
    d[z] = numpy.tril(d[m], k)


# ---- indexing -----------------------------------------------------------------------------------

@adjoint(numpy.take, checks=[
    check("numpy.take(x, numpy.array([0, 2, 2]))", x=(4,)),
    check("numpy.take(x, numpy.array([0, 5, 5, -1]))", x=M),
    check("numpy.take(x, 3)", x=M),
    check("numpy.take(x, numpy.array([[0, 1], [1, 1]]))", x=M),
    check("numpy.take(x, numpy.array([0, 2, 2]), axis=1)", x=M),
    check("numpy.take(x, numpy.array([1, 1]), axis=-1)", x=T),
    check("numpy.take(x, [4, -5], mode='wrap')", x=(4,), numba=False)])
def take(z, a, indices, axis=None, out=None, mode="raise"):
    d[a] = rt.take_grad(d[z], a, indices, axis, mode)


@tangent(numpy.take)
def take_tangent(z, a, indices, axis=None, out=None, mode="raise"):
    d[z] = rt.take(d[a], indices, axis, mode)


@adjoint(numpy.take_along_axis, checks=[
    check("numpy.take_along_axis(x, numpy.array([[0, 2], [1, 1], [3, 0]]), axis=1)", x=M),
    check("numpy.take_along_axis(x, numpy.array([[2, 0, 0, 1]]), 0)", x=M),
    check("numpy.take_along_axis(x, numpy.array([3, 3, 0]), None)", x=M, numba=False),
    check("numpy.take_along_axis(x, numpy.array([[[1], [0], [1]]]), axis=-1)", x=T)])
def take_along_axis(z, arr, indices, axis=-1):
    d[arr] = rt.take_along_axis_grad(d[z], arr, indices, axis)


@tangent(numpy.take_along_axis)
def take_along_axis_tangent(z, arr, indices, axis=-1):
    d[z] = numpy.take_along_axis(d[arr], indices, axis)


@adjoint(numpy.pad, numba=False, checks=[   # Numba has no numpy.pad
    check("numpy.pad(x, 1)", x=M), check("numpy.pad(x, (1, 2))", x=M),
    check("numpy.pad(x, ((0, 1), (2, 0)))", x=M),
    check("numpy.pad(x, 2, mode='constant', constant_values=1.0)", x=(3,)),
    check("numpy.pad(x, ((1, 0), (0, 2)), constant_values=y)", x=M, y=())])
def pad(z, array, pad_width, mode="constant", constant_values=0):  # NumPy's **kwargs: not yet
    d[array] = rt.pad_grad(d[z], array, pad_width, mode)
    d[constant_values] = rt.pad_values_grad(d[z], array, pad_width, constant_values)


@tangent(numpy.pad)
def pad_tangent(z, array, pad_width, mode="constant", constant_values=0):
    d[z] = numpy.pad(d[array], pad_width, mode, constant_values=d[constant_values])


# index computations: integer results
nondifferentiable(numpy.argwhere, numpy.flatnonzero, numpy.unravel_index,
                  numpy.ravel_multi_index, result="discrete")
nondifferentiable(numpy.tril_indices, numpy.triu_indices, numpy.diag_indices, numpy.indices,
                  result="shape")
