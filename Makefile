# Two commands matter: `make run` (install what is missing, build, serve the embedded default) and
# `make test` (install what is missing, then lint, typecheck, generation drift and every test).
SHELL := /bin/bash
.DEFAULT_GOAL := help
DEPS := node_modules/.installed

.PHONY: help install run demo build packages generate check-generated lint format typecheck test test-unit bench soak clean

help:
	@echo "make run | demo | test | test-unit | bench | soak | generate | lint | format | typecheck | build | clean"

# Reinstall only when the manifest or lock changed. better-sqlite3 builds from source (about a minute).
$(DEPS): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

install: $(DEPS)

# The SDK ships the generated client, copied in from generated/client whenever that changes (packages/sdk).
SDK_GENERATED := packages/sdk/src/generated/index.ts
$(SDK_GENERATED): $(DEPS) $(shell find generated/client -name '*.ts' 2>/dev/null)
	node packages/sdk/scripts/copy-generated.mjs

# The SDK and the terminal tool are npm workspaces with versions of their own (packages/*); tests pack and run them.
packages: $(DEPS) $(SDK_GENERATED)
	node_modules/.bin/tsc -p packages/sdk/tsconfig.build.json
	node_modules/.bin/tsc -p packages/cli/tsconfig.build.json

build: packages
	node_modules/.bin/tsc -p tsconfig.build.json

# MALLOC_ARENA_MAX: as the Dockerfile runs it (bench/README.md, "Memory").
run: build
	MALLOC_ARENA_MAX=1 node dist/src/main.js

# `make run` with its payment rails pointed at loopback fakes of Stripe, YooKassa and java-tron, and pages to pay on
# (docs/payments.md, "Trying the payment rails locally"). Test code run by tsx: it refuses NODE_ENV=production.
demo: build
	node --import tsx scripts/payments-demo.ts

generate: $(DEPS)
	bash scripts/generate.sh generated

# Regenerates into a scratch folder and compares: a stale or hand-edited generated/ fails the build.
check-generated: $(DEPS)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && bash scripts/generate.sh "$$tmp/generated" && \
	  diff -r "$$tmp/generated" generated >/dev/null || { echo "generated/ is stale: run 'make generate' and commit it"; diff -r "$$tmp/generated" generated | head -40; exit 1; }

# The contract: Redocly's recommended-strict on the sources (openapi/redocly.yaml), Spectral's spectral:oas on the bundle
# generators read (.spectral.yaml; `make check-generated` proves the bundle is current). Biome checks formatting, lint
# rules and import order (biome.json); `make format` applies its fixes.
lint: $(DEPS) $(SDK_GENERATED)
	node_modules/.bin/redocly lint --config openapi/redocly.yaml openapi/openapi.yaml
	node_modules/.bin/spectral lint --ruleset .spectral.yaml --fail-severity warn generated/openapi.bundled.yaml
	node_modules/.bin/biome ci .
	node_modules/.bin/tsc -p tsconfig.json --noEmit

format: $(DEPS)
	node_modules/.bin/biome check --write .

typecheck: $(DEPS) $(SDK_GENERATED)
	node_modules/.bin/tsc -p tsconfig.json --noEmit

# Every tier. The contract tier's responses are checked a second time by Prism's validating proxy (DESIGN.md 5,
# contract:live; ARCHITECTURE.md, "The contract, checked twice"), run from node_modules/.bin/prism.
test: lint check-generated packages
	node_modules/.bin/vitest run

# The fast tier for the edit-test loop: test/unit, in memory, no database (about 20 s on 2 cores). The adapter
# suites would take it past a minute and the contract suites add about 9, so they stay in `make test`.
test-unit: $(DEPS) $(SDK_GENERATED)
	node_modules/.bin/vitest run test/unit

# Not part of `make test` (a test never asserts a wall-clock time). Builds, then measures the gateway against a
# direct call, a bare node proxy and a plain express proxy, on SQLite and on PostgreSQL + Redis (about 11 minutes);
# writes bench/results.md and bench/results.json. `BENCH_ARGS=--quick` checks the harness in about a minute.
bench: $(DEPS)
	node --import tsx test/bench/run.ts $(BENCH_ARGS)

# Not part of `make test` either: a day of load in an hour. Three gateway processes on PostgreSQL + Redis under a
# steady mixed load for 30 minutes (SOAK_MINUTES, or SOAK_ARGS="--minutes 5 --rps 20 --interval 10"); fails when RSS,
# open fds, event-loop delay or p99 grows, or when the ledger and the usage log disagree. Writes bench/soak/soak.*
# (see bench/README.md).
soak: $(DEPS)
	node --import tsx test/soak/run.ts $(SOAK_ARGS)

clean:
	rm -rf dist node_modules/.installed packages/*/dist packages/sdk/src/generated
