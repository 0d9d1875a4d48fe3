"""A loss summed over rows that do not fit in one process, differentiated with Dask.

    from s2sad.dask import value_and_grad_sum
    total = value_and_grad_sum(loss, wrt="w", data=("x", "y"))
    value, dw = total(w, x, y)   # x, y: dask arrays chunked along their rows

Use it when f is a sum over the rows of its data (a batch loss) and the data is too big for one
machine's memory, or already a dask array on a cluster: each row chunk's value and gradient is
one task, run where the chunk is, and the results are added up in a tree. For many independent
per-example gradients on one machine's cores, use `s2sad.vmap` (one compiled parallel loop, no
scheduler). Only `import s2sad.dask` imports Dask: pip install 's2sad[dask]'.
"""
import hashlib
import inspect
import math

try:
    import cloudpickle
    import dask
    import dask.array
except ImportError as exc:
    raise ImportError(f"s2sad.dask needs Dask ({exc}): pip install 's2sad[dask]'") from exc
import numpy

from s2sad.api.calls import argument_error
from s2sad.api.gradients import value_and_grad
from s2sad.api.pytrees import leaves_of, rebuild

SPLIT_EVERY = 4  # partial sums added by one task of the reduction tree


def value_and_grad_sum(f, wrt=0, data=(), *, jit=None):
    """`(value, gradient)` of f summed over the row chunks of its `data` parameters.

    `data` names the parameters of f (a name or a tuple of names) that hold rows; they are
    passed as dask arrays chunked along axis 0, all as long. f must be a sum over rows (each
    chunk's f adds to the total). The gradient has the structure `s2sad.value_and_grad(f, wrt)`
    gives, summed over the chunks. It runs on the active Dask scheduler: the distributed
    Client if there is one, else the local threads."""
    gradient = value_and_grad(f, wrt=wrt, jit=jit)
    names = list(gradient.signature.parameters)
    data = tuple(dict.fromkeys(data)) if isinstance(data, (tuple, list)) else (data,)
    why = "data names the parameters of f that hold rows, passed as dask arrays chunked " \
          "along their rows"
    if not data:
        raise argument_error("data is empty: name the parameters of f that hold rows",
                             why=why, fix="data=('x', 'y') for def loss(w, x, y)")
    for name in data:
        if name not in names:
            raise argument_error(f"data={name!r} is not a parameter of {f.__name__}; its "
                                 f"parameters are {', '.join(names) or '(none)'}",
                                 why=why, fix="name the parameters that hold rows")
        if names.index(name) in gradient.positions:
            raise argument_error(
                f"'{name}' is both in data and in wrt",
                why="its gradient would be as big as the data itself, gathered from every chunk",
                fix="differentiate w.r.t. the parameters (wrt=...) and leave the data out of wrt")
    return SummedGradient(gradient, data)


class SummedGradient:
    """The function `value_and_grad_sum` returns."""

    def __init__(self, gradient, data):
        self.gradient, self.data = gradient, data
        self.__wrapped__ = gradient.func

    def __repr__(self):
        return f"<s2sad value_and_grad_sum of {self.gradient.func.__qualname__} w.r.t. " \
               f"{', '.join(self.gradient.wrt_names)} over {', '.join(self.data)}>"

    def __call__(self, *args, **kwargs):
        signature = self.gradient.signature
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise argument_error(f"{self.gradient.func.__name__}(): {exc}",
                                 why=f"it takes ({', '.join(signature.parameters)})",
                                 fix="call it with the arguments of f itself") from None
        bound.apply_defaults()
        values = dict(bound.arguments)
        arrays = self._chunked(values)
        # Transform here, on one row of zeros: bad source or unsupported code is reported at
        # this call, and the generated files travel to the workers with the gradient function
        example = dict(values, **{name: numpy.zeros((1,) + x.shape[1:], x.dtype)
                                  for name, x in arrays.items()})
        self.gradient.runner(self.gradient.bind(*_call(signature, example)))

        shipped = dask.delayed(Shipped(self.gradient))  # one copy per worker, not per task
        fixed = dask.delayed({n: v for n, v in values.items() if n not in arrays},
                             traverse=False)
        chunks = zip(*(x.to_delayed().ravel() for x in arrays.values()))
        parts = [dask.delayed(_chunk)(shipped, fixed, tuple(arrays), *rows) for rows in chunks]
        while len(parts) > 1:  # a tree: no task adds up every chunk's gradient
            parts = [dask.delayed(_add)(*parts[i:i + SPLIT_EVERY])
                     for i in range(0, len(parts), SPLIT_EVERY)]
        (value, leaves), = dask.compute(parts[0])
        # built here: the tasks pass plain lists, whatever classes the containers are
        wrt = [values[name] for name in self.gradient.wrt_names]
        return value, rebuild(wrt[0] if self.gradient.single else tuple(wrt), iter(leaves))

    def _chunked(self, values):
        """The data arguments, checked, chunked along axis 0 alike (one chunk across)."""
        arrays = {}
        for name in self.data:
            x = values[name]
            if not isinstance(x, dask.array.Array) or x.ndim == 0:
                what = "a 0-d one" if isinstance(x, dask.array.Array) else type(x).__name__
                raise argument_error(
                    f"argument '{name}' must be a dask array of rows, not {what}",
                    why="the data arguments are split into chunks of rows, one task each",
                    fix=f"dask.array.from_array({name}, chunks=(rows, -1)), rows per chunk "
                        "a few times fewer than fit in a worker's memory")
            if any(math.isnan(n) for n in x.shape):
                raise argument_error(f"argument '{name}' has unknown chunk sizes {x.shape}",
                                     why="its rows are matched with the other data's rows",
                                     fix=f"{name}.compute_chunk_sizes(), or give the shapes to "
                                         "dask.array.from_delayed")
            arrays[name] = x
        for name, value in values.items():
            if name not in arrays and dask.is_dask_collection(value):
                raise argument_error(f"argument '{name}' is a Dask collection but not in data",
                                     why="only the data arguments are split into chunks; the "
                                         "others go whole to every task",
                                     fix=f"add '{name}' to data if it holds rows, else pass "
                                         f"{name}.compute()")
        lengths = {name: x.shape[0] for name, x in arrays.items()}
        if len(set(lengths.values())) > 1:
            raise argument_error(
                "the data arguments have different numbers of rows: " +
                ", ".join(f"'{name}' {n}" for name, n in lengths.items()),
                why="row k of each data argument belong together",
                fix="pass arrays with as many rows each")
        rows = next(iter(arrays.values())).chunks[0]
        return {name: x.rechunk({0: rows, **{axis: -1 for axis in range(1, x.ndim)}})
                for name, x in arrays.items()}


def _call(signature, values):
    """(args, kwargs) that pass f's arguments `values` (a dict by name)."""
    bound = inspect.BoundArguments(signature, {n: values[n] for n in signature.parameters})
    return bound.args, bound.kwargs


def _chunk(shipped, fixed, names, *rows):
    """(value, the gradient's leaves) of f on one chunk of rows."""
    gradient = shipped.function
    rows = [numpy.ascontiguousarray(r) for r in rows]  # one compiled layout, and fast `@`
    args, kwargs = _call(gradient.signature, dict(fixed, **dict(zip(names, rows))))
    value, grad = gradient(*args, **kwargs)
    return value, leaves_of(grad)


def _add(*parts):
    """The (value, leaves) pairs added up, leaf by leaf."""
    return sum(v for v, _ in parts), [sum(c) for c in zip(*(g for _, g in parts))]


class Shipped:
    """The gradient function, pickled with cloudpickle. Dask pickles a graph with plain pickle
    unless it finds __main__ in it, which would send f by reference even from a module the user
    registered with cloudpickle.register_pickle_by_value (that the workers cannot import)."""

    def __init__(self, function):
        self.function = function

    def __reduce__(self):
        return _unship, (cloudpickle.dumps(self.function),)


_received = {}  # digest -> Shipped: a worker unpickles (and compiles) each function once


def _unship(blob):
    key = hashlib.sha256(blob).hexdigest()
    if key not in _received:
        if len(_received) >= 16:
            del _received[next(iter(_received))]  # the oldest
        _received[key] = Shipped(cloudpickle.loads(blob))
    return _received[key]
