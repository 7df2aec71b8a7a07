# shelf: the two set-up commands are `make demo` and `make test` (see README.md).
SWIFT ?= swift
RELEASE_BIN = .build/release/shelf
DEBUG_BIN = .build/debug/shelf

.PHONY: all setup build release test lint demo man sample-media bench-png bench-audio bench-index bench-backup clean

all: build

setup:
	@bash scripts/setup.sh

build: setup
	$(SWIFT) build

release: setup
	$(SWIFT) build -c release

# The whole test suite: unit tests per library, end-to-end tests of the built binary,
# man-page and help sync, and the formatting lint.
test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	$(MAKE) --no-print-directory lint
	@warnings=$$(man --warnings -l man/*.1 2>&1 >/dev/null); \
	  if [ -n "$$warnings" ]; then echo "$$warnings"; exit 1; fi

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

# Builds in release mode and runs the main job on SampleMedia (see scripts/demo.sh).
demo: release
	bash scripts/demo.sh $(RELEASE_BIN)

# Regenerates man/*.1 from the command table.
man: setup
	SHELF_WRITE_MAN_PAGES=1 $(SWIFT) test --filter ManPageSyncTests

# Regenerates SampleMedia/ and its facts manifest (the CgBI sample needs a built shelf).
sample-media: build
	python3 scripts/make-sample-media.py --shelf $(DEBUG_BIN)

bench-png: release
	bash scripts/bench-png.sh $(RELEASE_BIN)

bench-audio: release
	bash scripts/bench-audio.sh $(RELEASE_BIN)

bench-index: release
	bash scripts/bench-index.sh $(RELEASE_BIN)

bench-backup: release
	bash scripts/bench-backup.sh $(RELEASE_BIN)

clean:
	rm -rf .build
