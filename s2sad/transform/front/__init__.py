"""The front end: a function object -> its body in A-normal form, every free name bound.

Each module is one step, run in this order by pipeline.py:

    parse       source -> gast tree, with positions in the real file
    desugar     Python's spellings -> the core the later steps know (`x += y`, comprehensions)
    fence       reject unsupported syntax, every violation at once
    resolve     bind free names: numpy aliases, user callees, numbers read from globals
                (unresolved: the errors for what it cannot bind)
    inline      small callees of yours put in place of their calls
    idioms      an idiom spelt out (`1 / (1 + exp(-z))`) read as the function it computes
    constants   module-level arrays become inputs of the generated function
    containers  tuples, lists and dicts known at transform time -> one name per element
                (container_arguments: parameters given containers; container_values: what is
                followed; container_buffers: lists grown in loops)
    exits       one exit per loop and function (break, continue, return become flags)
    normalize   one operation per statement

A change to what source s2sad accepts, or how it is spelt for the rest of the pipeline, belongs
here. Nothing here knows about gradients: these steps run for the primal copy of a callee too.
Imports: the shared helpers of s2sad.transform only (nodes, naming, template, facts).
"""
