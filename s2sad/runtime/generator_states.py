"""The states of the random generators a drawing callee uses, kept before its call and put back
for its adjoint (generate/replay.py), so that the adjoint draws the very samples the forward
sweep drew. This is the Python form; random_state.py compiles the same two functions for
`RandomState`s (their states as arrays)."""


def draw_state(*values):
    """The states of the random generators a call may draw from: numpy.random's own and each
    RandomState or Generator among `values` (the call's arguments), as [(generator, state)]. A
    gradient keeps it before a call of a function of yours that draws, and `replay`s it before
    that function's adjoint runs the call again, so that the same samples are drawn."""
    import numpy
    found = [numpy.random.mtrand._rand]
    found += [v for v in values if isinstance(v, (numpy.random.RandomState,
                                                  numpy.random.Generator))]
    return [(g, g.bit_generator.state if isinstance(g, numpy.random.Generator) else
             g.get_state()) for g in found]


def replay(saved):
    """Put the generators of `saved` (draw_state's) back in those states; returns the states
    they had, for a second replay to put back."""
    import numpy
    now = draw_state(*[g for g, _ in saved[1:]])
    for generator, state in saved:
        if isinstance(generator, numpy.random.Generator):
            generator.bit_generator.state = state
        else:
            generator.set_state(state)
    return now
