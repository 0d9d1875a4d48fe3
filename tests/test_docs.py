"""The examples in README.md and docs/*.md run, and show what they really print; the pages'
links lead somewhere (issue 19).

How a page marks its fenced blocks (the info string after the opening ```):

    python              runs. A page's blocks run in order, in one namespace per page, each
                        from a file of its own in a fresh directory (s2sad reads the source of
                        the functions they define), with S2SAD_DISABLE_JIT=1: the generated
                        files are the same, and Numba's compile time stays out of this test
    python file=NAME    runs from the file NAME (e.g. model.py), so that tracebacks and the
                        comments of generated code name it (`[model.py:4]`)
    python jit          runs with the JIT on (an example about it; each compile costs seconds).
                        Numba's own print() writes past sys.stdout: do not check its output
    python norun        shown, not run: a fragment, an excerpt or a sketch
    output              what the run block before it printed (stdout and stderr, warnings
    python output       included), compared line by line; `python output` is the same,
                        highlighted as Python (generated code)
    console             `$ s2sad ...` lines, each followed by what the command prints: the
                        commands run (in this process, from the checkout) and must print it
    sh, text            shown, not run (commands to try, a debugger session)

Output is compared after stripping trailing whitespace and leading and trailing blank lines,
with the checkout read as /home/me/s2sad, the page's directory as /home/me/project and the cache
directory as /home/me/.cache/s2sad, the 16 hex digits naming a generated file (which change with
s2sad's runtime and versions) read as one placeholder, and floats printed with 13 or more
decimals compared to 12 significant digits (their last digits may differ between CPUs). A line
`...` in a shown output (optionally followed by `# a comment`) stands for any number of lines:
an excerpt.

When the code s2sad generates or prints changes, these tests fail, naming the page and block.
`python tests/test_docs.py [PAGE ...]` prints what each block prints now, and `--update` writes
it into the output blocks that are not excerpts (edit excerpts by hand).
"""
import contextlib
import difflib
import io
import os
import re
import shlex
import sys
import traceback
import types
import warnings

import pytest

CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = ["README.md"] + sorted(
    os.path.join("docs", name) for name in os.listdir(os.path.join(CHECKOUT, "docs"))
    if name.endswith(".md"))
# Pages written by a program, not by hand: their links are checked, they hold no examples.
GENERATED = {os.path.join("docs", "coverage.md")}
SHOWN = {"python", "output", "console", "sh", "text"}
ATTRIBUTES = {"jit", "norun", "output"}
HOME = "/home/me"
DIGEST = re.compile(r"__[0-9a-f]{16}(?![0-9a-f])")
LONG_FLOAT = re.compile(r"(?<![\w.])\d+\.\d{13,}(?:e[-+]\d+)?(?![\w.])")
WILDCARD = re.compile(r"^\s*\.\.\.(\s+#.*)?$")
UPDATE_HINT = ("if the new output is right, `.venv/bin/python tests/test_docs.py --update {page}` "
               "writes it into the page (excerpts, with `...` lines, by hand: "
               "`.venv/bin/python tests/test_docs.py {page}` prints it)")


class Block:
    def __init__(self, page, line, info, lines):
        self.page, self.line, self.text = page, line, "\n".join(lines)
        words = info.split()
        self.language = words[0] if words else ""
        self.attributes = set()
        self.file = None
        for word in words[1:]:
            if word.startswith("file="):
                self.file = word[len("file="):]
            else:
                self.attributes.add(word)
        self.is_output = self.language == "output" or "output" in self.attributes
        self.runs = self.language == "python" and not self.is_output and \
            "norun" not in self.attributes
        self.end = line + len(lines) + 1  # the closing fence's line

    def where(self):
        return f"{self.page}:{self.line}"


def blocks(page):
    """Every fenced block of a page (``` fences, not indented), in order."""
    found, lines = [], open(os.path.join(CHECKOUT, page)).read().split("\n")
    i = 0
    while i < len(lines):
        match = re.match(r"^(`{3,})(.*)$", lines[i])
        if match:
            fence, start = match.group(1), i
            i += 1
            while i < len(lines) and lines[i].rstrip() != fence:
                i += 1
            if i == len(lines):
                raise AssertionError(f"{page}:{start + 1}: a fence that is never closed")
            found.append(Block(page, start + 1, match.group(2).strip(), lines[start + 1:i]))
        i += 1
    return found


# ---- running a page -------------------------------------------------------------------------

class Page:
    """Runs a page's blocks in order; `results` pairs each output block with what was printed."""

    def __init__(self, page, directory):
        self.page, self.directory = page, str(directory)
        self.module = types.ModuleType("s2sad_docs_" + re.sub(r"\W", "_", page))
        self.namespace = self.module.__dict__
        self.results = []          # (shown block, actual text, block that printed it)
        self.files = set()

    def run(self):
        page_blocks = blocks(self.page)
        printed, source = None, None
        for block in page_blocks:
            if block.runs:
                printed, source = self._run_python(block), block
            elif block.language == "console":
                for shown, actual in self._run_console(block):
                    self.results.append((shown, actual, block))
                printed, source = None, None
            elif block.is_output:
                if printed is None:
                    raise AssertionError(f"{block.where()}: an output block must follow a "
                                         "python block that runs")
                self.results.append((block, printed, source))
                printed, source = None, None
            else:
                printed, source = None, None

    def _run_python(self, block):
        name = block.file or f"{os.path.basename(self.page)[:-3].replace('-', '_')}_" \
                             f"{block.line}.py"
        if name in self.files:
            raise AssertionError(f"{block.where()}: file={name} twice on one page (a function "
                                 "read from it earlier would no longer match its file)")
        self.files.add(name)
        path = os.path.join(self.directory, name)
        with open(path, "w") as handle:
            handle.write(block.text + "\n")
        buffer = io.StringIO()
        jit = "1" if "jit" not in block.attributes else ""
        with _environment(S2SAD_DISABLE_JIT=jit), _captured(buffer):
            try:
                exec(compile(block.text + "\n", path, "exec"), self.namespace)
            except BaseException:
                raise AssertionError(f"{block.where()}: the block raised\n"
                                     f"{traceback.format_exc()}") from None
        return buffer.getvalue()

    def _run_console(self, block):
        """[(the shown command and output, what the command prints)] of a console block."""
        from s2sad.tools import cli
        commands, current = [], None
        for line in block.text.split("\n"):
            if line.startswith("$ "):
                current = [line[2:], []]
                commands.append(current)
            elif current is None:
                raise AssertionError(f"{block.where()}: a console block starts with `$ s2sad`")
            else:
                current[1].append(line)
        out = []
        for command, shown in commands:
            argv = shlex.split(command)
            if argv[0] != "s2sad":
                raise AssertionError(f"{block.where()}: console blocks hold s2sad commands only "
                                     f"(`{command}`); fence others as sh")
            buffer = io.StringIO()
            with _environment(S2SAD_DISABLE_JIT="1"), _captured(buffer), _cwd(CHECKOUT):
                cli.main(argv[1:])
            out.append((Shown(block, command, "\n".join(shown)), buffer.getvalue()))
        return out


class Shown:
    """The shown output of one command of a console block."""

    def __init__(self, block, command, text):
        self.page, self.line, self.text = block.page, block.line, text
        self.block, self.command = block, command

    def where(self):
        return f"{self.page}:{self.line}"


@contextlib.contextmanager
def _environment(**values):
    old = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in old.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextlib.contextmanager
def _cwd(path):
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


@contextlib.contextmanager
def _captured(buffer):
    def show(message, category, filename, lineno, file=None, line=None):
        buffer.write(warnings.formatwarning(message, category, filename, lineno, line))

    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer), \
            warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = show
        yield


@contextlib.contextmanager
def _page_state(directory):
    """What running a page changes, put back: the rule registry, sys.path, sys.modules."""
    from s2sad import templates
    from s2sad.templates import registry as registry_module
    registry_module.load_library_rules(everything=True)  # (kept: a page may import scipy)
    rules, tangents = dict(templates.REGISTRY), dict(templates.TANGENTS)
    modules = set(sys.modules)
    sys.path.insert(0, str(directory))
    try:
        yield
    finally:
        sys.path.remove(str(directory))
        for name in set(sys.modules) - modules:
            if str(getattr(sys.modules[name], "__file__", "") or "").startswith(str(directory)):
                del sys.modules[name]
        for registry, saved in ((templates.REGISTRY, rules), (templates.TANGENTS, tangents)):
            registry.clear()
            registry.update(saved)
        registry_module.CHANGES[0] += 1


# ---- comparing --------------------------------------------------------------------------------

def normalised(text, directory, compare=True):
    """The lines of a shown or printed text, ready to compare (`compare`) or to write."""
    cache = os.environ.get("S2SAD_CACHE_DIR")
    for path, name in ((cache, f"{HOME}/.cache/s2sad"), (str(directory), f"{HOME}/project"),
                       (CHECKOUT, f"{HOME}/s2sad")):
        if path:
            text = text.replace(os.path.realpath(path), name).replace(path, name)
    if compare:
        text = DIGEST.sub("__" + "#" * 16, text)
        # a float's last digits may differ between CPUs (NumPy's SIMD sin, exp, ...)
        text = LONG_FLOAT.sub(lambda m: format(float(m.group()), ".12g"), text)
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def matches(shown, actual):
    """Whether the shown lines are the actual ones, a `...` line standing for any number."""
    memo = {}

    def match(i, j):
        if (i, j) not in memo:
            if i == len(shown):
                memo[i, j] = j == len(actual)
            elif WILDCARD.match(shown[i]):
                memo[i, j] = any(match(i + 1, k) for k in range(j, len(actual) + 1))
            else:
                memo[i, j] = j < len(actual) and shown[i] == actual[j] and match(i + 1, j + 1)
        return memo[i, j]

    return match(0, 0)


def mismatches(page, directory):
    """[message] for every output block of the page that is not what its code prints now."""
    runner = Page(page, directory)
    with _page_state(directory):
        sys.modules[runner.module.__name__] = runner.module
        try:
            runner.run()
        finally:
            del sys.modules[runner.module.__name__]
    problems = []
    for shown, actual, source in runner.results:
        want = normalised(shown.text, directory)
        got = normalised(actual, directory)
        if not matches(want, got):
            diff = "\n".join(difflib.unified_diff(want, got, "shown in the page", "printed now",
                                                  lineterm=""))
            problems.append(f"{shown.where()}: the output shown is not what the block at "
                            f"{source.where()} prints now; "
                            f"{UPDATE_HINT.format(page=page)}\n{diff}")
    return problems, runner


EXAMPLE_PAGES = [page for page in PAGES if page not in GENERATED]


@pytest.mark.parametrize("page", EXAMPLE_PAGES)
def test_the_examples_run_and_print_what_the_page_shows(page, tmp_path):
    problems, _ = mismatches(page, tmp_path)
    assert not problems, "\n\n".join(problems)


@pytest.mark.parametrize("page", EXAMPLE_PAGES)
def test_every_block_says_whether_it_runs(page):
    """A ```python block runs unless it says `norun`; other languages are the few above."""
    text = open(os.path.join(CHECKOUT, page)).read().split("\n")
    indented = [number for number, line in enumerate(text, 1) if re.match(r"^\s+```", line)]
    assert not indented, f"{page}: lines {indented}: fences must start at the line's start " \
                         "(this test reads only those)"
    for block in blocks(page):
        assert block.language in SHOWN, \
            f"{block.where()}: ```{block.language}: fence it as one of {sorted(SHOWN)}"
        assert block.attributes <= ATTRIBUTES, \
            f"{block.where()}: unknown attributes {block.attributes - ATTRIBUTES}"
        if block.language == "python" and "norun" in block.attributes:
            assert not (block.attributes & {"jit", "output"}) and block.file is None, \
                f"{block.where()}: a norun block takes no other attributes"


def test_the_readme_shows_generated_code_that_is_checked():
    readme = blocks("README.md")
    assert any(block.is_output and block.language == "python" for block in readme), \
        "README.md shows no generated code (a ```python output block after the code making it)"


# ---- links ---------------------------------------------------------------------------------------

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def anchors(page):
    """GitHub's anchors of a Markdown page's headings."""
    found, inside = set(), False
    for line in open(os.path.join(CHECKOUT, page)).read().split("\n"):
        if line.startswith("```"):
            inside = not inside
        elif not inside and re.match(r"^#{1,6} ", line):
            title = line.lstrip("#").strip().lower()
            title = re.sub(r"[^\w\- ]", "", title.replace("`", ""))
            anchor = title.replace(" ", "-")
            while anchor in found:
                anchor += "-1"
            found.add(anchor)
    return found


def links(page):
    """[(line, target)] of the relative links of a page, outside code blocks."""
    out, inside = [], False
    for number, line in enumerate(open(os.path.join(CHECKOUT, page)).read().split("\n"), 1):
        if line.startswith("```"):
            inside = not inside
            continue
        if inside:
            continue
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if not re.match(r"^[a-z]+:", target):
                out.append((number, target))
    return out


@pytest.mark.parametrize("page", PAGES)
def test_relative_links_lead_to_files_and_headings(page):
    broken = []
    for number, target in links(page):
        path, _, anchor = target.partition("#")
        file = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        if not os.path.exists(os.path.join(CHECKOUT, file)):
            broken.append(f"{page}:{number}: {target}: no file {file}")
        elif anchor and file.endswith(".md") and anchor not in anchors(file):
            broken.append(f"{page}:{number}: {target}: no heading #{anchor} in {file}")
    assert not broken, "\n".join(broken)


def test_every_docs_page_is_linked_from_the_readme():
    linked = {os.path.normpath(target.partition("#")[0]) for _, target in links("README.md")}
    assert not [page for page in PAGES[1:] if page not in linked], linked


SOURCE_REFERENCE = re.compile(r"docs/([\w-]+\.md)(?:: (?:'([^']+)'|([A-Za-z][^),'\n]*)))?")


def headings(page):
    """The titles of a page's headings, lowercased, without backticks."""
    out, inside = set(), False
    for line in open(os.path.join(CHECKOUT, page)).read().split("\n"):
        if line.startswith("```"):
            inside = not inside
        elif not inside and re.match(r"^#{1,6} ", line):
            out.add(line.lstrip("#").strip().replace("`", "").lower())
    return out


def source_references():
    """[(file:line, page, heading or None)] of the pages that strings in s2sad/ and templates/
    point users at ("docs/rules.md: 'Adding a derivative'")."""
    import ast
    found = []
    for top in ("s2sad", "templates"):
        for directory, _, files in os.walk(os.path.join(CHECKOUT, top)):
            for name in sorted(f for f in files if f.endswith(".py")):
                path = os.path.join(directory, name)
                for node in ast.walk(ast.parse(open(path).read())):
                    if isinstance(node, ast.JoinedStr):
                        text = "".join(part.value if isinstance(part, ast.Constant) else "{}"
                                       for part in node.values)
                    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                        text = node.value
                    else:
                        continue
                    for match in SOURCE_REFERENCE.finditer(text):
                        heading = match.group(2) or match.group(3)
                        found.append((f"{os.path.relpath(path, CHECKOUT)}:{node.lineno}",
                                      os.path.join("docs", match.group(1)),
                                      heading.strip() if heading else None))
    return sorted(set(found))


def test_messages_in_the_source_point_at_pages_and_headings_that_exist():
    references = source_references()
    assert any(heading == "Adding a derivative" for _, _, heading in references), references
    broken = [f"{where}: {page}" + (f": {heading!r}" if heading else "")
              for where, page, heading in references
              if not os.path.exists(os.path.join(CHECKOUT, page))
              or heading and heading.lower() not in headings(page)]
    assert not broken, "no such page or heading:\n" + "\n".join(broken)


# ---- printing and updating the pages -------------------------------------------------------------

def _update(page, runner, directory):
    """Write what each output block's code printed into the page, except into excerpts."""
    lines = open(os.path.join(CHECKOUT, page)).read().split("\n")
    replace, excerpts = {}, set()   # block: its new lines; blocks to edit by hand
    for shown, actual, _ in runner.results:
        if any(WILDCARD.match(line) for line in shown.text.split("\n")):
            excerpts.add(getattr(shown, "block", shown))
            continue
        new = normalised(actual, directory, compare=False)
        if isinstance(shown, Shown):   # a console block: each command and what it prints
            replace.setdefault(shown.block, []).extend([f"$ {shown.command}"] + new)
        else:
            replace[shown] = new
    for block, new in sorted(replace.items(), key=lambda item: -item[0].line):
        if block in excerpts:
            continue
        lines[block.line:block.end - 1] = new  # between the fences
    with open(os.path.join(CHECKOUT, page), "w") as handle:
        handle.write("\n".join(lines))


def main(argv):
    import tempfile
    update = "--update" in argv
    pages = [arg for arg in argv if not arg.startswith("--")] or EXAMPLE_PAGES
    status = 0
    for page in pages:
        directory = tempfile.mkdtemp(prefix="s2sad-docs-")
        problems, runner = mismatches(page, directory)
        for shown, actual, source in runner.results:
            print(f"==== {shown.where()} (printed by {source.where()})")
            print("\n".join(normalised(actual, directory)))
        for problem in problems:
            print(problem, file=sys.stderr)
        if problems and update:
            _update(page, runner, directory)
            print(f"{page}: updated", file=sys.stderr)
        status = status or bool(problems)
    return status


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    os.environ.setdefault("S2SAD_CACHE_DIR", __import__("tempfile").mkdtemp(prefix="s2sad-docs-"))
    sys.exit(main(sys.argv[1:]))
