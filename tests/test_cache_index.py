"""The index of generated files (s2sad/transform/index.py): a second process finds the generated
gradient without transforming again, and anything that changes what would be generated (the
function's source, a callee's, a global number inlined in the code, the kinds of the arguments,
a user rule) or damages what was filed (the entry, a generated file) is a miss: transformed
again, with the right numbers.

The processes are fresh (PROBE): what one process leaves on disk for the next is the point.
Most run the generated code as Python (S2SAD_DISABLE_JIT=1: the index does not depend on it);
one compiles, to see Numba's cache serve the second process too."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from gradcheck import assert_close, finite_difference
from s2sad.transform.emit import index
from s2sad.transform import pipeline
from s2sad import templates


@pytest.fixture(autouse=True)
def rules_of_this_process_are_built_in(monkeypatch):
    """A rule another test registered earlier in this process turns the index off (its text
    depends on that rule); these tests count what is registered when they start as built in,
    so that they do not depend on the order the tests run in (pytest-xdist's)."""
    monkeypatch.setattr(index, "_BUILT_IN_RULES", templates.user_generation())

PROBE = textwrap.dedent("""
    import json, os, sys, time, warnings
    sys.path.insert(0, sys.argv[1])
    spec = json.loads(sys.argv[2])
    import numpy as np
    import s2sad
    from s2sad.runtime import jit
    from s2sad.transform import pipeline
    module = __import__(spec["module"])

    def plain(value):
        if isinstance(value, (tuple, list)):
            return [plain(v) for v in value]
        return np.asarray(value).tolist()

    for name, value in spec.get("set", {}).items():  # "SCALE", "Config.SCALE"
        holder, _, name = name.rpartition(".")
        setattr(eval(holder, vars(module)) if holder else module, name, value)
    if spec.get("barrier"):  # imported: wait while the test edits the file
        open(spec["barrier"] + ".ready", "w").close()
        while not os.path.exists(spec["barrier"]):
            time.sleep(0.01)
    out = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for args in spec["calls"]:
            make = getattr(s2sad, spec.get("make", "grad"))
            try:
                function = make(getattr(module, spec.get("function", "f")),
                                **spec.get("options", {}))
                result = function(*eval(args, {"np": np}))
            except s2sad.S2sadError as exc:
                out.append({"error": type(exc).__name__, "message": str(exc)})
                continue
            call = {"result": plain(result),
                    "path": os.path.basename(function.path)}
            if spec.get("jit"):
                compiled = getattr(jit.load(function.path, jit.JIT),
                                   function.generated.function)
                call["numba hits"] = sum(compiled.stats.cache_hits.values())
                call["numba misses"] = sum(compiled.stats.cache_misses.values())
            out.append(call)
    print(json.dumps({"calls": out, "stats": pipeline.STATS,
                      "stages": sorted(m for m in sys.modules if m.startswith("s2sad.")),
                      "warnings": [f"{w.category.__name__}: {w.message}" for w in caught]}))
""")

MODEL = """
import numpy as np

from {helpers} import helper

SCALE = {scale}


def f(x, w):
    y = helper(x, w) * SCALE
    return np.sum(y * y) + w * {offset}
"""

HELPERS = """
import numpy as np


def helper(x, w):
    return np.tanh(x * w) * {factor}
"""

VECTOR = "(np.array([0.3, -1.2, 0.7]), 0.9)"
SCALARS = "(0.3, 0.9)"


def write(directory, name, text):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, f"{name}.py"), "w") as handle:
        handle.write(textwrap.dedent(text))


def model(directory, name="model", scale=2.0, factor=1.0, offset=0.5):
    """model.py and its callee's module, helpers_<name>.py; returns the function as Python."""
    write(directory, f"helpers_{name}", HELPERS.format(factor=factor))
    write(directory, name, MODEL.format(helpers=f"helpers_{name}", scale=scale, offset=offset))

    def f(x, w):
        y = np.tanh(x * w) * factor * scale
        return np.sum(y * y) + w * offset
    return f


def probe(directory, cache_dir, calls, jit=False, barrier=None, **spec):
    process = start(directory, cache_dir, calls, jit, barrier, **spec)
    return finish(process)


def start(directory, cache_dir, calls, jit=False, barrier=None, **spec):
    env = dict(os.environ, S2SAD_CACHE_DIR=str(cache_dir), PYTHONDONTWRITEBYTECODE="1")
    env.pop("S2SAD_DISABLE_JIT", None)
    env.pop(index.ENV_SWITCH, None)
    env.pop("NUMBA_OPT", None)  # as users run it (conftest.py compiles the suite unoptimised)
    if not jit:
        env["S2SAD_DISABLE_JIT"] = "1"
    env.update(spec.pop("env", {}))
    spec = dict({"module": "model"}, calls=calls, jit=jit, barrier=barrier, **spec)
    return subprocess.Popen([sys.executable, "-c", PROBE, str(directory), json.dumps(spec)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(process):
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])


def expected(f, args, wrt=0):
    return finite_difference(f, eval(args, {"np": np}), wrt)


def hit(result):
    return result["stats"] == {"transformed": 0, "from index": 1}


def entries(cache_dir):
    directory = os.path.join(cache_dir, index.DIRECTORY)
    return sorted(os.path.join(directory, f) for f in os.listdir(directory))


# ---- a second process finds what the first generated -----------------------------------------

def test_the_second_process_does_not_transform_and_numba_serves_it(tmp_path):
    f = model(tmp_path / "mod")
    first = probe(tmp_path / "mod", tmp_path / "cache", [VECTOR], jit=True)
    second = probe(tmp_path / "mod", tmp_path / "cache", [VECTOR], jit=True)
    assert first["stats"]["transformed"] >= 2 and first["stats"]["from index"] == 0
    assert hit(second), second["stats"]
    assert second["calls"] == [dict(first["calls"][0], **{"numba hits": 1, "numba misses": 0})]
    assert_close(second["calls"][0]["result"], expected(f, VECTOR))
    assert not second["warnings"]


def test_a_hit_gives_the_same_warnings_and_other_modes_are_found_too(tmp_path):
    """Findings (here: a parameter the output does not depend on) are filed with the entry;
    jvp (forward mode) and vjp (the adjoint without the scalar check) are indexed as well."""
    write(tmp_path / "mod", "model", """
        import numpy as np


        def f(x, w, unused):
            return np.sum(np.sin(x) * w)
    """)
    args = "(np.array([0.3, -1.2]), 0.9, 2.0)"
    wanted = {"options": {"wrt": [0, 2]}}
    first = probe(tmp_path / "mod", tmp_path / "cache", [args], **wanted)
    second = probe(tmp_path / "mod", tmp_path / "cache", [args], **wanted)
    assert hit(second) and second["calls"] == first["calls"]
    assert second["warnings"] == first["warnings"]
    assert any("ZeroGradientWarning" in w and "'unused'" in w for w in second["warnings"])
    for make, options, args in [("jvp", {"wrt": 0}, "(np.array([0.3, -1.2]), 0.9, 2.0, "
                                 "np.array([1.0, 0.0]))"),
                                ("vjp", {"wrt": 1}, "(np.array([0.3, -1.2]), 0.9, 2.0, 1.0)")]:
        once = probe(tmp_path / "mod", tmp_path / "cache", [args], make=make, options=options)
        again = probe(tmp_path / "mod", tmp_path / "cache", [args], make=make, options=options)
        assert once["stats"]["transformed"] >= 1 and hit(again), (make, again["stats"])
        assert again["calls"] == once["calls"], make


# ---- what changes the generated text is a miss -----------------------------------------------

@pytest.mark.parametrize("edit", ["function", "callee"])
def test_an_edited_function_or_callee_is_transformed_again(tmp_path, edit):
    model(tmp_path / "mod")
    first = probe(tmp_path / "mod", tmp_path / "cache", [VECTOR])
    changed = dict(offset=1.5) if edit == "function" else dict(factor=3.0)
    f = model(tmp_path / "mod", **changed)
    second = probe(tmp_path / "mod", tmp_path / "cache", [VECTOR])
    assert second["stats"]["transformed"] >= 1, second["stats"]
    assert second["calls"][0]["path"] != first["calls"][0]["path"]
    assert_close(second["calls"][0]["result"], expected(f, VECTOR))
    assert hit(probe(tmp_path / "mod", tmp_path / "cache", [VECTOR]))  # filed again


def test_a_rebound_global_number_is_transformed_again(tmp_path):
    """SCALE is inlined in the generated code: its value, not only the file, is in the key."""
    model(tmp_path / "mod", scale=2.0)
    first = probe(tmp_path / "mod", tmp_path / "cache", [VECTOR])
    rebound = probe(tmp_path / "mod", tmp_path / "cache", [VECTOR], set={"SCALE": 3.0})
    assert rebound["stats"]["transformed"] >= 1, rebound["stats"]
    assert_close(rebound["calls"][0]["result"], expected(model(tmp_path / "x", scale=3.0),
                                                         VECTOR))
    assert hit(probe(tmp_path / "mod", tmp_path / "cache", [VECTOR], set={"SCALE": 3.0}))
    again = probe(tmp_path / "mod", tmp_path / "cache", [VECTOR])
    assert hit(again) and again["calls"] == first["calls"]


def test_a_rebound_class_attribute_is_transformed_again(tmp_path):
    write(tmp_path / "mod", "model", """
        import numpy as np


        class Config:
            SCALE = 2.0


        def f(x, w):
            return np.sum(np.sin(x) * w) * Config.SCALE
    """)
    args = "(np.array([0.3, -1.2]), 0.9)"
    first = probe(tmp_path / "mod", tmp_path / "cache", [args])
    rebound = probe(tmp_path / "mod", tmp_path / "cache", [args], set={"Config.SCALE": 3.0})
    assert rebound["stats"]["transformed"] >= 1, rebound["stats"]
    assert_close(rebound["calls"][0]["result"], np.cos([0.3, -1.2]) * 0.9 * 3.0)
    assert_close(first["calls"][0]["result"], np.cos([0.3, -1.2]) * 0.9 * 2.0)


def test_other_argument_kinds_are_transformed_again(tmp_path):
    f = model(tmp_path / "mod")
    probe(tmp_path / "mod", tmp_path / "cache", [VECTOR])
    scalars = probe(tmp_path / "mod", tmp_path / "cache", [SCALARS])
    assert scalars["stats"]["transformed"] >= 1, scalars["stats"]
    assert_close(scalars["calls"][0]["result"], expected(f, SCALARS))
    both = probe(tmp_path / "mod", tmp_path / "cache", [VECTOR, SCALARS])
    assert both["stats"] == {"transformed": 0, "from index": 2}
    assert_close(both["calls"][0]["result"], expected(f, VECTOR))
    assert both["calls"][1] == scalars["calls"][0]


def test_a_user_rule_turns_the_index_off(tmp_path):
    write(tmp_path / "mod", "model", """
        import numpy as np
        import s2sad
        from s2sad import d


        def bump(x):
            return x * x


        @s2sad.adjoint(bump)
        def bump_adjoint(z, x):
            d[x] = d[z] * 2.0 * x


        def f(x, w):
            return np.sum(bump(x)) * w
    """)
    for _ in range(2):
        result = probe(tmp_path / "mod", tmp_path / "cache", [VECTOR])
        assert result["stats"]["from index"] == 0 and result["stats"]["transformed"] >= 1
        assert_close(result["calls"][0]["result"], 2.0 * np.array([0.3, -1.2, 0.7]) * 0.9)
    assert not os.path.exists(tmp_path / "cache" / index.DIRECTORY)


def test_a_function_edited_after_its_import_is_not_served_the_new_files_gradient(tmp_path):
    """A process that imported the old file runs the old code: an entry another process filed
    for the new text must not serve it (it gets the error saying so, as without the index)."""
    model(tmp_path / "mod", offset=0.5)
    barrier = str(tmp_path / "go")
    old = start(tmp_path / "mod", tmp_path / "cache", [VECTOR], barrier=barrier)
    while not os.path.exists(barrier + ".ready"):
        assert old.poll() is None, old.communicate()
    model(tmp_path / "mod", offset=1.5)
    new = probe(tmp_path / "mod", tmp_path / "cache", [VECTOR])
    assert new["stats"]["transformed"] >= 1
    open(barrier, "w").close()
    stale = finish(old)
    assert stale["stats"]["from index"] == 0
    assert stale["calls"][0].get("error") == "UnsupportedError", stale["calls"]
    assert "is not the code it runs" in stale["calls"][0]["message"]


# ---- what is damaged is a miss, never a crash ----------------------------------------------

@pytest.mark.parametrize("damage", ["truncated entry", "garbage entry", "empty entry",
                                    "entry of another shape", "edited generated file",
                                    "deleted callee file"])
def test_a_damaged_entry_or_file_is_a_miss(tmp_path, damage):
    f = model(tmp_path / "mod")
    cache_dir = tmp_path / "cache"
    first = probe(tmp_path / "mod", cache_dir, [VECTOR])
    top = next(p for p in entries(cache_dir)
               if json.load(open(p))["file"] == first["calls"][0]["path"])
    files = sorted(json.load(open(top))["files"])
    if damage == "truncated entry":
        text = open(top).read()
        open(top, "w").write(text[:len(text) // 2])
    elif damage == "garbage entry":
        open(top, "wb").write(b"\x80\x81 not json at all \xff")
    elif damage == "empty entry":
        open(top, "w").close()
    elif damage == "entry of another shape":
        open(top, "w").write(json.dumps({"format": 1, "key": os.path.basename(top)[:-5],
                                         "files": [1, 2]}))
    elif damage == "edited generated file":
        path = cache_dir / first["calls"][0]["path"]
        path.write_text(path.read_text().replace("return", "return 0.0 *", 1))
    else:
        callee = next(name for name in files if name != first["calls"][0]["path"])
        os.unlink(cache_dir / callee)
    second = probe(tmp_path / "mod", cache_dir, [VECTOR])
    assert second["stats"]["transformed"] >= 1, second["stats"]
    assert second["calls"] == first["calls"]
    assert_close(second["calls"][0]["result"], expected(f, VECTOR))
    assert hit(probe(tmp_path / "mod", cache_dir, [VECTOR]))  # written again


# ---- in this process ---------------------------------------------------------------------------

ARRAY = np.ones(3)


def reads_an_array(x):
    return np.sum(x * ARRAY)


class _Settings:
    scale = 2.0


SETTINGS = _Settings()


def reads_an_object(x):
    return np.sum(x * SETTINGS.scale)


def plain(x):
    return np.sum(np.sin(x))


def test_what_cannot_be_described_has_no_key(monkeypatch):
    assert index.key(plain, ("adjoint", (0,))) is not None
    # a module array is an input of generated code: described by dtype and rank
    assert index.key(reads_an_array, ("adjoint", (0,))) is not None
    assert index.key(reads_an_object, ("adjoint", (0,))) is None
    monkeypatch.setenv(index.ENV_SWITCH, "0")
    assert index.key(plain, ("adjoint", (0,))) is None


def test_the_key_covers_the_mode_and_the_kinds():
    keys = {index.key(plain, what) for what in [("adjoint", (0,), ((), (), ())),
                                                 ("adjoint", (0,), (("'x'",), (), ())),
                                                 ("tangent", (0,), ((), (), ())),
                                                 ("primal",)]}
    assert len(keys) == 4 and None not in keys


def test_an_entry_names_every_file_it_links(tmp_path, monkeypatch):
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(tmp_path / "cache"))
    write(tmp_path / "mod", "helpers_linked_model", HELPERS.format(factor=1.0))
    module = _import(tmp_path / "mod", "linked_model", MODEL.format(
        helpers="helpers_linked_model", scale=2.0, offset=0.5))
    generated = pipeline.gradient(module.f, (0,))
    (entry,) = [p for p in entries(tmp_path / "cache")
                if json.load(open(p))["file"] == os.path.basename(generated.path)]
    files = json.load(open(entry))["files"]
    assert os.path.basename(generated.path) in files and len(files) == 3  # f, helper's copy
    assert all(os.path.exists(tmp_path / "cache" / name) for name in files)  # and adjoint


def _import(directory, name, text):
    write(directory, name, text)
    sys.path.insert(0, str(directory))
    try:
        return __import__(name)
    finally:
        sys.path.remove(str(directory))


def test_a_process_transforms_again_what_it_has_seen(monkeypatch, tmp_path):
    """The index is for what other processes generated: a dropped memo (globals rebound, a test
    starting afresh) or a copy of the function is transformed again, and filed."""
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(tmp_path / "cache"))
    before = dict(pipeline.STATS)
    first = pipeline.gradient(plain, (0,))
    monkeypatch.setattr(pipeline, "_done", {})
    again = pipeline.gradient(plain, (0,))
    assert again.text == first.text
    assert pipeline.STATS["transformed"] == before["transformed"] + 2
    assert pipeline.STATS["from index"] == before["from index"]
    assert len(entries(tmp_path / "cache")) == 1
