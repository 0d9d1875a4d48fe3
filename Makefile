# Two entry points from README: `make demo` and `make test`. Both build .venv on first use.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test clean
.PHONY: bench bench-checkpoint chase coverage verify

$(STAMP): setup.cfg pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(PY) examples/demo.py

test: $(STAMP)
	$(PY) -m pytest tests

bench: $(STAMP)
	$(PY) benchmarks/loop_benchmark.py $(ARGS)

bench-checkpoint: $(STAMP)
	$(PY) benchmarks/checkpoint_benchmark.py $(ARGS)

coverage: $(STAMP)
	$(PY) -m s2sad.coverage

verify: $(STAMP)
	$(PY) -m s2sad verify $(ARGS)

chase: $(STAMP)
	$(PY) examples/car_chase.py $(ARGS)

clean:
	rm -rf $(VENV) build *.egg-info
