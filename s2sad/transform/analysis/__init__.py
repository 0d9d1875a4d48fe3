"""Analyses of the normalized body: facts the generator asks, nothing rewritten.

    activity       which values depend on `wrt` and reach the output (the only ones with an
                   adjoint), and which names hold a value where
    kinds          which names hold Python scalars, ints, and arrays of which rank
                   (result_ranks: NumPy calls' result ranks; returns: a user callee's result)
    aliases        refuse in-place writes through an array another live name holds
    callee_writes  which parameters a function of yours writes into
    loop_shapes    arrays with the same shape at every trip of a loop
    trip_totals    how many trips a loop nest makes, counted before its outermost loop
    clogs          where the gradient silently stops, reported at its line

A new question the generator needs answered about the user's code belongs here, as a function
of the body that returns the answer (or marks it on the nodes, declared in facts.py).
Imports: the front end and the shared helpers.
"""
