# One command each, on a fresh machine: `make run` (dashboard) and `make test` (lint, types of simcore
# as configured in pyproject.toml, full suite on every core with pytest-xdist; docs/testing.md).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
# the engine compiled with mypyc (build_engine.py), rebuilt when an engine source changes; never
# fails: without a compiler it says so in one line and the pure-Python engine runs
COMPILED := $(VENV)/.engine-compiled-stamp
# `make run` listens on this machine only; `make run ADDRESS=0.0.0.0` on every interface (docs/hosting.md)
ADDRESS ?= 127.0.0.1

.PHONY: run test lint bench bench-browser install clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

$(COMPILED): $(STAMP) build_engine.py $(wildcard simcore/engine/*.py)
	$(BIN)/python build_engine.py
	touch $(COMPILED)

install: $(COMPILED)

# python -m dashboard: `streamlit run dashboard/streamlit_app.py` warmed before it serves (docs/dashboard.md#speed)
run: $(COMPILED)
	$(BIN)/python -m dashboard --server.address $(ADDRESS)

test: $(COMPILED)
	$(BIN)/ruff check simcore dashboard tests bench build_engine.py
	$(BIN)/ruff format --check simcore dashboard tests bench build_engine.py
	$(BIN)/mypy
	$(BIN)/python -m pytest -q -n auto --dist loadgroup

lint: $(STAMP)
	$(BIN)/ruff check simcore dashboard tests bench build_engine.py
	$(BIN)/ruff format --check simcore dashboard tests bench build_engine.py

bench: $(COMPILED)
	$(BIN)/python bench/run.py

# first chart drawn: the Explore page against a bare Plotly page, in headless Chromium
bench-browser: $(COMPILED)
	$(BIN)/python bench/first_chart.py

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache .hypothesis build simcore/engine/*.so simcore_engine__mypyc*
