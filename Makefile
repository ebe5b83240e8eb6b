# One command each, on a fresh machine: `make run` (dashboard) and `make test` (lint, types of simcore
# as configured in pyproject.toml, full suite on every core with pytest-xdist; docs/testing.md).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
# the engine compiled with mypyc by the build hook (setup.py), in place, rebuilt when an engine source
# changes; never fails: without a compiler it says so in one line and the pure-Python engine runs
COMPILED := $(VENV)/.engine-compiled-stamp
ENGINE_LOG := build/engine-compile.log
LINTED := simcore dashboard tests bench setup.py
# `make run` listens on this machine only; `make run ADDRESS=0.0.0.0` on every interface (docs/hosting.md)
ADDRESS ?= 127.0.0.1

.PHONY: run test lint bench bench-browser install clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# the packages, and simcore editable without compiling (SIMCORE_COMPILE=0): the compile is $(COMPILED)'s
$(STAMP): $(BIN)/python pyproject.toml setup.py
	SIMCORE_COMPILE=0 $(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

# the compiler's output goes to $(ENGINE_LOG); its last line says which engine runs
$(COMPILED): $(STAMP) $(wildcard simcore/engine/*.py)
	@mkdir -p build
	@$(BIN)/python setup.py build_ext --inplace > $(ENGINE_LOG) 2>&1 || echo "simcore: engine not compiled (setup.py failed, see $(ENGINE_LOG)); the pure-Python engine runs" >> $(ENGINE_LOG)
	@tail -n 1 $(ENGINE_LOG)
	@touch $(COMPILED)

install: $(COMPILED)

# python -m dashboard: `streamlit run dashboard/streamlit_app.py` warmed before it serves (docs/dashboard.md#speed).
# It never waits for the compile: the pure-Python engine serves while the compile runs in the background
# (nice, detached: it finishes after Ctrl-C too); the next start runs the compiled engine.
run: $(STAMP)
	@$(MAKE) --no-print-directory --question $(COMPILED) || { \
	  echo "simcore: compiling the engine in the background (log: $(ENGINE_LOG)); the pure-Python engine serves meanwhile"; \
	  nohup nice $(MAKE) --no-print-directory $(COMPILED) > /dev/null 2>&1 & }
	$(BIN)/python -m dashboard --server.address $(ADDRESS)

test: $(COMPILED)
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	$(BIN)/mypy
	$(BIN)/python -m pytest -q -n auto --dist loadgroup

lint: $(STAMP)
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)

bench: $(COMPILED)
	$(BIN)/python bench/run.py

# first chart drawn: the Explore page against a bare Plotly page, in headless Chromium
bench-browser: $(COMPILED)
	$(BIN)/python bench/first_chart.py

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache .hypothesis build simcore/engine/*.so simcore/engine/native-build.json
