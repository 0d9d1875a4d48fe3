"""Draws from a `numpy.random.RandomState` in compiled code, with NumPy's very samples.

Generated code draws as the user's function does (`eps = rs.randn(n)`). Run as Python, that is
NumPy's own call. Compiled, `rs` is a value of the Numba type registered here:

- on entry to the compiled function, the generator's state is copied into two arrays
  (`state_of`: the 624 words of its MT19937 and the position, then the cached Gaussian);
- the methods below draw from those arrays with NumPy's legacy algorithms: the same MT19937,
  the same 53-bit doubles, the same polar method with its cached second value, the same masked
  rejection for integers, the same Fisher-Yates shuffle;
- on exit the arrays are written back into the generator (`put_state`), so it is left where
  Python would leave it, and the next call draws what Python's next call would.

A generated function that passes `rs` on to another shares the arrays: one state, as in
Python. tests/test_random_draws.py compares every method with NumPy's, sample for sample.

A `numpy.random.Generator` needs none of this: Numba compiles its methods itself, drawing from
the generator's own bit generator. Which methods of either kind a gradient compiles is
COMPILED_DRAWS (transform/front/unresolved.py): those whose samples the test finds NumPy's.

Numba is imported here: dispatch.install() imports this module, never `import s2sad`.
"""
import numpy
from numba.core import cgutils, types
from numba.extending import (NativeValue, make_attribute_wrapper, models, overload_method,
                             register_jitable, register_model, typeof_impl, unbox)

N, M = 624, 397   # MT19937's state words and its shift

# ---- between the Python object and compiled code -----------------------------------------

_in_use = set()   # ids of the generators copied into a compiled call now


def state_of(rs):
    """The state compiled code draws from: (the MT19937 words with the position last, as
    uint32; [has_gauss, gauss] as float64). One generator given twice (an argument and a
    global) would be two copies drawing the same samples: an error."""
    if id(rs) in _in_use:
        raise ValueError("s2sad: one RandomState reaches this compiled gradient twice (as an "
                         "argument and as a global or closure variable?): pass it once")
    kind, key, pos, has_gauss, gauss = rs.get_state()
    _in_use.add(id(rs))
    words = numpy.empty(N + 1, numpy.uint32)
    words[:N] = key
    words[N] = pos
    return words, numpy.array([has_gauss, gauss], numpy.float64)


def put_state(rs, state):
    """Leave `rs` in the state (state_of's arrays) compiled code drew it to."""
    _in_use.discard(id(rs))
    words, gauss = state
    rs.set_state(("MT19937", words[:N], int(words[N]), int(gauss[0]), float(gauss[1])))


class RandomStateType(types.Type):
    """A numpy.random.RandomState (of the MT19937 bit generator) in compiled code."""

    def __init__(self):
        super().__init__(name="RandomState(MT19937)")


random_state_type = RandomStateType()
_WORDS = types.Array(types.uint32, 1, "C")
_GAUSS = types.Array(types.float64, 1, "C")


@typeof_impl.register(numpy.random.RandomState)
def _typeof_random_state(value, context):
    if type(value._bit_generator) is numpy.random.MT19937:
        return random_state_type
    return None   # (another bit generator: not compiled, the gradient runs as Python)


@register_model(RandomStateType)
class _RandomStateModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("words", _WORDS), ("gauss", _GAUSS)])


make_attribute_wrapper(RandomStateType, "words", "words")
make_attribute_wrapper(RandomStateType, "gauss", "gauss")


@unbox(RandomStateType)
def _unbox_random_state(typ, obj, c):
    """The state copied into arrays (state_of); after the call, written back (put_state). The
    arrays' memory is NumPy's, so the tuple state_of returned holds the final state."""
    getter = c.pyapi.unserialize(c.pyapi.serialize_object(state_of))
    pair = c.pyapi.call_function_objargs(getter, [obj])
    c.pyapi.decref(getter)
    failed = cgutils.is_null(c.builder, pair)
    proxy = cgutils.create_struct_proxy(typ)(c.context, c.builder)
    error = cgutils.alloca_once_value(c.builder, failed)
    with c.builder.if_then(c.builder.not_(failed)):
        words = c.unbox(_WORDS, c.pyapi.tuple_getitem(pair, 0))
        gauss = c.unbox(_GAUSS, c.pyapi.tuple_getitem(pair, 1))
        proxy.words = words.value
        proxy.gauss = gauss.value
        c.builder.store(c.builder.or_(words.is_error, gauss.is_error), error)

    def cleanup():
        with c.builder.if_then(c.builder.not_(cgutils.is_null(c.builder, pair))):
            # (also when the call, or another argument's unboxing, raised: that error is put
            # aside meanwhile, and kept unless writing the state back raises)
            with c.pyapi.err_push(keep_new=True):
                setter = c.pyapi.unserialize(c.pyapi.serialize_object(put_state))
                done = c.pyapi.call_function_objargs(setter, [obj, pair])
                c.pyapi.decref(setter)
                c.pyapi.decref(done)   # (Py_DecRef: NULL if it raised)
            c.pyapi.decref(pair)

    return NativeValue(proxy._getvalue(), is_error=c.builder.load(error), cleanup=cleanup)


# ---- NumPy's legacy algorithms on the state arrays ----------------------------------------

_UPPER, _LOWER = numpy.uint64(0x80000000), numpy.uint64(0x7fffffff)
_MATRIX_A = numpy.uint64(0x9908b0df)
_ONE = numpy.uint64(1)


@register_jitable
def _twist(words):
    """MT19937's next 624 words, in place."""
    for i in range(N):
        y = (numpy.uint64(words[i]) & _UPPER) | (numpy.uint64(words[(i + 1) % N]) & _LOWER)
        twisted = numpy.uint64(words[(i + M) % N]) ^ (y >> _ONE)
        if y & _ONE:
            twisted ^= _MATRIX_A
        words[i] = numpy.uint32(twisted)
    words[N] = 0


@register_jitable
def _next32(words):
    """The next 32-bit output (mt19937_next)."""
    if words[N] >= N:
        _twist(words)
    pos = words[N]
    y = numpy.uint64(words[pos])
    words[N] = pos + 1
    y ^= y >> numpy.uint64(11)
    y ^= (y << numpy.uint64(7)) & numpy.uint64(0x9d2c5680)
    y ^= (y << numpy.uint64(15)) & numpy.uint64(0xefc60000)
    y ^= y >> numpy.uint64(18)
    return y & numpy.uint64(0xffffffff)


@register_jitable
def _next64(words):
    """The next 64-bit output: two 32-bit ones, the first the high half."""
    high = _next32(words)
    return (high << numpy.uint64(32)) | _next32(words)


@register_jitable
def _double(words):
    """A double in [0, 1) from 53 random bits (random_sample)."""
    a = _next32(words) >> numpy.uint64(5)
    b = _next32(words) >> numpy.uint64(6)
    return (a * 67108864.0 + b) / 9007199254740992.0


@register_jitable
def _gauss(words, gauss):
    """A standard normal by the polar method, the second value of each pair cached."""
    if gauss[0] != 0.0:
        gauss[0] = 0.0
        value = gauss[1]
        gauss[1] = 0.0
        return value
    while True:
        x1 = 2.0 * _double(words) - 1.0
        x2 = 2.0 * _double(words) - 1.0
        r2 = x1 * x1 + x2 * x2
        if r2 < 1.0 and r2 != 0.0:
            break
    f = numpy.sqrt(-2.0 * numpy.log(r2) / r2)
    gauss[0] = 1.0
    gauss[1] = f * x1
    return f * x2


@register_jitable
def _mask(limit):
    """The smallest 2**k - 1 at least `limit` (a uint64)."""
    mask = limit
    for shift in (1, 2, 4, 8, 16, 32):
        mask |= mask >> numpy.uint64(shift)
    return mask


@register_jitable
def _masked(words, limit, mask):
    """A uniform integer in [0, limit] by masked rejection (limit > 0, a uint64)."""
    if limit <= numpy.uint64(0xffffffff):
        while True:
            value = _next32(words) & mask
            if value <= limit:
                return value
    while True:
        value = _next64(words) & mask
        if value <= limit:
            return value


@register_jitable
def _bounded(words, limit):
    """randint's integer in [0, limit]: none drawn when limit is 0, no rejection at the full
    32 or 64 bits."""
    if limit == numpy.uint64(0):
        return numpy.uint64(0)
    if limit == numpy.uint64(0xffffffff):
        return _next32(words)
    if limit == numpy.uint64(0xffffffffffffffff):
        return _next64(words)
    return _masked(words, limit, _mask(limit))


@register_jitable
def _interval(words, limit):
    """shuffle's integer in [0, limit] (random_interval)."""
    if limit == numpy.uint64(0):
        return numpy.uint64(0)
    return _masked(words, limit, _mask(limit))


# ---- the methods --------------------------------------------------------------------------

def _sized(size, draw):
    """The implementation of a draw with a `size` argument: one value for None, else an array
    of that shape filled in order; `draw(words, gauss, a, b)` gives one value."""
    if size is None or isinstance(size, types.NoneType) or isinstance(size, types.Omitted):
        def one(rs, a, b, size):
            return draw(rs.words, rs.gauss, a, b)
        return register_jitable(one)

    def many(rs, a, b, size):
        out = numpy.empty(size)
        flat = out.reshape(out.size)
        for i in range(flat.size):
            flat[i] = draw(rs.words, rs.gauss, a, b)
        return out
    return register_jitable(many)


@register_jitable
def _normal(words, gauss, loc, scale):
    return loc + scale * _gauss(words, gauss)


@register_jitable
def _uniform(words, gauss, low, width):
    return low + width * _double(words)


def _is_size(size):
    return size is None or isinstance(size, (types.NoneType, types.Omitted, types.Integer)) or \
        isinstance(size, types.BaseTuple) and all(isinstance(t, types.Integer) for t in size)


def _dims(shape):
    """The dimensions' types of `*shape` (Numba types them as one star-argument tuple when
    it lowers the call)."""
    if len(shape) == 1 and isinstance(shape[0], types.BaseTuple):
        return tuple(shape[0])
    return tuple(shape)


def _is_shape(shape):
    return all(isinstance(t, types.Integer) for t in _dims(shape))


def _is_real(x):   # (an omitted argument: its default, a Python float)
    return isinstance(x, (types.Float, types.Integer, types.Boolean, types.Omitted, float))


@register_jitable
def _bounds(low, high):
    """randint's (low, high): (0, low) without a high."""
    if high is None:
        return 0, low
    return low, high


def install():
    """The methods, for Numba (once per process, from dispatch.install)."""

    @overload_method(RandomStateType, "standard_normal")
    def standard_normal(rs, size=None):
        if _is_size(size):
            fill = _sized(size, _normal)
            return lambda rs, size=None: fill(rs, 0.0, 1.0, size)

    @overload_method(RandomStateType, "normal")
    def normal(rs, loc=0.0, scale=1.0, size=None):
        if _is_real(loc) and _is_real(scale) and _is_size(size):
            fill = _sized(size, _normal)
            return lambda rs, loc=0.0, scale=1.0, size=None: fill(rs, loc, scale, size)

    @overload_method(RandomStateType, "randn")
    def randn(rs, *shape):
        if _is_shape(shape):
            fill = _sized(shape if _dims(shape) else None, _normal)
            return lambda rs, *shape: fill(rs, 0.0, 1.0, shape)

    for name in ("random_sample", "random"):
        @overload_method(RandomStateType, name)
        def random_sample(rs, size=None):
            if _is_size(size):
                fill = _sized(size, _uniform)
                return lambda rs, size=None: fill(rs, 0.0, 1.0, size)

    @overload_method(RandomStateType, "rand")
    def rand(rs, *shape):
        if _is_shape(shape):
            fill = _sized(shape if _dims(shape) else None, _uniform)
            return lambda rs, *shape: fill(rs, 0.0, 1.0, shape)

    @overload_method(RandomStateType, "uniform")
    def uniform(rs, low=0.0, high=1.0, size=None):
        if _is_real(low) and _is_real(high) and _is_size(size):
            fill = _sized(size, _uniform)
            return lambda rs, low=0.0, high=1.0, size=None: fill(rs, low, high - low, size)

    _install_integers()
    _install_replay()


def _install_replay():
    """rt.draw_state and rt.replay (generator_states.py) in compiled code: the states of the
    RandomStates among the values, kept as (its words, its gauss, a copy of each). numpy.random's
    own generator is not among them: compiled code draws from it with Numba's generator, not
    NumPy's, so a gradient whose callee does runs as Python (unresolved.COMPILED_DRAWS)."""
    from numba.extending import overload

    from .generator_states import draw_state as draw_state_function, replay as replay_function

    def compiled(source, name):
        scope = {}
        exec(source, scope)   # (one tuple element per generator: a loop cannot build it)
        return scope[name]

    @overload(draw_state_function)
    def draw_state(*values):
        if any(isinstance(v, types.NumPyRandomGeneratorType) for v in values):
            return None   # (a Generator's state is its bit generator's: run as Python)
        kept = [f"(values[{k}].words, values[{k}].gauss, values[{k}].words.copy(), "
                f"values[{k}].gauss.copy())," for k, v in enumerate(values)
                if isinstance(v, RandomStateType)]
        return compiled(f"def draw(*values):\n    return ({' '.join(kept)})\n", "draw")

    @overload(replay_function)
    def replay(saved):
        if not isinstance(saved, types.BaseTuple):
            return None
        lines = ["def replay(saved):"]
        for k in range(len(saved)):
            lines += [f"    now{k} = (saved[{k}][0], saved[{k}][1], saved[{k}][0].copy(), "
                      f"saved[{k}][1].copy())",
                      f"    saved[{k}][0][:] = saved[{k}][2]",
                      f"    saved[{k}][1][:] = saved[{k}][3]"]
        lines.append(f"    return ({' '.join(f'now{k},' for k in range(len(saved)))})")
        return compiled("\n".join(lines) + "\n", "replay")


def _install_integers():

    @overload_method(RandomStateType, "randint")
    def randint(rs, low, high=None, size=None):
        if not (isinstance(low, types.Integer) and _is_size(size) and
                (high is None or isinstance(high, (types.Integer, types.NoneType,
                                                   types.Omitted)))):
            return None
        scalar = size is None or isinstance(size, (types.NoneType, types.Omitted))

        def one(rs, low, high=None, size=None):
            start, stop = _bounds(low, high)
            if start >= stop:
                raise ValueError("low >= high")
            limit = numpy.uint64(stop - start - 1)
            return numpy.int64(start + numpy.int64(_bounded(rs.words, limit)))

        def many(rs, low, high=None, size=None):
            start, stop = _bounds(low, high)
            if start >= stop:
                raise ValueError("low >= high")
            limit = numpy.uint64(stop - start - 1)
            out = numpy.empty(size, numpy.int64)
            flat = out.reshape(out.size)
            for i in range(flat.size):
                flat[i] = start + numpy.int64(_bounded(rs.words, limit))
            return out
        return one if scalar else many

    @overload_method(RandomStateType, "permutation")
    def permutation(rs, x):
        if isinstance(x, types.Integer):
            def impl(rs, x):
                out = numpy.arange(x)
                for i in range(x - 1, 0, -1):
                    j = numpy.int64(_interval(rs.words, numpy.uint64(i)))
                    out[i], out[j] = out[j], out[i]
                return out
            return impl
