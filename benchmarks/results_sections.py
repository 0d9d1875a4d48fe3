"""Sections of a generated results file that another script owns, between HTML comments:

    <!-- section NAME: written by SCRIPT, do not edit -->
    ...
    <!-- end of section NAME -->

`replace(path, name, text, script)` writes or replaces one section and leaves the rest of the
file as it is; `kept(path)` reads every section before a script rewrites the whole file
(run.py writes RESULTS.md from scratch) and `restore(path, sections)` appends those the new
text lacks, so that `make bench` does not erase `make bench-arrays`'s section.
"""
import os
import re

_SECTION = re.compile(r"<!-- section (?P<name>[\w-]+): .*? -->\n.*?<!-- end of section "
                      r"(?P=name) -->\n", re.S)


def _block(name, text, script):
    return (f"<!-- section {name}: written by {script}, do not edit -->\n{text.rstrip()}\n"
            f"<!-- end of section {name} -->\n")


def kept(path):
    """{name: block} of every section in the file (empty if it does not exist)."""
    if not os.path.exists(path):
        return {}
    with open(path) as handle:
        return {m.group("name"): m.group(0) for m in _SECTION.finditer(handle.read())}


def restore(path, sections):
    """Append the sections the file does not hold now, as they were."""
    have = kept(path)
    missing = [block for name, block in sections.items() if name not in have]
    if missing:
        with open(path, "a") as handle:
            handle.write("\n" + "\n".join(missing))


def replace(path, name, text, script):
    """Write section `name` of the file: in place of its old text, else at the end."""
    old = ""
    if os.path.exists(path):
        with open(path) as handle:
            old = handle.read()
    block = _block(name, text, script)
    found = [m for m in _SECTION.finditer(old) if m.group("name") == name]
    if found:
        new = old[:found[0].start()] + block + old[found[0].end():]
    else:
        new = old.rstrip("\n") + ("\n\n" if old.strip() else "") + block
    with open(path, "w") as handle:
        handle.write(new)
