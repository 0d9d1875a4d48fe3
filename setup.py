"""The package list, found in the tree so that no package can be left out (issue 46).

Everything else (name, version, dependencies, metadata) is in setup.cfg. setup.cfg alone cannot
say this: `packages = find:` searches one directory, and the derivative templates live in the
top-level templates/ but ship as s2sad.templates (docs/development.md, "Packaging"). Searching
the checkout's root unrestricted would also ship templates/ as a stray top-level package.
"""
from setuptools import find_packages, setup

TEMPLATES = "templates"      # installed as s2sad.templates

packages = find_packages(include=["s2sad", "s2sad.*"])
packages += ["s2sad.templates"] + [f"s2sad.templates.{name}"
                                   for name in find_packages(TEMPLATES)]

setup(packages=sorted(packages), package_dir={"s2sad.templates": TEMPLATES})
