"""What users call: `grad`, `value_and_grad`, `source` (gradients.py), `jvp`, `vjp`, `jacobian`
(modes.py), `hvp`, `hessian` (higher.py).

Each returns a callable that transforms its function on first use (s2sad.transform), then
converts arguments and results around a call of the generated code (s2sad.runtime). A change to
what a gradient function accepts or returns belongs here; a change to the code it runs does not.
"""
