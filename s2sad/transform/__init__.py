"""The transformer: a Python function -> the source of its adjoint (or tangent) function.

pipeline.py writes the stage order once. The stages are packages, each importing only the
stages before it and the shared helpers:

    front/      source -> one operation per statement, every free name bound
                (parse, desugar, fence, resolve, inline, idioms, constants, containers, exits,
                normalize)
    analysis/   facts about that body: activity, kinds, aliases, callee writes, loop shapes,
                trip counts, clogs
    generate/   the adjoint (reverse: forward sweep + backward sweep, with what is kept) or the
                tangent function (forward)
    tidy/       exact clean-ups, in an order written once (tidy/order.py)
    emit/       printing with comments (and proof of the printing), the index of generated files

Shared helpers, importable from every stage:

    nodes.py     constructors and queries for gast nodes
    naming.py    deterministic, readable names for what generated code introduces
    template.py  derivative templates (s2sad.templates) read and filled
    facts.py     the annotations a stage leaves on nodes for later stages, declared once

Nothing here runs generated code: that is s2sad.runtime.
"""
