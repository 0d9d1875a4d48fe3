"""Small constructors and queries for the gast nodes the generator builds."""
import gast


class Comment(gast.stmt):
    """A `# text` line in generated code (printed by the emitter)."""
    _fields = ("text",)


def name(identifier, store=False):
    return gast.Name(identifier, gast.Store() if store else gast.Load(), None, None)


def assign(target, value):
    return gast.Assign([name(target, store=True)], value, None)


def call(dotted, *args):
    """`rt.zeros_like(x)` from ("rt.zeros_like", x)."""
    module, attribute = dotted.split(".")
    return gast.Call(gast.Attribute(name(module), attribute, gast.Load()), list(args), [])


def names(node):
    """Every identifier in a tree."""
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name)}
