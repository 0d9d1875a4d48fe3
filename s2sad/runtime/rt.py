"""`rt`: the one namespace generated code imports (`from s2sad.runtime import rt`).

Besides NumPy and ``math``, generated code calls only `rt.<name>`: the helpers of core.py and
of the modules by area re-exported at the bottom, each defined once and run as Python or
compiled by Numba (dispatch.py); and, defined here, what s2sad's users write in differentiated
code (`stop_gradient`, `grad_of`, `checkpointed`, `flatten`) and what links generated files
together.
"""
import sys

from .dispatch import by_type, is_array, jitable

LINKER = "_s2sad_link"   # the name jit.py gives its linker in each generated module


@jitable
def flag(test):
    """A branch test that depends on constants only (`if DEBUG > 0:`), as a value Numba cannot
    fold: it would prune the branch and leave what the branch records (stacks, `_result`)
    without a type."""
    return test


@by_type
def number(x):
    """`x`, which must be a number: the parameter a `s2sad.grad(f)` called inside a
    differentiated function differentiates (api/higher.nested_function), along 1.0; for an
    array that would be no gradient, so an array raises."""
    if is_array(x):
        def impl(x):
            if x.ndim >= 0:
                raise ValueError("s2sad.grad(f) called inside a differentiated function "
                                 "differentiates w.r.t. a number, and was given an array")
            return x
        return impl
    return lambda x: x


class NonFiniteGradient(FloatingPointError):
    """Raised by the checks `check_nan=True` puts in generated code: (what was checked, the
    names its statement reads). s2sad turns it into a NonFiniteError with the values."""


@jitable
def stop_gradient(x):
    """`x` itself, through which no gradient flows: `s2sad.stop_gradient(v)` in differentiated
    code says that cutting the gradient there is intended (and silences the report)."""
    return x


def checkpointed(iterable, every=None):
    """`for i in s2sad.checkpointed(range(n)):` in a function s2sad differentiates: the
    gradient's forward sweep keeps a snapshot of the loop's state every `every` iterations
    (default ceil(sqrt(trips))) instead of the values of every iteration, and the backward sweep
    re-runs one segment at a time from its snapshot: memory O(sqrt(n)) for about one more
    forward run of the loop. Run directly (not through s2sad), it returns `iterable`."""
    return iterable


def flatten(value):
    """`vector, unflatten = s2sad.flatten(params)`: the leaves of a nesting of tuples, lists,
    dicts (by sorted key, as autograd's and JAX's flatten order them), NamedTuples and
    dataclasses, each raveled, concatenated into one float vector; `unflatten(v)` builds a
    value of params' structure and shapes from such a vector. In a function s2sad
    differentiates, the vector is spelt with the leaves (containers.py), so the gradient flows
    into each; `unflatten` is for code outside it (an optimiser's step)."""
    import numpy
    leaves = []

    def walk(item):
        keys = flatten_keys(item)
        if keys is None:
            leaves.append(item)
        for key in keys or ():
            walk(getattr(item, key) if isinstance(key, str) and not isinstance(item, dict)
                 else item[key])
    walk(value)
    shapes = [numpy.shape(leaf) for leaf in leaves]
    vector = numpy.concatenate([numpy.ravel(leaf).astype(float) for leaf in leaves]) \
        if leaves else numpy.zeros(0)

    def unflatten(flat):
        pieces, start = iter(range(len(shapes))), 0
        made = []
        for shape in shapes:
            size = int(numpy.prod(shape))
            piece = flat[start:start + size]
            made.append(piece.reshape(shape) if shape else piece[0])
            start += size

        def build(item):
            keys = flatten_keys(item)
            if keys is None:
                return made[next(pieces)]
            built = {key: build(getattr(item, key) if isinstance(key, str) and
                                 not isinstance(item, dict) else item[key]) for key in keys}
            if isinstance(item, dict):
                return {key: built[key] for key in item}  # (the dict's own order again)
            if isinstance(item, list):
                return [built[k] for k in keys]
            if isinstance(item, tuple):
                values = [built[k] for k in range(len(item))]
                return type(item)(*values) if hasattr(item, "_fields") else tuple(values)
            import dataclasses
            return dataclasses.replace(item, **built)
        return build(value)
    return vector, unflatten


def flatten_keys(value):
    """The keys `flatten` walks a container by, in its order (a dict's sorted, a list's or
    tuple's indices, a dataclass's field names); None for a leaf. containers.py walks a
    container it follows in the same order."""
    import dataclasses
    if isinstance(value, dict):
        return sorted(value)
    if isinstance(value, (list, tuple)):
        return list(range(len(value)))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [field.name for field in dataclasses.fields(value)]
    return None


class grad_of:
    """`with s2sad.grad_of(x) as dx:` in a function s2sad differentiates: the body runs in the
    backward sweep, with `dx` the gradient of the output w.r.t. the value x holds there, and
    what the body leaves in `dx` is the gradient from then on (e.g. clipped). s2sad removes the
    statement from the forward sweep. Run directly (not through s2sad), the body runs once, in
    place, with dx zero."""

    def __init__(self, x):
        self.x = x

    def __enter__(self):
        return zeros_like(self.x)  # noqa: F405  (core.py, imported below)

    def __exit__(self, *exc_info):
        return False


def __getattr__(name):
    """`rt.objmode`: Numba's object mode, in which generated code formats the f-string message
    of a `raise` (generate/raise_messages.py); imported when first read, as Numba is."""
    if name == "objmode":
        import numba
        return numba.objmode
    raise AttributeError(f"module 'rt' has no attribute {name!r}")


def external(module, qualname):
    """A function generated code calls as it is (one with a user-registered rule), found by
    its module and qualified name."""
    import importlib
    import sys
    found = sys.modules.get(module) or importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def load(caller, stem, attribute):
    """Link a generated module to another generated file (`caller` is the module's __name__):
    the same flavour (Python or Numba) and the same directory as the caller. The loader that
    imported the caller (jit.py) left its linker in the caller's namespace."""
    return sys.modules[caller].__dict__[LINKER](stem, attribute)


from .generator_states import draw_state, replay  # noqa: E402,F401  (generate/replay.py)

# Helpers for the template library, one module per area; re-exported so generated code calls
# them as rt.<name>. Imported last: they use the helpers above.
from .core import *  # noqa: E402,F401,F403
from .buffers import *  # noqa: E402,F401,F403
from .reductions import *  # noqa: E402,F401,F403
from .norms import *  # noqa: E402,F401,F403
from .cached_calls import cached_call  # noqa: E402,F401
from .reduction_tangents import *  # noqa: E402,F401,F403
from .linalg import *  # noqa: E402,F401,F403
from .linalg_square import *  # noqa: E402,F401,F403
from .products import *  # noqa: E402,F401,F403
from .shape import *  # noqa: E402,F401,F403
from .shape_forms import *  # noqa: E402,F401,F403
from .likes import *  # noqa: E402,F401,F403
from .indexing import *  # noqa: E402,F401,F403
from .special import *  # noqa: E402,F401,F403
from .special_scipy import *  # noqa: E402,F401,F403
from .numpy_more import *  # noqa: E402,F401,F403
from .statistics import *  # noqa: E402,F401,F403
from .decompositions import *  # noqa: E402,F401,F403
from .linalg_powers import *  # noqa: E402,F401,F403
from .special_softmax import *  # noqa: E402,F401,F403
from .scipy_functions import *  # noqa: E402,F401,F403
from .special_incomplete import *  # noqa: E402,F401,F403
from .special_parameters import *  # noqa: E402,F401,F403
