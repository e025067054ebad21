# Thin wrapper over CMake so the README's commands stay short.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all build test bench sanitize format clean

all: build

$(BUILD)/Makefile:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS)

# Every test: unit, property, golden end-to-end, and the generated-file checks.
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Benchmarks (Release); prints each figure the design asks for.
bench: build
	./scripts/bench.sh $(BUILD)

sanitize:
	$(MAKE) test BUILD=build-asan CMAKE_FLAGS="-DGPUPLAN_SANITIZE=ON -DGPUPLAN_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo"

format:
	git ls-files '*.cc' '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD) build-asan
