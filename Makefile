# snowfield — every target creates/uses .venv; nothing needs to be installed beforehand but Python 3.11.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install up test check fmt docs bench contracts proto clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

up: $(STAMP)  ## devnet with demo traffic + indexer + data API (Ctrl-C stops all)
	$(BIN)/snowfield up --data-dir data

# Two workers (the machines have two cores; much of the suite waits on child processes and
# servers); each test module runs whole, in order, on one of them (its module fixtures once).
test: $(STAMP)  ## run the test suite
	$(BIN)/pytest -q -n 2 --dist loadfile

check: $(STAMP)  ## ruff, mypy, import-linter
	$(BIN)/ruff format --check src tests bench
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports

fmt: $(STAMP)
	$(BIN)/ruff format src tests bench
	$(BIN)/ruff check --fix src tests bench

docs: $(STAMP)  ## regenerate docs/settings.md from the settings declared in src/snowfield/config/
	$(BIN)/python -m snowfield.config > docs/settings.md

bench: $(STAMP)  ## benchmarks, each printing ratios against a baseline run beside it
	$(BIN)/python bench/devnet.py
	$(BIN)/python bench/metrics.py
	$(BIN)/python bench/api.py
	$(BIN)/python bench/evm_views.py
	$(BIN)/python bench/evm_balances.py
	$(BIN)/python bench/pchain.py
	$(BIN)/python bench/exchange.py
	$(BIN)/python bench/aggregator.py
	$(BIN)/python bench/primary_index.py
	$(BIN)/python bench/primary_api.py
	$(BIN)/python bench/webhooks.py
	$(BIN)/python bench/validator_webhooks.py

proto: $(STAMP)  ## regenerate src/snowfield/p2p/proto/*_pb2.py from the .proto files beside them
	$(BIN)/pip install --quiet grpcio-tools
	cd src/snowfield/p2p/proto && ../../../../$(BIN)/python -m grpc_tools.protoc -I. --python_out=. --pyi_out=. p2p.proto sdk.proto

contracts:  ## rebuild the demo contract artifacts from contracts/*.sol (needs node + npm)
	cd contracts && npm ci && node compile.js

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
