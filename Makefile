# shelf: the two set-up commands are `make demo` and `make test` (see README.md).
SWIFT ?= swift
RELEASE_BIN = .build/release/shelf
DEBUG_BIN = .build/debug/shelf
# Where `make install` puts shelf: PREFIX/bin, PREFIX/share/man/man1 and the completion folders
# each shell searches under PREFIX/share. `make install PREFIX=~/.local` needs no root.
PREFIX ?= /usr/local
# A `~` the shell left unexpanded (zsh does not expand it after `=`) means $HOME.
override PREFIX := $(patsubst ~/%,$(HOME)/%,$(PREFIX))
BINDIR = $(DESTDIR)$(PREFIX)/bin
MANDIR = $(DESTDIR)$(PREFIX)/share/man/man1
BASH_COMPLETIONS = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSH_COMPLETIONS = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISH_COMPLETIONS = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

.PHONY: all setup build release install uninstall test lint fuzz demo man sample-media sample-backups bench-png bench-audio bench-index bench-index-media bench-index-photos check-exif check-media bench-backup bench-text bench-catalog bench-dupes bench-play bench-gain check-images check-text check-text-tree bench-show clean

all: build

setup:
	@bash scripts/setup.sh

build: setup
	$(SWIFT) build

# The Swift runtime and Foundation are linked into the release binary: it then starts in
# half the time (no Swift shared libraries to load and relocate) and runs without a Swift
# toolchain installed.
release: setup
	$(SWIFT) build -c release --static-swift-stdlib

# The whole test suite: unit tests per library, end-to-end tests of the built binary,
# man-page and help sync, the formatting lint and the man-page check; the last line says
# "N passed, N failed" (scripts/test.sh), and the target fails when a test or check failed.
test: setup
	$(SWIFT) build --build-tests
	@SWIFT=$(SWIFT) bash scripts/test.sh

# Installs the release binary, the man pages and the bash, zsh and fish completions.
install: release
	install -d $(BINDIR) $(MANDIR) $(BASH_COMPLETIONS) $(ZSH_COMPLETIONS) $(FISH_COMPLETIONS)
	install -m 755 $(RELEASE_BIN) $(BINDIR)/shelf
	install -m 644 man/*.1 $(MANDIR)/
	$(RELEASE_BIN) completions bash > $(BASH_COMPLETIONS)/shelf
	$(RELEASE_BIN) completions zsh > $(ZSH_COMPLETIONS)/_shelf
	$(RELEASE_BIN) completions fish > $(FISH_COMPLETIONS)/shelf.fish
	@echo "installed $(BINDIR)/shelf"

# Removes exactly what `make install` put there (same PREFIX).
uninstall:
	rm -f $(BINDIR)/shelf $(BASH_COMPLETIONS)/shelf $(ZSH_COMPLETIONS)/_shelf $(FISH_COMPLETIONS)/shelf.fish
	rm -f $(addprefix $(MANDIR)/,$(notdir $(wildcard man/*.1)))

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Fuzz

# Every libFuzzer target (Fuzz/README.md) for FUZZ_SECONDS each (default 60), after the
# regression inputs: per target executions, coverage and crashes; fails when one crashed.
FUZZ_SECONDS ?= 60
fuzz: setup
	@SWIFT=$(SWIFT) FUZZ_SECONDS=$(FUZZ_SECONDS) bash scripts/fuzz.sh all

# Builds in release mode and runs the main job on SampleMedia (see scripts/demo.sh).
demo: release
	bash scripts/demo.sh $(RELEASE_BIN)

# Regenerates man/*.1 from the command table.
man: setup
	SHELF_WRITE_MAN_PAGES=1 $(SWIFT) test --filter ManPageSyncTests

# Regenerates SampleMedia/ and its facts manifest (the CgBI sample needs a built shelf).
sample-media: build
	python3 scripts/make-sample-media.py --shelf $(DEBUG_BIN)
	python3 scripts/make-backups.py

# Regenerates SampleMedia/Backups (one small backup per era) and its facts.
sample-backups:
	python3 scripts/make-backups.py

# Compares shelf's image facts with Pillow and ImageMagick on 500+ images made by other programs.
check-images: build
	bash scripts/check-images.sh $(DEBUG_BIN)

bench-png: release
	bash scripts/bench-png.sh $(RELEASE_BIN)

bench-audio: release
	bash scripts/bench-audio.sh $(RELEASE_BIN)

# CPU of `shelf play` against mpv on real music, with and without ReplayGain (scripts/bench-play.sh).
bench-play: release
	bash scripts/bench-play.sh $(RELEASE_BIN)

bench-index: release
	bash scripts/bench-index.sh $(RELEASE_BIN)

# shelf index of 2,000 M4A/MP3 files against today's MP3 path, ffprobe and exiftool.
bench-index-media: release
	bash scripts/bench-index-media.sh $(RELEASE_BIN)

# shelf index of 2,000 JPEG/HEIC photos with EXIF against exiftool and file --mime-type.
bench-index-photos: release
	bash scripts/bench-index-photos.sh $(RELEASE_BIN)

# EXIF accuracy: shelf info --json against exiftool -json -n on 600 photos other programs wrote,
# and 40 files in each class of where else EXIF and XMP are kept (late TIFF IFDs, PSD, PNG raw
# profiles, JPEG 2000, CreateDate only, XMP only); per class and field.
check-exif: release
	python3 scripts/check-exif.py --shelf $(RELEASE_BIN)

# Audio and video facts: shelf info --json against ffprobe and mediainfo on 400 files other
# programs wrote or Debian and PyPI packages ship, per field and per container family; then
# the tags (ID3v2.2-2.4 as real files write them, M4A, Vorbis comments) against mutagen.
check-media: release
	python3 scripts/check-media.py --shelf $(RELEASE_BIN)
	python3 scripts/check-tags.py --shelf $(RELEASE_BIN)

bench-backup: release
	bash scripts/bench-backup.sh $(RELEASE_BIN)

# Encoding accuracy on the rarer encodings (DOS and Mac code pages, ISO-8859-15, UTF-7, HZ):
# real text written in each by Python's codecs, named right per class (target 99.5 %).
check-text: release
	python3 scripts/check-text.py --shelf $(RELEASE_BIN)

# shelf's encodings against file, chardet and charset_normalizer on every text file of TREE
# (/usr/share by default): the disagreements in classes, each to be judged (BENCHMARKS.md).
TREE ?= /usr/share
check-text-tree: release
	python3 scripts/check-text-tree.py --shelf $(RELEASE_BIN) --tree $(TREE)

bench-text: release
	bash scripts/bench-text.sh $(RELEASE_BIN)

# The SQLite catalogue against a throwaway PostgreSQL server: indexing /usr/share, ls and stats
# on 1,000,000 generated entries, two indexers at once (see scripts/bench-catalog.sh).
bench-catalog: release
	bash scripts/bench-catalog.sh $(RELEASE_BIN)

# shelf show of a 12-megapixel JPEG against chafa at the same size (half-blocks and sixels).
# shelf dupes against jdupes, fdupes, rmlint and rdfind on a real tree (see scripts/bench-dupes.sh).
bench-dupes: release
	bash scripts/bench-dupes.sh $(RELEASE_BIN)

# shelf gain against loudgain -a per album on real music (see scripts/bench-gain.sh).
bench-gain: release
	bash scripts/bench-gain.sh $(RELEASE_BIN)

bench-show: release
	bash scripts/bench-show.sh $(RELEASE_BIN)

clean:
	rm -rf .build
