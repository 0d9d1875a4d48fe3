# Two entry points from README: `make demo` and `make test`. Both build .venv on first use.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test wheel-check clean
.PHONY: corpus digest autograd bench bench-latency bench-loops bench-shapes bench-checkpoint bench-scale bench-compile bench-arrays bench-published chase coverage verify fuzz tangent

$(STAMP): setup.cfg setup.py pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(PY) examples/demo.py

# The whole suite, with the long sweeps sampled (tests/sweeps.py); `make verify` runs them whole.
# Two pytest-xdist workers (the machine's 2 cores; Numba compiles on one), a test file each.
test: $(STAMP)
	$(PY) -m pytest -n 2 --dist loadfile tests

# Issue 46: install as users do. Builds the sdist and the wheel from it and checks they hold every
# module (.ci/check_dist.py), installs the wheel into a fresh venv in a temporary directory and
# uses it from there (.ci/smoke_installed.py). CI (.ci/run) runs it too.
wheel-check: $(STAMP)
	PYTHON=$(PYTHON) .ci/wheel-check

# The peer comparison (issues 7, 18): installs JAX, autograd, PyTorch and matplotlib into its own
# environment, .venv-bench (a peer that cannot be installed is skipped, and the table says so);
# prints the timings, the latencies, the generated / hand-written lines and issue 18's targets.
bench: $(STAMP)
	$(PY) benchmarks/run.py $(ARGS)

# Issue 20: vmap against a loop of calls and JAX vmap(grad), 1 against 2 threads, and Dask
# LocalCluster throughput for 1 and 2 workers; runs in .venv-bench, writes benchmarks/SCALE.md.
bench-scale: $(STAMP)
	$(PY) benchmarks/scale.py $(ARGS)

# Issue 33 alone: the loop kernels of benchmarks/loop_kernels.py (s2sad against the Numba forward
# and hand-written adjoints), in the current environment; `make bench` runs it too.
bench-shapes: $(STAMP)
	$(PY) benchmarks/loop_shapes.py $(ARGS)

# Issue 37: the tiered default's first gradient, the time until calls run compiled, the steady
# call and a cached second process, against jit=True and JAX's jit(grad), all in fresh processes;
# writes benchmarks/LATENCY.md (JAX from .venv-bench, made as `make bench` makes it).
bench-latency: $(STAMP)
	$(PY) benchmarks/tier_latency.py $(ARGS)

# Issue 47, item 1: where the seconds of `jit=True`'s first call go (s2sad's transform, Numba's
# typing, lowering and LLVM, per compiled function with its IR lines), nothing cached and after
# an edit, in fresh processes with empty caches; the levers NUMBA_OPT=0/1 and helpers' IR linked
# into every caller; writes benchmarks/COMPILE_BUDGET.md (ARGS: --only NAME, --repeat N).
bench-compile: $(STAMP)
	$(PY) benchmarks/compile_budget.py $(ARGS)

# Issue 47, "Done when": array code (array_problems.py: particle chain, LSTM, GMM with a 3-D @ at
# two sizes; tier_cases.py's MLP and GP loss) against JAX's jit(grad) of the same statements:
# steady calls interleaved in one process, first calls in fresh processes with empty caches
# (nothing cached, after an edit, the tiered default), fallbacks to Python and the gradient
# check; runs in .venv-bench, writes its section of benchmarks/RESULTS.md (ARGS: --quick,
# --only NAME, --rounds N, --no-first).
bench-arrays: $(STAMP)
	$(PY) benchmarks/array_bench.py $(ARGS)

# Issue 48, item 8: loop kernels other people wrote for Numba (arch, librosa, pandas, arviz pinned
# in their own environment, .venv-kernels), their authors' source read through `.py_func`: checked
# JIT on and off, timed against their Numba forward; writes benchmarks/PUBLISHED_KERNELS.md.
bench-published: $(STAMP)
	$(PY) benchmarks/published_kernels.py $(ARGS)

bench-loops: $(STAMP)
	$(PY) benchmarks/loop_benchmark.py $(ARGS)

# The long fuzzing profile (>= 10,000 random programs, JIT on and off, against finite differences).
fuzz: $(STAMP)
	$(PY) tests/fuzz_long.py $(ARGS)

# Google Tangent's test corpus against s2sad, first and second order, JIT on and off: reads
# tests/functions.py from a checkout (TANGENT=/path/to/tangent), prints pass/fail per function.
tangent: $(STAMP)
	$(PY) tests/tangent_corpus.py --tangent $(TANGENT) $(ARGS)

# HIPS autograd's examples ported by changing imports only, against autograd's own gradients:
# reads examples/ from a checkout (AUTOGRAD=/path/to/autograd); runs in .venv-bench (autograd).
autograd: $(STAMP)
	test -x .venv-bench/bin/python || $(PY) -c "import sys; sys.path.insert(0, 'benchmarks'); import run; run.ensure_venv()"
	.venv-bench/bin/python tests/autograd_examples.py --autograd $(AUTOGRAD) $(ARGS)

bench-checkpoint: $(STAMP)
	$(PY) benchmarks/checkpoint_benchmark.py $(ARGS)

coverage: $(STAMP)
	$(PY) -m s2sad.tools.coverage

# The long profile (issue 34): the sweeps `make test` samples (tests/sweeps.py), every case (the
# runtime helpers compiled against Python, every corpus function and fuzz regression compiled),
# then every rule's every check compiled and every numba=False declaration tested
# (`s2sad verify [PATTERN]`, the rules whose name contains ARGS).
SWEEPS := tests/test_rt.py tests/test_runtime_loops.py tests/test_runtime_reductions.py \
	tests/test_runtime_shape.py tests/test_runtime_twins.py tests/test_corpus.py tests/test_fuzz.py \
	tests/test_as_written.py

verify: $(STAMP)
	S2SAD_FULL_SWEEP=1 $(PY) -m pytest $(SWEEPS)
	$(PY) -m s2sad verify $(ARGS)

chase: $(STAMP)
	$(PY) examples/car_chase.py $(ARGS)

clean:
	rm -rf $(VENV) build *.egg-info

# Issue 34: one sha256 of every file generated for the benchmark problems and corpora (JIT off,
# index off); a refactoring that changes no behaviour leaves it unchanged.
digest: $(STAMP)
	$(PY) benchmarks/generated_digest.py $(ARGS)

# Issue 35: s2sad on functions other people wrote, from scipy, cma, pymoo, opfunu,
# benchmark-functions and pints pinned in their own environment, .venv-corpus; JIT on and off
# against finite differences; prints "N of M pass" and the failures by construct, writes
# tests/EXTERNAL_CORPUS.md (ARGS: --only NAME, --package NAME, --jit-off-only, --timeout S).
corpus: $(STAMP)
	$(PY) tests/external_corpus.py $(ARGS)
	test -z "$(ADBENCH)" || $(PY) tests/adbench_corpus.py --adbench $(ADBENCH)
