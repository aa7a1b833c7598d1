# TwainMQ Desktop. `make test` runs every suite; `make run` starts the demo.
SHELL := /bin/bash
CARGO ?= cargo
PY := .venv/bin/python
BIN := target/debug/twainmq
DEMO_STORE ?= $(HOME)/.local/share/twainmq/demo-store

.PHONY: deps build test lint unit interop run demo-store clean

deps:
	@bash scripts/deps.sh

build: deps
	$(CARGO) build --workspace --locked

lint: deps
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings

unit: deps
	$(CARGO) test --workspace --locked

interop: build
	TWAINMQ_BIN=$(CURDIR)/$(BIN) $(PY) -m pytest tests/interop -q -p no:cacheprovider

test: lint unit interop
	@echo "make test: all suites passed"

demo-store: build
	@bash scripts/seed-demo.sh $(BIN) "$(DEMO_STORE)"

# Until the desktop app lands, `make run` seeds the demo store and shows it through the CLI.
run: demo-store
	$(BIN) --store "$(DEMO_STORE)" topics list
	$(BIN) --store "$(DEMO_STORE)" topics describe orders
	$(BIN) --store "$(DEMO_STORE)" consume orders --max 10

clean:
	$(CARGO) clean
	rm -rf .venv
