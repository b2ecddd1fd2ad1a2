# Tessera: `make dev` runs the service locally, `make test` runs the whole suite.
# Both create .venv and install everything they need; no Postgres, Redis or Docker required.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: dev test unit lint format typecheck openapi clean bench

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Tessera needs Python 3.11 or newer")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[embedded,dev]' -e ./openapi/client
	touch $(STAMP)

dev: $(STAMP)
	$(BIN)/tessera dev

test: $(STAMP) lint typecheck
	$(BIN)/pytest -q

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

openapi: $(STAMP)
	$(BIN)/tessera openapi > openapi/openapi.json
	$(BIN)/python openapi/generate.py

bench: $(STAMP)
	$(BIN)/python -m bench.ingest

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
