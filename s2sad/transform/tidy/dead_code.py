"""What tidying left with nothing to do goes: temporaries nothing reads any more, and
`# grad of:` comments with no code under them.

    _t17 = 3 * hidden                  # folded into its one reader
    # grad of: y = x * 2   [f.py:3]   -->  # grad of: x = sin(a)   [f.py:2]
    # grad of: x = sin(a)   [f.py:2]       da = dx * numpy.cos(a)
    da = dx * numpy.cos(a)
"""
import gast

from .. import nodes
from ..nodes import Comment
from . import copies

def drop_dead_temporaries(function):
    """A temporary that nothing reads any more (`_t17 = 3 * hidden`, whose value folding put
    where it was read) goes, with what only it read, when computing it has no effect."""
    while True:
        read = nodes.names_loaded(function)
        dropped = False
        for statements in nodes.statement_lists(function):
            keep = [s for s in statements if not _dead(s, read)]
            if len(keep) != len(statements):
                nodes.keep_only(statements, keep)
                dropped = True
        if not dropped:
            return


def _dead(statement, read):
    if not (isinstance(statement, gast.Assign) and len(statement.targets) == 1):
        return False
    target = statement.targets[0]
    return isinstance(target, gast.Name) and target.id not in read and \
        (target.id.lstrip("d").startswith("_t") or copies.PROTECTED.match(target.id)) and \
        _no_effect(statement.value)


def _no_effect(node):
    """Arithmetic on names and constants, subscripts and attributes of names: nothing that
    can raise or write (a call can)."""
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    if isinstance(node, gast.BinOp):
        return not isinstance(node.op, (gast.Div, gast.FloorDiv, gast.Mod, gast.MatMult,
                                        gast.Pow)) and \
            _no_effect(node.left) and _no_effect(node.right)
    if isinstance(node, gast.UnaryOp):
        return _no_effect(node.operand)
    if isinstance(node, gast.Call) and nodes.dotted_parts(node.func) == ["len"] and \
            len(node.args) == 1 and isinstance(node.args[0], gast.Call) and \
            nodes.dotted_parts(node.args[0].func) == ["range"]:
        # a trip count (`_trips2 = len(range(1, n))`): the loop after it raises what it raises
        return all(_no_effect(a) for a in node.args[0].args) and not node.args[0].keywords
    return False


def drop_bare_comments(function):
    """A `# grad of:` comment with no code under it (what it had was tidied away, or the next
    lines belong to a loop of its own comment) goes."""
    for statements in nodes.statement_lists(function):
        bare = [s for s, after in zip(statements, statements[1:] + [None])
                if isinstance(s, Comment) and s.text.startswith("grad of: ") and
                (after is None or isinstance(after, Comment))]
        if bare:
            nodes.keep_only(statements, [s for s in statements if s not in bare])
