"""The transformer: a Python function -> the source of its adjoint (or tangent) function.

pipeline.py writes the stage order once; each stage is one module, in this order:

    parse       source -> gast tree, with positions in the real file
    fence       reject unsupported syntax, every violation at once
    resolve     bind free names (numpy aliases, user callees, global numbers)
    inline      small callees of yours put in place of their calls
    exits       one exit per loop and function (break/continue/return become flags)
    normalize   one operation per statement (A-normal form)
    activity    which values need a gradient          kinds    scalars, ints, array ranks
    aliases     refuse in-place writes through shared arrays
    clogs       report where the gradient silently stops
    reverse     forward sweep + backward sweep (saves.py, blocks.py, adjoints.py,
                checkpoint.py; nancheck.py adds check_nan's tests)
    forward     the tangent function (forward mode)
    optimize    exact clean-ups of filled templates; fold.py folds temporaries back
                (fold_names.py, fold_pure.py, printed_width.py)
    emit        print with comments, and prove the printing

template.py fills derivative templates (s2sad.templates), naming.py makes deterministic names,
nodes.py builds gast nodes. Nothing here runs generated code: that is s2sad.runtime.
"""
