# Thin wrapper over CMake so the README's commands stay short.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all build test check bench sanitize fuzz format clean install deb

all: build

$(BUILD)/Makefile:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS)

# Every test: unit, property, golden end-to-end, and the generated-file checks.
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# What CI runs (the README's test command): every tracked file clang-formatted,
# then the GCC build with warnings as errors and every test. scripts/ci.sh all
# adds the Clang ASan/UBSan suite, clang-tidy and timed fuzzing.
check:
	JOBS=$(JOBS) ./scripts/ci.sh check

# Benchmarks (Release); prints each figure the design asks for.
bench: build
	./scripts/bench.sh $(BUILD)

sanitize:
	$(MAKE) test BUILD=build-asan CMAKE_FLAGS="-DGPUPLAN_SANITIZE=ON -DGPUPLAN_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo"

# libFuzzer runs of every tests/fuzz harness (clang), FUZZ_SECONDS each.
FUZZ_SECONDS ?= 60
fuzz:
	cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
	  -DGPUPLAN_FUZZ=ON -DGPUPLAN_BUILD_BENCH=OFF
	cmake --build build-fuzz -j $(JOBS)
	./scripts/fuzz.sh build-fuzz $(FUZZ_SECONDS)

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
	rm -rf $(BUILD) build-asan build-fuzz
