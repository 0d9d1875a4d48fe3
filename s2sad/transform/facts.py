"""The annotations a stage leaves on a node (or a function) for later stages, declared once.

Each annotation is a `Fact`: the attribute it lives in, what it holds, the modules that write
it and those that read it. Code touches annotations only through these objects:

    facts.REF.of(node)            what the node has, else the fact's default (None unless said)
    facts.REF.of(node, default)   ... else `default`
    facts.REF.on(node)            whether the node has it
    facts.REF.put(node, value)    set it (checked against `holds_type` under tests)

    call.s2sad_ref = numpy.sin    -->    facts.REF.put(call, numpy.sin)
    getattr(n, "s2sad_ref", None) -->    facts.REF.of(n)

tests/test_facts.py fails when code outside this module spells an `s2sad_...` attribute, when a
fact is written or read by a module not declared here, or when nothing reads a fact. A new
annotation starts here: its name, what it holds, who writes it, who may read it.

Module names are relative to s2sad.transform ("front/normalize"). Copies of nodes carry their
annotations (nodes.clone copies them; normalize carries a compound statement's own).
"""
import dataclasses
import os

_NO_DEFAULT = object()
# Set by the tests (tests/test_facts.py, through S2SAD_CHECK_FACTS=1): `put` checks the type.
CHECK = os.environ.get("S2SAD_CHECK_FACTS") == "1"


@dataclasses.dataclass(frozen=True)
class Fact:
    name: str               # the attribute is s2sad_<name>
    holds: str              # what it holds, in words
    holds_type: tuple       # the Python types its values have
    writers: tuple          # modules that put it
    readers: tuple          # modules that read it
    default: object = None  # what `of` gives for a node without it
    holder: str = "node"    # "node", or "function" for a function object

    @property
    def attribute(self):
        return "s2sad_" + self.name

    def of(self, node, default=_NO_DEFAULT):
        return getattr(node, self.attribute, self.default if default is _NO_DEFAULT else default)

    def on(self, node):
        return hasattr(node, self.attribute)

    def put(self, node, value):
        if CHECK and not isinstance(value, self.holds_type):
            raise TypeError(f"facts.{self.name.upper()} holds {self.holds_type}, "
                            f"not {type(value).__name__}")
        setattr(node, self.attribute, value)


def carry(new, old, but=()):
    """Give `new` every annotation `old` has, except the facts in `but`."""
    skipped = {fact.attribute for fact in but}
    for key, value in vars(old).items():
        if key.startswith("s2sad_") and key not in skipped:
            setattr(new, key, value)


_SET = (set, frozenset)
_NAMES = (set, frozenset, list, tuple)
_ANY = (object,)

# ---- the front end -----------------------------------------------------------------------------

REF = Fact(
    "ref", "the object a name or call denotes (a NumPy function, a user function, `range`,"
    " a module, a helper of rt): how later stages know what `np.sum` or `g(x)` calls",
    _ANY, ("front/resolve", "front/resolve_values", "front/normalize", "front/idioms",
           "front/constants", "front/container_arguments", "front/container_buffers",
           "front/container_values", "front/library_calls", "generate/scalar_loops",
           "generate/replay", "front/kind_tests", "front/container_methods",
           "front/local_values", "analysis/kinds"),
    ("front/recursion", "front/kind_tests", "front/container_values", "front/normalize",
     "front/resolve",
     "front/idioms", "front/constants", "front/inline", "front/container_arguments",
     "front/containers", "front/container_calls", "front/container_elements",
     "front/container_buffers", "analysis/activity", "analysis/aliases",
     "analysis/clogs", "analysis/kinds", "analysis/loop_shapes", "analysis/returns",
     "generate/blocks", "generate/checkpoint", "generate/forward", "generate/recompute",
     "generate/saves", "generate/scalar_loops", "generate/replay", "template", "pipeline"))
USER = Fact(
    "user", "the name or call is a function of the user's (generated recursively, or inlined)",
    (bool,), ("front/resolve", "front/normalize", "front/container_methods"),
    ("front/normalize", "front/constants", "front/container_values", "front/resolve",
     "front/inline", "front/containers", "front/container_calls", "front/container_elements",
     "front/container_tests", "front/kind_tests",
     "analysis/aliases", "analysis/kinds", "generate/blocks", "generate/forward",
     "generate/saves", "generate/scalar_loops", "generate/replay", "pipeline"), default=False)
CANONICAL = Fact(
    "canonical", "a name desugar spelt the emitter's way already (`numpy.inf`): resolve leaves"
    " it", (bool,), ("front/desugar",), ("front/resolve",), default=False)
NUMPY = Fact(
    "numpy", "a reduction desugar reads was the user's NumPy spelling (`np.sum(x)`), not a"
    " builtin (`sum(x)`)", (bool,), ("front/desugar",), ("front/desugar",), default=False)
LOOP_ITER = Fact(
    "loop_iter", "the iterable of a `for`: the fence words its errors for a loop",
    (bool,), ("front/fence",), ("front/fence",), default=False)
FIELD = Fact(
    "field", "an attribute or subscript reading a field of a dict, NamedTuple or dataclass"
    " (containers read it; False once reported)", (bool,),
    ("front/resolve", "front/resolve_values", "front/container_values"),
    ("front/container_arguments", "front/container_values"), default=False)
METHOD = Fact(
    "method", "a method call on an object an argument holds (`var.pdf(y)`, var an element of a"
    " list of objects): bound when containers know the object", (bool,), ("front/resolve",),
    ("front/container_values", "front/container_arguments"), default=False)
PATH = Fact(
    "path", "a parameter made from a container's leaf: its path for messages (`params['W1']`)",
    (str,), ("front/container_arguments",), ("analysis/clogs",))
STRUCTURES = Fact(
    "structures", "a function copy taking one parameter per container leaf: the containers'"
    " specs", (tuple,), ("front/container_arguments",), ("front/container_arguments",),
    default=(), holder="function")
CELLS = Fact(
    "cells", "a function's parameters that hold objects' fields in cells (1-element arrays its"
    " code writes, `self.n_fe += 1`), or its functions' state attributes"
    " (`constructL.Lparamidx`), each with the field's path (`self.n_fe`): the generated"
    " function works on copies and leaves the new values in them where its forward sweep"
    " ends", (dict,), ("front/container_values", "front/function_state", "front/constants"),
    ("analysis/aliases", "generate/effects", "generate/saves", "front/container_values",
     "front/function_state", "front/constants"))
STATE = Fact(
    "state", "a name reading the cell that holds a function's state attribute"
    " (`constructL_Lparamidx` of `constructL.Lparamidx`): an input, not a global",
    (bool,), ("front/function_state",), ("front/resolve",), default=False)
TYPES = Fact(
    "types", "a function copy a caller made for the kinds of the arguments it passes:"
    " (parameter, known_kinds.describe key) pairs", (frozenset,),
    ("front/kind_tests", "front/container_arguments"), ("front/kind_tests",
                                                      "front/container_arguments", "pipeline"),
    default=frozenset(), holder="function")
DEFAULTED = Fact(
    "defaulted", "a constant a caller passes for a parameter it leaves to its default: the"
    " callee is specialised on it, a number too", (bool,), ("front/kind_tests",),
    ("front/container_values",))
ORIGINAL = Fact(
    "original", "a function copy taking one parameter per container leaf: the user's function",
    _ANY, ("front/container_arguments",), ("front/container_arguments",), holder="function")
ORIGIN = Fact(
    "origin", "the user's statement a generated statement comes from: its `# grad of:`"
    " comment and line", _ANY,
    ("front/inline", "front/containers", "front/container_buffers", "front/exits",
     "front/normalize", "generate/scalar_loops", "generate/effects"),
    ("front/inline", "front/containers", "front/container_buffers", "front/exits",
     "front/normalize", "analysis/aliases", "generate/blocks", "generate/checkpoint",
     "generate/effects", "generate/forward", "generate/scalar_loops", "generate/tape"))
EXITS = Fact(
    "exits", "a loop's exit flags, tested after each trip (break, return inside it)",
    (list,), ("front/exits",),
    ("generate/checkpoint", "generate/forward", "generate/tape", "pipeline"))
GUARD = Fact(
    "guard", "an `if not <flag>:` exits put around what follows a possible exit",
    (bool,), ("front/exits",), ("generate/forward", "generate/tape"), default=False)
IN_PLACE = Fact(
    "in_place", "`a += b` on an array: a write into it", (bool,), ("front/normalize",),
    ("analysis/aliases",), default=False)
HOOK = Fact(
    "hook", "`with s2sad.grad_of(x) as dx:`: (the name of dx, the body run on it)", (tuple,),
    ("front/normalize",), ("generate/blocks",))
EFFECT = Fact(
    "effect", "a `print(...)`, `raise ...` or bare call of a function of the user's, held as"
    " an assignment to a name nothing reads until the sweeps are built: \"print\", \"raise\""
    " or \"call\"", (str,), ("front/normalize",), ("generate/effects", "generate/raise_messages"))
DRAW = Fact(
    "draw", "a call drawing random numbers (numpy.random, a method of a RandomState or"
    " Generator): run once, in the forward sweep; its arguments carry no gradient", (bool,),
    ("front/resolve", "front/resolve_values", "front/normalize"),
    ("front/normalize", "front/container_values", "generate/blocks", "generate/forward",
     "generate/replay", "pipeline"), default=False)
REPLAY = Fact(
    "replay", "a call of a function of the user's that draws random numbers: the name holding"
    " the generators' states kept just before it (rt.draw_state), replayed before its adjoint",
    (str,), ("generate/replay",), ("generate/blocks",))
CHECKPOINT = Fact(
    "checkpoint", "a checkpointed loop: how many trips between snapshots", _ANY,
    ("front/normalize",), ("generate/checkpoint",))

# ---- analyses ----------------------------------------------------------------------------------

VARIED = Fact(
    "varied", "the varied names a statement reads (they depend on a `wrt` parameter)", _SET,
    ("analysis/activity",), ("analysis/activity", "analysis/clogs", "generate/blocks",
                             "generate/forward", "generate/reverse"))
VARIED_HEAD = Fact(
    "varied_head", "the names varied at the head of a loop or `if`", _SET,
    ("analysis/activity",), ("analysis/activity",))
RESULT_VARIED = Fact(
    "result_varied", "a statement's result depends on a `wrt` parameter", (bool,),
    ("analysis/activity",), ("analysis/activity", "analysis/clogs", "generate/forward"),
    default=False)
ACTIVE = Fact(
    "active", "the statement gets an adjoint: its result is varied and useful", (bool,),
    ("analysis/activity",), ("analysis/activity", "generate/reverse"), default=False)
KILLS = Fact(
    "kills", "an inactive assignment: the names it assigns whose adjoint may be nonzero (they"
    " are zeroed there)", _SET, ("analysis/activity",), ("analysis/activity", "generate/reverse"))
LIVE = Fact(
    "live", "names varied and useful just before a compound statement (a loop: at its head)",
    _SET, ("analysis/activity",), ("generate/reverse",))
DEFINED = Fact(
    "defined", "names certainly assigned before the statement", _SET, ("analysis/activity",),
    ("generate/checkpoint", "generate/saves"))
MAYBE = Fact(
    "maybe", "names possibly assigned before the statement", _SET, ("analysis/activity",),
    ("generate/saves",))
CUT = Fact(
    "cut", "why the gradient stops at this write (\"integer\": into an integer array)", (str,),
    ("analysis/clogs",), ("analysis/activity", "analysis/clogs", "generate/forward"))
SCALARS = Fact(
    "scalars", "names holding Python scalars just before the statement", _SET,
    ("analysis/kinds",),
    ("analysis/aliases", "analysis/kinds", "analysis/loop_shapes", "generate/blocks",
     "generate/checkpoint", "generate/forward", "generate/recompute", "generate/reverse",
     "generate/saves", "generate/scalar_loops", "generate/tape"))
INTS = Fact(
    "ints", "names holding Python ints just before the statement", _SET, ("analysis/kinds",),
    ("analysis/aliases", "analysis/kinds", "analysis/loop_shapes", "generate/blocks",
     "generate/recompute", "generate/reverse", "generate/saves", "generate/scalar_loops",
     "generate/tape"))
RANKS = Fact(
    "ranks", "name -> number of dimensions of the arrays known just before the statement",
    (dict,), ("analysis/kinds",),
    ("analysis/aliases", "analysis/kinds", "analysis/loop_shapes", "generate/blocks",
     "generate/recompute", "generate/reverse", "generate/saves", "generate/scalar_loops",
     "generate/tape"))
SCALARS_AFTER = Fact(
    "scalars_after", "an `if` or loop: the names holding Python scalars after it", _SET,
    ("analysis/kinds",), ("generate/reverse",))
SHAPES = Fact(
    "shapes", "a function (its tree): name -> shape class, names sharing one class have one"
    " shape", (dict,), ("analysis/kinds", "generate/reverse"),
    ("analysis/kinds", "generate/blocks", "tidy/order"))
LIVE_AFTER = Fact(
    "live_after", "names read after the statement on some path", _SET, ("analysis/aliases",),
    ("analysis/aliases",))

# ---- generation, read by later generation steps and by tidy passes -----------------------------

SCALAR = Fact(
    "scalar", "an adjoint statement whose value is a number (fold may repeat a cheap one)",
    (bool,), ("generate/adjoints",), ("tidy/fold",), default=False)
BASIC = Fact(
    "basic", "a scatter `dvar[index] += ...` whose index reads a view or one element", (bool,),
    ("generate/blocks",), ("tidy/in_place",), default=False)
CLASS = Fact(
    "class", "a gradient expression: the shape class kinds saw for it", _ANY,
    ("generate/blocks",), ("tidy/spreads",))
RANK = Fact(
    "rank", "a gradient spread over an axis: the rank of what is spread", (int, type(None)),
    ("generate/blocks",), ("tidy/in_place", "tidy/spreads"))
LIKE_RANK = Fact(
    "like_rank", "a gradient summed to an argument's shape: the argument's rank",
    (int, type(None)), ("generate/blocks",), ("tidy/summed_first",))
OUTER = Fact(
    "outer", "a matrix product's gradient that is an outer product (a 2-D by a 1-D operand)",
    (bool,), ("generate/blocks",), ("generate/defer",), default=False)
OPERAND_RANKS = Fact(
    "operand_ranks", "a matrix product's gradient: the ranks of the product's operands",
    (list,), ("generate/blocks",), ("tidy/summed_first",))
ARRAY = Fact(
    "array", "a kept value that is an array, not a number: no preallocated float stack",
    (bool,), ("generate/saves",), ("generate/saves",), default=False)
SNAPSHOT = Fact(
    "snapshot", "a checkpointed loop: the names each snapshot keeps", (list,),
    ("generate/checkpoint",), ("generate/checkpoint",))
TAPED = Fact(
    "taped", "a forward loop that keeps values: the statement whose trips it counts", _ANY,
    ("generate/tape",), ("generate/counted",))
REVERSED = Fact(
    "reversed", "a backward loop: the forward statement whose trips it undoes", _ANY,
    ("generate/tape",), ("generate/counted",))
EXTERNAL = Fact(
    "external", "a name in a filled template that is a function of the template's module",
    _ANY, ("template",), ("pipeline",))

ALL = tuple(value for value in list(globals().values()) if isinstance(value, Fact))
