"""The tidy passes in their order, written once: what filled templates produce -> what a person
would write, without changing a value (every pass is exact in floating point but summed_first,
whose sums over rows, taken before a product, may differ in the last bits).

    literals        integer arithmetic folded, `** 1` and `* 1` dropped
    in_place        `dw = dw + g` -> `dw += g`; element gradients left where they are
    spreads         a reduction's gradient not spread before a product that broadcasts it
    dead_code       temporaries nothing reads (before folding: a trip count no tape needs)
    fold            single-use temporaries folded back into the expression that reads them
    exact           rewrites that need folding first (`g * w + g * w` -> `2 * (g * w)`)
    summed_first    a matrix product's gradient summed over rows before the product
    spreads         again, on what folding brought together
    liveness        values put back that no later block reads are not put back
    unread_stacks   values kept that nothing reads any more are not kept
    fold            again, when something above freed a fold
    copies          a temporary that only copies a name is that name
    in_place        the gradient of a max added straight into its row
    dead_code       what the passes above left unread, and comments with no code under them

The order matters where a pass makes the pattern the next one looks for: literals before
in_place (`* 1` hides an accumulation), in_place before fold (fold must know which gradient
arrays no other name sees), fold before exact, summed_first and the second spreads, and
liveness before unread_stacks (a put-back dropped may leave a stack unread). The passes that
only drop code (dead_code, unread_stacks) can run again at any point without harm.
"""
from .. import facts
from . import (
    copies,
    dead_code,
    exact,
    fold,
    in_place,
    literals,
    liveness,
    spreads,
    summed_first,
    unread_stacks,
)


def tidy(function):
    """The function tidied by every pass, in the order above; returns it (some passes return
    a new tree)."""
    shapes = facts.SHAPES.of(function, {})
    function = literals.fold_literals(function)
    owners = in_place.accumulate_in_place(function)
    in_place.keep_in_place(function)
    spreads.spread_names_once(function, shapes)
    dead_code.drop_dead_temporaries(function)  # (a trip count no tape needed reads what folds)
    function = fold.fold(function, owners)
    exactness = exact.Exact()
    function = exactness.visit(function)
    summed_first.rewrite(function)
    spreads.spread_folded(function, shapes)
    liveness.drop_dead_put_backs(function)
    unkept = unread_stacks.drop_unread_stacks(function)
    if unread_stacks.fix_room_checks(function) or unkept:
        unread_stacks.drop_idle_counters(function)
    if unkept or exactness.doubled:  # what they kept, or what `2 * (g * w)` reads once, may
        function = fold.fold(function, owners)  # fold now
    copies.propagate(function)
    in_place.extremum_in_place(function, owners)
    copies.drop_repeats(function)
    copies.drop_private_copies(function)
    dead_code.drop_dead_temporaries(function)
    dead_code.drop_bare_comments(function)
    return function
