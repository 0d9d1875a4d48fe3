"""Code generation: the normalized body -> the adjoint (reverse) or tangent (forward) function.

    reverse        forward sweep, then backward sweep in reverse order
      blocks       the adjoint block of one statement, from its derivative template
      adjoints     where each adjoint lives and how contributions accumulate
      saves        what the forward sweep keeps for the backward sweep (recompute: what it
                   computes again instead)
      tape         where kept values go (counted: stacks with counters; ranges: loops run
                   backwards)
      checkpoint   `for i in s2sad.checkpointed(range(n))`: O(sqrt(n)) memory
      defer        outer products of a backward loop summed as one matrix product after it
      nancheck     `check_nan=True`: a test after each adjoint statement
    forward        the tangent function (forward mode)
    effects        `print(...)` and `raise ...` written back in the forward sweep
    scalar_loops   the sum of an elementwise vector expression inside a loop -> a loop over
                   its elements, before the sweeps are built

A change to what the generated code computes belongs here; a change to how it reads, with the
same numbers, belongs in tidy. Imports: front, analysis and the shared helpers.
"""
