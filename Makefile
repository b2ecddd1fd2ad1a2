# Tessera: `make dev` runs the service locally, `make test` runs the whole suite.
# Both create .venv and install everything they need; no Postgres, Redis or Docker required.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The exact versions (with hashes) the suite passed with; `make lock` refreshes it from pyproject.toml.
LOCK := requirements.lock
LOCK_TOOLS := $(VENV)/lock-tools
PIP_TOOLS := pip-tools==7.6.2

.PHONY: dev test unit lint format typecheck openapi clean bench lock browser screenshot

# Third-party packages come only from the lock (so nothing unpinned slips in); the project itself,
# with the SDK in sdk/python, is installed editable on top without resolving anything.
$(STAMP): pyproject.toml $(LOCK)
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Tessera needs Python 3.11 or newer")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

# pip-tools lives in its own venv so it never changes the versions it is locking. Existing pins are
# kept unless pyproject.toml rules them out; LOCK_FLAGS=--upgrade (or '--upgrade-package NAME')
# moves them to the newest releases the bounds allow.
LOCK_FLAGS ?=
lock:
	test -x $(LOCK_TOOLS)/bin/pip-compile || ($(PYTHON) -m venv $(LOCK_TOOLS) \
		&& $(LOCK_TOOLS)/bin/python -m pip install --quiet '$(PIP_TOOLS)')
	CUSTOM_COMPILE_COMMAND='make lock' $(LOCK_TOOLS)/bin/pip-compile --quiet $(LOCK_FLAGS) \
		--generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links \
		--extra embedded --extra dev -o $(LOCK) pyproject.toml

dev: $(STAMP)
	$(BIN)/tessera dev

test: $(STAMP) browser lint typecheck
	$(BIN)/pytest -q

# The inspector page's browser test drives Debian's chromium through chromedriver. Installed
# when this runs as root with apt (CI does); anywhere else, or if apt fails, the test is
# skipped and says why. Never fails the build.
browser:
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	    && ! { command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; }; then \
	  echo "installing chromium and chromium-driver for the browser test"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	      --no-install-recommends chromium chromium-driver; } >/dev/null 2>&1 \
	    || echo "could not install chromium: the browser test will be skipped"; \
	fi

# Refresh the README's picture of /ui (docs/img/inspector.png) from the browser test.
screenshot: $(STAMP) browser
	TESSERA_TEST_SCREENSHOT=docs/img/inspector.png $(BIN)/pytest -q tests/integration/test_ui_browser.py

unit: $(STAMP)
	$(BIN)/pytest -q tests/unit

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

typecheck: $(STAMP)
	$(BIN)/mypy

# The spec, then both clients from it: the Python package (openapi/generate.py) and the
# TypeScript types (openapi-typescript, from sdk/typescript's lock, on the venv's node).
WITH_NODE := PATH="$(abspath $(BIN)):$$PATH"
openapi: $(STAMP)
	$(BIN)/tessera openapi > openapi/openapi.json
	$(BIN)/python openapi/generate.py
	cd sdk/typescript && $(WITH_NODE) npm ci --no-audit --no-fund --silent && $(WITH_NODE) npm run --silent generate

bench: $(STAMP)
	$(BIN)/python -m bench.ingest

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
