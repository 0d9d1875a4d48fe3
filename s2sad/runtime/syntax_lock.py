"""One lock for parsing and compiling Python source in a process.

CPython 3.11 keeps the recursion depth of its AST conversion in one place per interpreter, so
two threads turning source into trees at once (`ast.parse`, `compile` of a tree) can fail with
"SystemError: AST constructor recursion depth mismatch". s2sad's transformation holds this lock
(transform/pipeline.py), and so does loading a generated file from its text (jit.py) and making
a runtime helper from source (dispatch.generate).
"""
import threading

LOCK = threading.RLock()
