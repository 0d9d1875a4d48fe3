"""s2sad: source-to-source automatic differentiation for Python and NumPy.

`grad(f)` reads f's source, writes its adjoint as a readable Python file, and runs it compiled
with Numba (or as plain Python with `jit=False`). `jvp` (forward mode), `vjp`, `jacobian`,
`hvp` and `hessian` work the same way.
"""
from s2sad.version import __version__  # noqa: F401

from s2sad.api.gradients import grad, value_and_grad, source  # noqa: E402
from s2sad.api.modes import jvp, vjp, jacobian  # noqa: E402
from s2sad.api.higher import hvp, hessian  # noqa: E402
from .errors import (S2sadError, UserError, UnsupportedError, TemplateError,  # noqa: E402
                     OutputError, ArgumentError, InternalError, GradientCutError, S2sadWarning,
                     GradientCutWarning, ZeroGradientWarning, NonFiniteError, CacheWarning)
from s2sad.runtime.jit import JitFallbackWarning  # noqa: E402
from s2sad.runtime.rt import stop_gradient, grad_of, checkpointed  # noqa: E402
from .templates import (adjoint, tangent, nondifferentiable, not_implemented, d,  # noqa: E402
                        check)
from s2sad.tools.verify import verify as verify_rule, VerificationError  # noqa: E402

__all__ = ["grad", "value_and_grad", "jvp", "vjp", "jacobian", "hvp", "hessian", "source",
           "stop_gradient", "grad_of", "checkpointed", "adjoint", "tangent", "nondifferentiable",
           "not_implemented", "d", "check", "verify_rule",
           "VerificationError", "S2sadError", "UserError", "UnsupportedError", "TemplateError",
           "OutputError", "ArgumentError", "InternalError", "NonFiniteError", "GradientCutError",
           "S2sadWarning", "GradientCutWarning", "ZeroGradientWarning", "JitFallbackWarning",
           "CacheWarning"]
