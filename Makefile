# Thin wrapper over CMake. `make test` and `make demo` install what is missing first (scripts/install_deps.sh).
JOBS ?= $(shell nproc)
# `make install` puts bin/predlake and its lib/predlake/libduckdb.so under PREFIX.
PREFIX ?= /usr/local
BUILD_DIR ?= build/release
DEBUG_DIR ?= build/debug
SAN_DIR ?= build/sanitize
CMAKE_FLAGS ?=
# Ninja (installed by scripts/install_deps.sh) for a new build folder; a folder already configured
# keeps its generator.
GENERATOR = $(if $(wildcard $(1)/CMakeCache.txt),,$(if $(shell command -v ninja),-G Ninja,))

.PHONY: all release configure debug sanitize deps check test test-release test-sanitize demo install bench format clean

all: release

deps:
	@./scripts/install_deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) $(call GENERATOR,$(BUILD_DIR)) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null

release: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

debug: deps
	@cmake -S . -B $(DEBUG_DIR) $(call GENERATOR,$(DEBUG_DIR)) -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(DEBUG_DIR) -j $(JOBS)

# Debug (assertions on) at -O1 -g1 (CMakeLists.txt; the test code at -Og, tests/CMakeLists.txt)
# under AddressSanitizer + UndefinedBehaviorSanitizer.
sanitize: deps
	@cmake -S . -B $(SAN_DIR) $(call GENERATOR,$(SAN_DIR)) -DCMAKE_BUILD_TYPE=Debug -DPREDLAKE_SANITIZE=ON -DPREDLAKE_BENCH=OFF $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(SAN_DIR) -j $(JOBS)

# The release suites include bench/scale.sh on a small lake (tests/e2e/bench_scale.sh), so its lake
# builder and its floor are built too, when the tree defines the benchmarks.
test-release: release
	@if grep -q '^PREDLAKE_BENCH:BOOL=ON' $(BUILD_DIR)/CMakeCache.txt; then \
	  cmake --build $(BUILD_DIR) -j $(JOBS) --target bench_scale_lake bench_duck_floor; fi
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# The sanitizer tree runs the tests labelled `sanitize` (tests/CMakeLists.txt): each test executable
# in a few shards (every unit test but those that repeat what others run, one SQL data file, one seed of
# each property suite with a shorter schedule, chosen at compile time) and the e2e sections that run code
# no sanitized unit test runs; `SAN_LABEL=` runs all of them. tests/CMakeLists.txt says what goes where,
# and gives each test the sanitizers' options.
SAN_LABEL ?= sanitize
test-sanitize: sanitize
	@cd $(SAN_DIR) && ctest --output-on-failure -j $(JOBS) $(if $(SAN_LABEL),-L '^$(SAN_LABEL)$$')

# The inner loop: the release tree's tests labelled `check` (every unit and SQL test, the first
# case of each property suite, the quick e2e sections), under 3 minutes on a built tree.
check: release
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) -L '^check$$'

test: test-release test-sanitize

# The demo runs the binary only: it builds that target, not the test suites. Its update exports the
# snapshot the dashboard reads (lake_ss.export_after_publish, true by default).
demo: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target predlake
	./$(BUILD_DIR)/predlake update
	./$(BUILD_DIR)/predlake describe
	@echo "The dashboard: ./$(BUILD_DIR)/predlake serve   # then open http://127.0.0.1:8050/"

# The binary, with the DuckDB library it runs with in PREFIX/lib/predlake (the installed binary's
# rpath), so that `predlake ...` works from PATH without the source tree.
install: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target predlake
	@cmake --install $(BUILD_DIR) --prefix $(PREFIX)

bench: release
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target benchmarks
	@for b in $(BUILD_DIR)/bench/bench_*; do echo "== $$b"; $$b; done

format:
	@find src tests bench \( -name '*.cpp' -o -name '*.hpp' \) -print0 | xargs -0 clang-format -i

clean:
	rm -rf build
