# Thin wrapper over CMake so the README's commands stay short.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all build test check all-ci bench sanitize fuzz format clean install deb

all: build

$(BUILD)/Makefile:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS)

# Every test: unit, property, golden end-to-end, and the generated-file checks.
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# What CI runs (the README's test command): clang-format on every tracked
# file, clang-tidy on the src/ files HEAD's commit changed, the GCC build with
# warnings as errors and every test, the Clang build with warnings as errors
# under ASan + UBSan and the suite again (every fuzz corpus replayed), then
# each libFuzzer harness for 30 s. It prints each stage's wall time at the
# end. `make all-ci` is the deeper run: tidy on every src/ file and 60 s a
# harness (scripts/ci.sh all).
check:
	JOBS=$(JOBS) ./scripts/ci.sh check

all-ci:
	JOBS=$(JOBS) ./scripts/ci.sh all

# Benchmarks (Release); prints each figure the design asks for.
bench: build
	./scripts/bench.sh $(BUILD)

# The suite under ASan + UBSan (clang, build-ci-clang), as CI runs it.
sanitize:
	JOBS=$(JOBS) ./scripts/ci.sh clang

# libFuzzer runs of every tests/fuzz harness (clang, build-ci-clang), FUZZ_SECONDS each.
FUZZ_SECONDS ?= 60
fuzz:
	JOBS=$(JOBS) FUZZ_SECONDS=$(FUZZ_SECONDS) ./scripts/ci.sh fuzz

# Install the built tree (bin/, lib/gpuplan/, completion, man page) under PREFIX;
# DESTDIR stages it as usual. Packages: `make deb` writes $(BUILD)/gpuplan_*.deb.
PREFIX ?= /usr/local
install: build
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

deb: build
	cd $(BUILD) && cpack -G DEB

format:
	git ls-files '*.cc' '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD) build-ci-clang
