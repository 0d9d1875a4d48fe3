"""s2sad: source-to-source automatic differentiation for Python and NumPy.

`grad(f)` reads f's source, writes its adjoint as a readable Python file, and runs it compiled
with Numba (or as plain Python with `jit=False`). `jvp` (forward mode), `vjp`, `jacobian`,
`hvp` and `hessian` work the same way.

This module is the public API and nothing else. The parts, each a package whose docstring says
what belongs there, importing only downwards:

    s2sad/api/         what users call (grad, jvp, ...): arguments in, results out
    s2sad/tools/       the `s2sad` command, `s2sad check`, rule verification, coverage table
    s2sad/transform/   the transformer: function -> generated source, stage by stage
    s2sad/runtime/     what generated code runs with: rt helpers, JIT, cache, tracebacks
    s2sad/templates/   (templates/ in the checkout) the derivative rules, data for the engine
    s2sad/errors.py    the errors and warnings s2sad raises
"""
from s2sad.api.batching import vmap
from s2sad.api.gradients import grad, source, value_and_grad
from s2sad.api.higher import hessian, hvp
from s2sad.api.modes import jacobian, jvp, vjp
from s2sad.errors import (ArgumentError, CacheWarning, GradientCutError, GradientCutWarning,
                          InternalError, NonFiniteError, OutputError, S2sadError, S2sadWarning,
                          TemplateError, UnsupportedError, UserError, ZeroGradientWarning)
from s2sad.runtime.jit import JitFallbackWarning
from s2sad.runtime.rt import checkpointed, flatten, grad_of, stop_gradient
from s2sad.runtime.tiers import warm_if_interactive
from s2sad.templates import adjoint, check, d, nondifferentiable, not_implemented, tangent
from s2sad.tools.verify import VerificationError
from s2sad.tools.verify import verify as verify_rule
from s2sad.version import __version__  # noqa: F401  (s2sad.__version__)

__all__ = ["grad", "value_and_grad", "jvp", "vjp", "jacobian", "hvp", "hessian", "vmap", "source",
           "stop_gradient", "grad_of", "checkpointed", "flatten", "adjoint", "tangent",
           "nondifferentiable", "not_implemented", "d", "check", "verify_rule",
           "VerificationError", "S2sadError", "UserError", "UnsupportedError", "TemplateError",
           "OutputError", "ArgumentError", "InternalError", "NonFiniteError", "GradientCutError",
           "S2sadWarning", "GradientCutWarning", "ZeroGradientWarning", "JitFallbackWarning",
           "CacheWarning"]

warm_if_interactive()   # the REPL, IPython, Jupyter: the compile worker starts now (tiers.py)


def __getattr__(name):
    """`s2sad.dask` without `import s2sad.dask` first: imported (with Dask) on first use, so
    `import s2sad` alone never imports Dask."""
    if name == "dask":
        import importlib
        return importlib.import_module("s2sad.dask")
    raise AttributeError(f"module 's2sad' has no attribute '{name}'")
