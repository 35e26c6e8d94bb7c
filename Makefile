# Two commands: `make run` (everything, then serve HTTPS) and `make test` (everything, then the suite).
SHELL := /bin/bash
export SVC_HOME ?= $(CURDIR)/.svc
# bin/svc, not `node bin/svc`: its first line sets the process's memory settings (docs/deploy.md).
SVC := bin/svc

.PHONY: all deps system-deps build lint test test-engine run demo serve db-start db-stop bench bench-peers bench-engine bench-webhooks bench-studio cluster cluster-stop clean docs-cli

all: build

system-deps:
	@bash scripts/install-debian-deps.sh

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

deps: system-deps node_modules/.installed

build: deps
	npx tsc -p tsconfig.json
	node scripts/build-studio.mjs

# Import rules first (seconds: .dependency-cruiser.cjs, docs/architecture.md "Import rules"), then ESLint.
lint: deps
	npm run --silent lint:imports
	npx eslint . --max-warnings 0
	npx tsc -p studio/web/tsconfig.json
	npx tsc -p tsconfig.json && $(SVC) openapi --output dist/openapi.json && npx redocly lint --config redocly.yaml dist/openapi.json

test: build lint
	bash scripts/test.sh

# The engine and render pool suites alone: no database, no network (engine/ is pure), for a fast loop.
# Soak tests (*.soak.test.js: thousands of renders) run in `make test` only.
test-engine: build
	node --test --test-concurrency=2 $$(find dist/test/engine dist/test/pool -name '*.test.js' ! -name '*.soak.test.js' | sort)

db-start: build
	$(SVC) db start

db-stop:
	$(SVC) db stop

# The demo's data sources live on the private instance's loopback port, which the data-source
# policy refuses by default: `make demo` and `make run` allow exactly that address, and say so.
DEMO_DATASOURCE_ALLOW := $(or $(SVC_DATASOURCE_ALLOW),127.0.0.1:$(or $(SVC_DB_PORT),3307))

demo: db-start
	$(SVC) db migrate
	@echo "make demo: SVC_DATASOURCE_ALLOW=$(DEMO_DATASOURCE_ALLOW) (data sources may reach the demo's own loopback database)"
	SVC_DATASOURCE_ALLOW=$(DEMO_DATASOURCE_ALLOW) $(SVC) demo

run: demo
	@echo "make run: SVC_DATASOURCE_ALLOW=$(DEMO_DATASOURCE_ALLOW) (data sources may reach the demo's own loopback database)"
	SVC_DATASOURCE_ALLOW=$(DEMO_DATASOURCE_ALLOW) $(SVC) serve

serve: build
	$(SVC) serve

bench-engine: build
	node dist/bench/engine.js

bench-webhooks: build
	node dist/bench/webhooks.js

# Keystroke to painted preview in the studio vs a bare engine render (issue 36; chromium, no database).
bench-studio: build
	node dist/bench/studio.js

bench: build
	bash scripts/bench.sh $(BENCH_ARGS)

# The jsreport-style peer row of make bench (jsreport 4 + Debian's Chromium, into .svc/peers).
bench-peers:
	bash scripts/peers.sh

# NODES svc serve processes on one private MariaDB behind HAProxy (scripts/cluster.sh).
cluster: build
	NODES=$(or $(NODES),3) bash scripts/cluster.sh start

cluster-stop:
	bash scripts/cluster.sh stop

clean:
	rm -rf dist

docs-cli: build
	node dist/cli/docs.js > docs/cli.md
