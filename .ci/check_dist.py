"""Build s2sad's sdist and wheel as a release would, and check that they hold the whole package.

    .venv/bin/python .ci/check_dist.py [--outdir DIR]

`python -m build` makes the sdist, then the wheel from the unpacked sdist, so a file the sdist
lacks is missing from the wheel too. The build runs in a copy of the checkout's files (git's
tracked and untracked-but-not-ignored files), so that nothing left by an earlier build (a stale
s2sad.egg-info/SOURCES.txt, which setuptools reads back) can hide a missing file, and the
checkout is not written to. Then it checks:

- the wheel holds every file under s2sad/ as s2sad/..., every file under templates/ as
  s2sad/templates/..., and nothing outside s2sad/ and its .dist-info (no stray top-level
  `templates` package);
- the sdist holds the same files at their places in the tree, and the files setup.cfg reads
  (setup.py, setup.cfg, pyproject.toml, the long description, the licence);
- the METADATA: the version is s2sad/version.py's, the long description's Markdown links are
  all absolute (it is shown on PyPI, away from the repository), the `s2sad` command is there.

Exit status 0 when all holds (the last line names the wheel), 1 naming what is missing.
"""
import argparse
import configparser
import email.parser
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile

CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Top-level directories whose files are the package: (directory in the tree, place in the wheel)
PACKAGE_ROOTS = (("s2sad", "s2sad"), ("templates", "s2sad/templates"))
# What never ships, wherever it lies (byte code, editor leftovers).
NOT_SHIPPED = re.compile(r"(^|/)(__pycache__/|\.)|\.py[co]$|~$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--outdir", help="where to put the sdist and the wheel "
                                         "(default: a new temporary directory)")
    options = parser.parse_args(argv)
    outdir = os.path.abspath(options.outdir or tempfile.mkdtemp(prefix="s2sad-dist-"))
    with tempfile.TemporaryDirectory(prefix="s2sad-source-") as source:
        files = copy_checkout(CHECKOUT, source)
        started = time.perf_counter()
        sdist, wheel = build(source, outdir)
        print(f"check_dist: built {os.path.basename(sdist)} and {os.path.basename(wheel)} "
              f"from the sdist in {time.perf_counter() - started:.0f} s")
        problems = check(source, files, sdist, wheel)
    if problems:
        print("check_dist: FAILED: the built package is not the whole package:", file=sys.stderr)
        for problem in problems:
            print(f"  - {problem}", file=sys.stderr)
        print("  (setup.py lists the packages found under s2sad/ and templates/; a file that is "
              "not Python needs package_data in setup.cfg and a line in MANIFEST.in)",
              file=sys.stderr)
        return 1
    print(f"check_dist: OK: {len(package_files(files))} package files in the sdist and the "
          f"wheel, metadata checked")
    print(wheel)
    return 0


def copy_checkout(checkout, destination):
    """Copy the files a clean clone would have (plus untracked ones not ignored) and return
    their paths, relative, with '/'."""
    try:
        listed = subprocess.run(
            ["git", "-C", checkout, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            check=True, capture_output=True).stdout.decode().split("\0")
        files = sorted(f for f in listed if f and os.path.isfile(os.path.join(checkout, f)))
    except (OSError, subprocess.CalledProcessError):   # not a git checkout: the tree, less builds
        files = []
        for directory, subdirectories, names in os.walk(checkout):
            subdirectories[:] = [d for d in subdirectories if not d.startswith(".") and
                                 d not in ("build", "dist", "__pycache__") and
                                 not d.endswith(".egg-info")]
            relative = os.path.relpath(directory, checkout)
            files += [os.path.normpath(os.path.join(relative, n)).replace(os.sep, "/")
                      for n in names]
        files.sort()
    for name in files:
        target = os.path.join(destination, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(os.path.join(checkout, name), target)
    return files


def build(source, outdir):
    """`python -m build`: the sdist, then the wheel from it; (sdist path, wheel path)."""
    os.makedirs(outdir, exist_ok=True)
    before = set(os.listdir(outdir))
    result = subprocess.run([sys.executable, "-m", "build", "--outdir", outdir, source],
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-6000:] + result.stderr[-6000:])
        sys.exit(f"check_dist: FAILED: `{sys.executable} -m build` exited with "
                 f"{result.returncode} (output above; `pip install build` if it is missing)")
    made = sorted(set(os.listdir(outdir)) - before)
    sdists = [f for f in made if f.endswith(".tar.gz")]
    wheels = [f for f in made if f.endswith(".whl")]
    if len(sdists) != 1 or len(wheels) != 1:
        sys.exit(f"check_dist: FAILED: expected one sdist and one wheel in {outdir}, "
                 f"build made {made}")
    return os.path.join(outdir, sdists[0]), os.path.join(outdir, wheels[0])


def package_files(files):
    """{path in the tree: path in the wheel} of the files that make the package."""
    found = {}
    for name in files:
        for top, installed in PACKAGE_ROOTS:
            if name.startswith(top + "/") and not NOT_SHIPPED.search(name):
                found[name] = installed + name[len(top):]
    return found


def setup_cfg_files(source):
    """The files setup.cfg names that a build reads: the long description, the licences."""
    config = configparser.ConfigParser()
    config.read(os.path.join(source, "setup.cfg"))
    named = ["setup.py", "setup.cfg", "pyproject.toml"]
    description = config.get("metadata", "long_description", fallback="")
    if description.startswith("file:"):
        named += [f.strip() for f in description[len("file:"):].split(",")]
    named += config.get("metadata", "license_files", fallback="").split()
    return [name for name in named if name]


def check(source, files, sdist, wheel):
    problems = []
    version = read_version(source)
    expected = package_files(files)
    if "s2sad/__init__.py" not in expected or "templates/__init__.py" not in expected:
        problems.append("the tree itself lacks s2sad/__init__.py or templates/__init__.py")

    with zipfile.ZipFile(wheel) as archive:
        in_wheel = set(archive.namelist())
        dist_info = f"s2sad-{version}.dist-info/"
        metadata = archive.read(dist_info + "METADATA").decode() \
            if dist_info + "METADATA" in in_wheel else None
        entry_points = archive.read(dist_info + "entry_points.txt").decode() \
            if dist_info + "entry_points.txt" in in_wheel else ""
    lacking = sorted(installed for installed in expected.values() if installed not in in_wheel)
    if lacking:
        problems.append(f"the wheel {os.path.basename(wheel)} lacks " + describe(lacking))
    stray = sorted({name.split("/")[0] for name in in_wheel} - {"s2sad", dist_info[:-1]})
    if stray:
        problems.append(f"the wheel holds top-level entries besides s2sad/ and {dist_info}: "
                        f"{', '.join(stray)} (a stray `templates` package?)")
    if not any(name.startswith(dist_info) and name.endswith("/LICENSE") for name in in_wheel):
        problems.append(f"the wheel's {dist_info} holds no LICENSE")
    if not re.search(r"^s2sad\s*=\s*s2sad\.tools\.cli:main$", entry_points, re.MULTILINE):
        problems.append("the wheel's entry_points.txt lacks the `s2sad` command "
                        "(s2sad = s2sad.tools.cli:main)")

    with tarfile.open(sdist) as archive:
        in_sdist = set(archive.getnames())
    base = f"s2sad-{version}/"
    wanted = sorted(set(expected) | (set(setup_cfg_files(source)) & set(files)))
    lacking = [name for name in wanted if base + name not in in_sdist]
    if lacking:
        problems.append(f"the sdist {os.path.basename(sdist)} lacks " + describe(lacking))

    if metadata is None:
        problems.append(f"the wheel has no {dist_info}METADATA (is the version not {version}?)")
    else:
        problems += check_metadata(metadata, version)
    return problems


def describe(lacking):
    """'packages a.b, a.c (their __init__.py); 3 files: ...' for paths a build left out."""
    packages = [path[:-len("/__init__.py")].replace("/", ".") for path in lacking
                if path.endswith("/__init__.py")]
    text = f"{len(lacking)} file(s) of the tree"
    if packages:
        text += f", among them the package(s) {', '.join(packages)}"
    return text + ":\n      " + "\n      ".join(lacking)


def read_version(source):
    text = open(os.path.join(source, "s2sad", "version.py")).read()
    return re.search(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", text, re.MULTILINE).group(1)


def check_metadata(text, version):
    problems = []
    message = email.parser.Parser().parsestr(text)
    if message["Version"] != version:
        problems.append(f"METADATA says version {message['Version']}, s2sad/version.py "
                        f"{version}")
    for field in ("Summary", "Requires-Python", "Description-Content-Type"):
        if not message[field]:
            problems.append(f"METADATA has no {field}")
    if not (message["License"] or message["License-Expression"]):
        problems.append("METADATA has no License")
    if not message.get_all("Project-URL"):
        problems.append("METADATA has no Project-URL")
    description = message.get_payload() or ""
    if not description.strip() and message["Description"]:   # metadata 2.0 and older
        description = re.sub(r"\n {7}\|", "\n", message["Description"])
    if len(description.strip()) < 200:
        problems.append("METADATA's long description is missing or nearly empty")
    relative = relative_links(description)
    if relative:
        problems.append("the long description (shown on PyPI) has relative links, broken off "
                        "the repository; make them https://github.com/s2sad/s2sad/blob/main/...: "
                        + ", ".join(relative))
    return problems


def relative_links(markdown):
    """The targets of a Markdown text's links and images that are not absolute URLs, outside
    code blocks and code spans."""
    found, inside = [], False
    for line in markdown.split("\n"):
        if re.match(r"^\s*(```|~~~)", line):
            inside = not inside
            continue
        if inside:
            continue
        line = re.sub(r"`[^`]*`", "", line)
        targets = re.findall(r"\]\(\s*<?([^)\s>]+)", line)           # [text](target), ![](...)
        targets += re.findall(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", line)  # [label]: target
        targets += re.findall(r"\b(?:href|src)\s*=\s*[\"']([^\"']+)", line)   # HTML
        found += [t for t in targets if not SCHEME.match(t)]
    return found


if __name__ == "__main__":
    sys.exit(main())
