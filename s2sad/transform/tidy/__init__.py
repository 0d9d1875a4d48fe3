"""Tidy passes: the generated function made to read as a person writes it, with the same
numbers to the last bit, but for summed_first, which sums a matrix product's gradient over rows
before the product (the last bits may differ: the sums are taken in another order).

order.py runs them, in an order written once there. One pass per module:

    literals       integer literals folded, `** 1` and `* 1` dropped
    in_place       gradient arrays updated in place (`dw += g`)
    spreads        a reduction's gradient left unspread before a broadcasting product
    dead_code      unread temporaries and empty `# grad of:` comments dropped
    fold           single-use temporaries folded back (fold_facts: what it relies on)
    exact          exact rewrites that need folding first (`2 * (g * w)`)
    summed_first   a matrix product's gradient summed over rows before the product
    liveness       values put back that no later block reads are not put back
    unread_stacks  values kept that nothing reads any more are not kept
    copies         a temporary that only copies a name is that name

A change that makes generated code read better, computing the same values, belongs here as a
pass of its own, added to order.py. Imports: any earlier stage and the shared helpers.
"""
