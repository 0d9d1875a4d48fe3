"""Tools built on the API: the `s2sad` command (cli.py), `s2sad check` (check.py), rule
verification by finite differences (verify.py, also `s2sad.verify_rule`), and the generated
coverage table of derivative rules (coverage.py, docs/coverage.md)."""
