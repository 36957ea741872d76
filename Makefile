# Warroom build / lint / test entry points.
#
#   make test    set everything up (venv, deps, editable install, protos) and run pytest
#   make lint    ruff check + ruff format --check + mypy + buf lint + tsc --noEmit of web/
#   make fmt     auto-fix: ruff format, ruff check --fix, buf format -w
#   make proto   (re)generate Python code + mypy stubs from proto/ into libs/
#   make web     build the browser app (web/dist) when its sources or proto/ changed
#   make setup   only the set-up steps (what every other target depends on)
#   make run / stop / demo   platform supervisor and demo (see warroom.platform)
#   make bench   run the benchmarks of bench/ (each rewrites its section of docs/benchmarks.md)
#   make clean   remove generated code, caches and stamps; `make distclean` also .venv, node_modules
#
# All set-up steps are file-target stamps, so a second run only re-does what changed:
#   .venv/.stamp           <- requirements.lock               (venv + uv + locked deps)
#   .venv/.stamp-editable  <- pyproject.toml, top-level pkgs  (uv pip install -e . --no-deps)
#   build/.proto.stamp     <- proto/**/*.proto but third_party (grpc_tools.protoc + mypy-protobuf
#                                                              + protoc-gen-connect-python: *_connect.py)
#   node_modules/.stamp    <- package.json, package-lock.json (npm ci: buf CLI)
#   examples/node-client/node_modules/.stamp <- its package.json, package-lock.json (npm ci)
#   web/node_modules/.stamp <- web/package.json, web/package-lock.json   (npm ci: vite, buf, ...)
#   build/.web.stamp       <- web/ sources, proto/, web deps   (`npm run build`: buf generate of
#                                                              the TS code + tsc + vite -> web/dist)
# and, on every run, `docker-compose` (Debian's package) for the compose test and, for `make test`,
# `chromium` (Debian's package) for the browser tests: each installed with apt-get when missing
# and running as root, else a message says how to install it.
#
# Variables you may override:  PYTEST_ARGS="-k foo -x"   PYTEST_WORKERS=auto (pytest-xdist)

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := test
.DELETE_ON_ERROR:
MAKEFLAGS += --no-builtin-rules

BOOTSTRAP_PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3 2>/dev/null)
UV_VERSION ?= 0.13.9
VENV := .venv
PY := $(VENV)/bin/python
UV := $(VENV)/bin/uv
VENV_STAMP := $(VENV)/.stamp
EDITABLE_STAMP := $(VENV)/.stamp-editable
NODE_STAMP := node_modules/.stamp
NODE_CLIENT := examples/node-client
NODE_CLIENT_STAMP := $(NODE_CLIENT)/node_modules/.stamp
BUF := node_modules/.bin/buf
WEB := web
WEB_NODE_STAMP := $(WEB)/node_modules/.stamp
WEB_STAMP := build/.web.stamp
# Everything the app is built from, except what npm and the build write.
WEB_SRCS := $(shell find $(WEB) \( -path $(WEB)/node_modules -o -path $(WEB)/dist -o -path $(WEB)/src/gen \) \
    -prune -o -type f -print 2>/dev/null | LC_ALL=C sort)

PYTEST_ARGS ?=
PYTEST_WORKERS ?=
PYTEST_XDIST := $(if $(PYTEST_WORKERS),-n $(PYTEST_WORKERS),)

# Directories that exist in this checkout (git does not keep empty ones).
LINT_DIRS := $(wildcard libs services tests bench)
# mypy refuses a directory with no .py files, so pass only those that have some.
MYPY_DIRS := $(foreach d,$(wildcard libs services tests),$(if $(shell find $(d) -name '*.py' -print -quit 2>/dev/null),$(d)))

# ---------------------------------------------------------------- protos
PROTO_ROOT := proto
PROTO_OUT := libs
# proto/third_party/ holds the google.rpc, grpc.health and grpc.reflection protos shipped for
# client authors (proto/third_party/README.md): Python uses those packages' own generated code
# (googleapis-common-protos, grpcio-health-checking, grpcio-reflection), so they are not compiled.
PROTO_THIRD_PARTY := $(PROTO_ROOT)/third_party
PROTO_SRCS := $(shell find $(PROTO_ROOT) -path $(PROTO_THIRD_PARTY) -prune -o -name '*.proto' -type f -print 2>/dev/null | LC_ALL=C sort)
PROTO_VENDORED := $(shell find $(PROTO_THIRD_PARTY) -name '*.proto' -type f 2>/dev/null | LC_ALL=C sort)
PROTO_PY := $(patsubst $(PROTO_ROOT)/%.proto,$(PROTO_OUT)/%_pb2.py,$(PROTO_SRCS))
PROTO_STAMP := build/.proto.stamp

# The proto stamp holds the list of sources it was made from: regenerate when a .proto is
# added or removed, or when an expected output was deleted, not only when one is edited.
ifneq ($(strip $(shell cat $(PROTO_STAMP) 2>/dev/null)),$(strip $(PROTO_SRCS)))
$(PROTO_STAMP): FORCE
endif
ifneq ($(strip $(foreach f,$(PROTO_PY),$(if $(wildcard $(f)),,$(f)))),)
$(PROTO_STAMP): FORCE
endif

.PHONY: all setup venv install proto web compose-tool browser-tool test test-reliability lint fmt run stop demo bench clean distclean FORCE
FORCE:

all: lint test

# ---------------------------------------------------------------- set-up
$(VENV_STAMP): requirements.lock
	@if [ -x $(PY) ] && ! $(PY) -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then \
	    echo "$(VENV) is not Python 3.11: recreating it"; rm -rf $(VENV); fi
	@if [ ! -x $(PY) ]; then \
	    if [ -z "$(BOOTSTRAP_PYTHON)" ]; then echo "python3.11 not found" >&2; exit 1; fi; \
	    echo "creating $(VENV) with $(BOOTSTRAP_PYTHON)"; $(BOOTSTRAP_PYTHON) -m venv $(VENV); fi
	@$(PY) -c 'import sys; v = sys.version_info[:2]; assert v == (3, 11), f"need Python 3.11, got {v}"'
	$(PY) -m pip install --quiet --disable-pip-version-check "uv==$(UV_VERSION)"
	$(UV) pip install --python $(PY) -r requirements.lock
	@touch $@

# setuptools' editable finder maps top-level packages found at install time: re-install
# when pyproject changes or a new top-level package appears under libs/ or services/.
$(EDITABLE_STAMP): $(VENV_STAMP) pyproject.toml $(wildcard libs/*/__init__.py services/*/__init__.py)
	$(UV) pip install --python $(PY) -e . --no-deps
	@touch $@

venv: $(VENV_STAMP)
install: $(EDITABLE_STAMP)
setup: $(EDITABLE_STAMP) $(PROTO_STAMP) $(NODE_CLIENT_STAMP) compose-tool
proto: $(PROTO_STAMP)

# Python code (grpcio-tools) + mypy stubs (mypy-protobuf) for every .proto under proto/.
# Include path: proto/, grpc_tools' bundled google/protobuf/*.proto, and the directory
# holding googleapis-common-protos' google/{rpc,api,type,...}/*.proto (found at run time).
$(PROTO_STAMP): $(PROTO_SRCS) $(VENV_STAMP) Makefile
	@mkdir -p $(@D)
	@find $(PROTO_OUT) -type f \( -name '*_pb2.py' -o -name '*_pb2.pyi' \
	    -o -name '*_pb2_grpc.py' -o -name '*_pb2_grpc.pyi' -o -path '*/v1/*_connect.py' \) -delete
	@if [ -z "$(strip $(PROTO_SRCS))" ]; then echo "proto: no .proto files under $(PROTO_ROOT)/"; \
	else \
	    wkt_inc="$$($(PY) -c 'import grpc_tools, os; print(os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"))')"; \
	    gapi_inc="$$($(PY) -c 'import importlib.util, os; s = importlib.util.find_spec("google.rpc"); print(os.path.dirname(os.path.dirname(list(s.submodule_search_locations)[0])))')"; \
	    echo "protoc: $(words $(PROTO_SRCS)) file(s) from $(PROTO_ROOT)/ -> $(PROTO_OUT)/"; \
	    $(PY) -m grpc_tools.protoc -I$(PROTO_ROOT) -I"$$wkt_inc" -I"$$gapi_inc" \
	        --plugin=protoc-gen-mypy=$(VENV)/bin/protoc-gen-mypy \
	        --plugin=protoc-gen-mypy_grpc=$(VENV)/bin/protoc-gen-mypy_grpc \
	        --plugin=protoc-gen-connect-python=$(VENV)/bin/protoc-gen-connect-python \
	        --python_out=$(PROTO_OUT) --grpc_python_out=$(PROTO_OUT) \
	        --mypy_out=$(PROTO_OUT) --mypy_grpc_out=$(PROTO_OUT) --connect-python_out=$(PROTO_OUT) \
	        $(PROTO_SRCS) 2>build/protoc.log || { cat build/protoc.log >&2; exit 1; }; \
	    grep -v '^Writing mypy to ' build/protoc.log >&2 || true; \
	    for src in $(PROTO_SRCS); do \
	        d="$(PROTO_OUT)/$$(dirname "$${src#$(PROTO_ROOT)/}")"; \
	        while [ "$$d" != "$(PROTO_OUT)" ] && [ "$$d" != "." ]; do \
	            [ -e "$$d/__init__.py" ] || { : > "$$d/__init__.py"; echo "created $$d/__init__.py"; }; \
	            d="$$(dirname "$$d")"; \
	        done; \
	    done; \
	fi
	@echo "$(PROTO_SRCS)" > $@

# The buf CLI (npm @bufbuild/buf + its platform package). --ignore-scripts: buf's postinstall
# only swaps its JS launcher for the native binary, which works without it.
$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --ignore-scripts
	@touch $@

# The Node client example's own dependencies (@grpc/grpc-js, @grpc/proto-loader) for its test.
$(NODE_CLIENT_STAMP): $(NODE_CLIENT)/package.json $(NODE_CLIENT)/package-lock.json
	@if command -v npm >/dev/null; then \
	    npm ci --prefix $(NODE_CLIENT) --no-audit --no-fund && touch $@; \
	else echo "npm not found: skipping $(NODE_CLIENT) (its test needs node and npm)"; fi

# The browser app: its own npm packages (web/package-lock.json), then `npm run build` (buf
# generates the TypeScript API code from proto/ into web/src/gen, tsc checks, vite bundles into
# web/dist, which the gateway serves). Without npm the platform still runs, API only.
$(WEB_NODE_STAMP): $(WEB)/package.json $(WEB)/package-lock.json
	npm ci --prefix $(WEB) --no-audit --no-fund
	@touch $@

$(WEB_STAMP): $(WEB_NODE_STAMP) $(WEB_SRCS) $(PROTO_SRCS) $(PROTO_VENDORED)
	@mkdir -p $(@D)
	npm run --prefix $(WEB) build
	@touch $@

ifeq ($(wildcard $(WEB)/package.json),)
web:
	@echo "web: no $(WEB)/package.json: nothing to build"
else ifeq ($(shell command -v npm 2>/dev/null),)
web:
	@echo "npm not found: the browser app is not built (the gateway serves the API only);" \
	    "install Node.js 20+ with npm"
else
web: $(WEB_STAMP)
endif

# Debian's chromium drives the browser tests (Playwright with executable_path; `playwright
# install` cannot download browsers here).
browser-tool:
	@if ! command -v chromium >/dev/null; then \
	    if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	        echo "installing chromium (apt-get)"; \
	        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } \
	            || echo "could not install chromium: the browser tests will fail"; \
	    else \
	        echo "chromium not found and not root: the browser tests will fail;" \
	            "install it with: sudo apt-get install chromium"; \
	    fi; \
	fi

# `docker-compose config -q` validates docker-compose.yml in the tests (no engine needed).
compose-tool:
	@if ! command -v docker-compose >/dev/null; then \
	    if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	        echo "installing docker-compose (apt-get)"; \
	        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose; } \
	            || echo "could not install docker-compose: the compose test will fail"; \
	    else \
	        echo "docker-compose not found and not root: the compose test will fail;" \
	            "install it with: sudo apt-get install docker-compose"; \
	    fi; \
	fi

# ---------------------------------------------------------------- test / lint
# pytest exits 5 when it collected no test: that fails the build like any other non-zero.
test: setup web browser-tool
	@rc=0; $(PY) -m pytest $(PYTEST_XDIST) $(PYTEST_ARGS) || rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test: pytest collected no tests (exit 5) - failing" >&2; fi; \
	exit $$rc

# Only the fault tests (tests/reliability: real processes killed, Redis lost, races, fuzzing;
# docs/reliability.md). `make test` runs them too; -s shows the figures each one prints.
test-reliability: setup
	$(PY) -m pytest tests/reliability -s -q $(PYTEST_ARGS)

# Runs every linter even when an earlier one fails, then fails if any did.
lint: setup $(NODE_STAMP)
	@rc=0; \
	echo "== ruff check"; $(VENV)/bin/ruff check $(LINT_DIRS) || rc=1; \
	echo "== ruff format --check"; $(VENV)/bin/ruff format --check $(LINT_DIRS) || rc=1; \
	echo "== mypy"; $(VENV)/bin/mypy $(MYPY_DIRS) || rc=1; \
	echo "== buf lint"; \
	if [ -n "$(strip $(PROTO_SRCS))" ]; then $(BUF) lint || rc=1; else echo "no .proto files"; fi; \
	echo "== tsc --noEmit (web)"; \
	if [ -f $(WEB)/package.json ] && command -v npm >/dev/null; then \
	    { $(MAKE) --no-print-directory $(WEB_NODE_STAMP) && npm run --prefix $(WEB) --silent check; } || rc=1; \
	else echo "no web/package.json or no npm: skipped"; fi; \
	exit $$rc

fmt: setup $(NODE_STAMP)
	$(VENV)/bin/ruff format $(LINT_DIRS)
	$(VENV)/bin/ruff check --fix $(LINT_DIRS)
	@if [ -n "$(strip $(PROTO_SRCS))" ]; then $(BUF) format -w --path $(PROTO_ROOT)/warroom; fi  # never third_party

# ---------------------------------------------------------------- platform
run: setup web
	$(PY) -m warroom.platform.supervisor run

stop: setup
	$(PY) -m warroom.platform.supervisor stop

demo: setup
	$(PY) -m warroom.platform.demo

# Benchmarks: each script measures on this machine and rewrites its own section of
# docs/benchmarks.md (the peer benchmark also needs node/npm and redis-server).
BENCH_SCRIPTS ?= ncw_bots qmg_bots matchmaking game_authority peer_boardgameio
bench: setup
	for script in $(BENCH_SCRIPTS); do $(PY) bench/$$script.py; done

# ---------------------------------------------------------------- cleaning
clean:
	find $(PROTO_OUT) -type f \( -name '*_pb2.py' -o -name '*_pb2.pyi' \
	    -o -name '*_pb2_grpc.py' -o -name '*_pb2_grpc.pyi' -o -path '*/v1/*_connect.py' \) -delete
	rm -rf $(PROTO_OUT)/warroom/v1 $(PROTO_OUT)/warroom/games/*/v1 build
	rm -rf .mypy_cache .ruff_cache .pytest_cache

distclean: clean
	rm -rf $(VENV) node_modules $(NODE_CLIENT)/node_modules $(WEB)/node_modules $(WEB)/dist
