"""Step through the backward pass of an s2sad gradient in a debugger.

    python examples/debugging/debug_backward.py          # prints the generated file and lines
    python examples/debugging/debug_backward.py --pdb    # the same, stopping in the backward pass

In an IDE (examples/debugging/README.md has VS Code and PyCharm configurations):
  1. Run this script once. It prints the generated file's path and, for each `# grad of:` block
     of the backward sweep, the first line of that block.
  2. Open the printed file and put a breakpoint on one of those lines (e.g. the block below
     `# grad of: h = np.tanh(w @ h) + x`).
  3. Debug this script. The debugger stops in the generated file: the forward values (`h`, `err`)
     hold what they held at that line of `loss`, the adjoints (`dh`, `dw`, `derr`) what has been
     accumulated so far.
The path stays the same from run to run as long as `loss` does not change, so the breakpoint
stays valid; it hits on the second call below in the first run, and on both in later runs.
"""
import os
import sys

import numpy as np

import s2sad
from s2sad.runtime import tracing


def loss(w, x, y, steps):
    """A tiny recurrent model: `steps` tanh updates of a state, then a squared error."""
    h = x
    for i in range(steps):
        h = np.tanh(w @ h) + x
    err = h - y
    return np.sum(err * err)


def backward_lines(gradient):
    """(line, origin) of the first statement of each `# grad of:` block of the generated file."""
    lines = gradient.source.splitlines()
    return [(n + 2, tracing.origin(gradient.path, n + 2)) for n, text in enumerate(lines)
            if text.strip().startswith("# grad of:")]


def main():
    rng = np.random.default_rng(0)
    w, x, y = 0.5 * rng.normal(size=(3, 3)), rng.normal(size=3), rng.normal(size=3)
    # jit=False: run the generated file as Python, so breakpoints in it work
    # (S2SAD_DISABLE_JIT=1 does the same for every gradient, as the IDE configurations set it)
    dloss = s2sad.grad(loss, jit=False)
    dloss(w, x, y, 4)  # the first call writes the file specialised for these argument kinds

    print(f"generated file: {dloss.path}\nbackward sweep blocks (break on these lines):")
    for line, where in backward_lines(dloss):
        print(f"  {dloss.path}:{line}   grad of: {where.text}   "
              f"[{os.path.basename(where.path)}:{where.line}]")

    if "--pdb" in sys.argv:
        import pdb  # noqa: T100  (the point of this flag)
        debugger = pdb.Pdb()
        line, _ = backward_lines(dloss)[-1]  # the loop body's block: runs once per step
        debugger.set_break(dloss.path, line)
        print(f"pdb stops at the call first: type `c` to go to line {line} of the generated "
              "file, then `p i, dh`, `ll`, `c` (next step), `q`")
        dw = debugger.runcall(dloss, w, x, y, 4)
    else:
        dw = dloss(w, x, y, 4)  # <- the call to step through: breakpoints in the file hit here
    if dw is not None:  # None when pdb was quit (`q`) before the call returned
        print(f"dloss/dw =\n{dw}")


if __name__ == "__main__":
    main()
