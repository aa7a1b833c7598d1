# TwainMQ Desktop. `make test` runs every suite; `make run` starts the app on a demo store.
SHELL := /bin/bash
CARGO ?= cargo
PY := .venv/bin/python
BIN := target/debug/twainmq
# The development tools (benchmark steps, test hooks, the demo store): never shipped.
DEV_BIN := target/debug/twainmq-dev
APP := target/debug/twainmq-desktop
DEMO_STORE ?= $(HOME)/.local/share/twainmq/demo-store

.PHONY: kafka-test kafka-bench deps ui app cli bindings ui-fixture test lint unit ui-test interop e2e package package-test run demo-store clean bench bench-app shots-scale torture torture-short fuzz package-windows package-windows-test test-windows wheel python-test

deps:
	@bash scripts/deps.sh

# The web UI is embedded in the app binary at build time, so it is built first.
ui: deps
	cd ui && npm run build

cli: deps
	$(CARGO) build -p twainmq-cli -p twainmq-dev --locked

app: ui
	$(CARGO) build -p twainmq-desktop -p twainmq-cli --locked

# Record the real backend's answers for the UI's test backend (xtask/src/record; a test fails while they are stale).
ui-fixture: deps
	$(CARGO) run --quiet --locked -p xtask -- ui-fixture

# Regenerate the TypeScript bindings from the Rust wire types (xtask; a test fails while they are stale).
bindings: deps
	$(CARGO) run --quiet --locked -p xtask -- bindings

lint: app
	$(CARGO) fmt --all -- --check
	# The UI's types (svelte-check, no warning allowed) and its layers (ui/scripts/check-imports.mjs).
	cd ui && npm run check
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings
	# The engine's public docs: every item documented (missing_docs is denied) and every link resolving.
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc -p twainmq --no-deps --locked
	# No development tool in the product: the UI's test backend and its recording not in the
	# bundle, the fixture recorder and the bindings generator not in the app's binaries.
	bash scripts/check-bundle.sh
	# The engine's and CLI's macOS code compiles (docs/PLATFORMS.md "macOS: checked here, never built").
	bash scripts/check-macos.sh

unit: ui
	$(CARGO) test --workspace --locked

ui-test: deps
	cd ui && npm test

interop: cli
	TWAINMQ_BIN=$(CURDIR)/$(BIN) $(PY) -m pytest tests/interop -q -p no:cacheprovider

e2e: app
	bash scripts/e2e.sh

# The short torture, crash, bad-input, hostile-store, skewed-rollover, NTFS, XFS and btrfs runs (a few minutes);
# `make torture` is the long form.
torture-short: cli
	TWAINMQ_BIN=$(CURDIR)/$(BIN) $(PY) -m pytest tests/torture -q -p no:cacheprovider

torture: cli
	TWAINMQ_BIN=$(CURDIR)/$(BIN) bash scripts/torture.sh

# The Kafka bridge (`twainmq mirror`) against a real Kafka-protocol broker, nisshi, started on
# 127.0.0.1 by the suite (scripts/kafka-test.sh). The broker is built once from crates.io into
# ~/.cache/twainmq-dev by scripts/nisshi.sh, which `make deps` starts in the background.
kafka-test: cli app
	TWAINMQ_BIN=$(CURDIR)/$(BIN) bash scripts/kafka-test.sh

# The Debian package of the release build (app and `twainmq` command): target/release/bundle/deb/.
# Install it with `apt install ./target/release/bundle/deb/twainmq-desktop_*.deb`.
# The web UI is embedded in the release binary at build time, so it is built first.
package: ui
	$(CARGO) build --release -p twainmq-desktop -p twainmq-cli --locked
	bash scripts/package.sh

# The debug build bundled the same way, installed with apt, started from /usr/bin under Xvfb on
# the fixture store, then purged (needs root or sudo; replaces a twainmq-desktop installed before).
package-test: app
	bash scripts/package-test.sh

# The Windows installer (NSIS, per user) of the release app and twainmq.exe, cross-built here:
# target/windows/installer/twainmq-desktop_VERSION_x64-setup.exe (scripts/package-windows.sh).
package-windows: ui
	bash scripts/package-windows.sh

# That installer installed, used and uninstalled under Wine (scripts/test-package-windows.sh).
# Packs the programs of test-windows's build, the app linked as the GUI program users get
# (scripts/package-windows.sh says why), so that `make test` keeps within its time. The release installer:
# `make package-windows`, then scripts/test-package-windows.sh (its default).
package-windows-test: ui
	installer=$$(TWAINMQ_WINDOWS_PROFILE=dev bash scripts/package-windows.sh) && bash scripts/test-package-windows.sh "$$installer"

# The engine's, CLI's and app's tests built for Windows and run under Wine (scripts/windows/test.sh).
# The app's embed the built web UI.
test-windows: ui
	bash scripts/windows/test.sh

# The engine as the Python package twainmq-rs (crates/twainmq-py, PyO3 + maturin): a release
# wheel for .venv's Python in target/wheels/, installable with pip (no dependencies).
wheel: deps
	$(PY) -m maturin build --release --strip --locked -m crates/twainmq-py/Cargo.toml --out target/wheels -i $(PY)

# That wheel against twainmq 0.2.3: the differential suite, a mixed live group, a fresh venv.
python-test: wheel
	bash scripts/python-test.sh

test: lint unit ui-test interop python-test torture-short e2e package-test kafka-test test-windows package-windows-test
	@echo "make test: all suites passed"

demo-store: cli
	$(DEV_BIN) --store "$(DEMO_STORE)" seed-demo

run: app demo-store
	$(APP) "$(DEMO_STORE)"

clean:
	$(CARGO) clean
	rm -rf .venv ui/node_modules ui/dist tests/e2e/node_modules artifacts

# cargo-fuzz targets (stable Rust with RUSTC_BOOTSTRAP=1), 10 million runs each by default;
# `cargo test -p twainmq --test fuzz_regressions` (in make test) replays the committed corpus.
fuzz: deps
	bash scripts/fuzz.sh $(RUNS)

# Benchmarks are not part of `make test` (a smoke run of `twainmq bench` is, in the interop suite).
bench: deps wheel
	$(CARGO) build --release -p twainmq-cli -p twainmq-dev --locked
	.venv/bin/python -m pip install -q --disable-pip-version-check --force-reinstall --no-deps $$(ls -t target/wheels/twainmq_rs-*.whl | head -1)
	bash scripts/bench.sh
	bash scripts/kafka-bench.sh
	$(MAKE) bench-app

# The Kafka bridge's speed alone (scripts/kafka-bench.sh; `make bench` runs it too).
kafka-bench: deps
	$(CARGO) build --release -p twainmq-cli -p twainmq-dev --locked
	bash scripts/kafka-bench.sh

# The app's performance goals in the release app under Xvfb: first page of a 1M-message
# topic, idle memory, responsiveness while another process writes 100k msg/s, search speed.
# The web UI is embedded in the release binary at build time, so it is built first.
# Screenshots of the release app at scale (a 10M-message topic, 5,000 topics, 1,000 partitions),
# to be looked at: artifacts/scale/scale-*.png.
shots-scale: ui
	$(CARGO) build --release -p twainmq-desktop -p twainmq-cli --locked
	TWAINMQ_APP=$(CURDIR)/target/release/twainmq-desktop TWAINMQ_BIN=$(CURDIR)/target/release/twainmq E2E_ARTIFACTS=$(CURDIR)/artifacts/scale bash scripts/e2e.sh --run node scale.shots.mjs

bench-app: ui
	$(CARGO) build --release -p twainmq-desktop -p twainmq-cli --locked
	bash scripts/bench-app.sh
