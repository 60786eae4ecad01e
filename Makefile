# The two commands a new user runs (README): `make demo` and `make test`.
# Each installs what is missing, configures, builds with all cores and runs.
BUILD      ?= build
BUILD_TYPE ?= Release
JOBS       ?= $(shell nproc)
# Empty: CMake's default list of real architectures. CI builds sm_90 only (the H200) to stay fast.
CUDA_ARCHS ?=
ifeq ($(CI),true)
  JOBS := 2
  CUDA_ARCHS := 90
endif
CMAKE_ARGS ?=
ifneq ($(CUDA_ARCHS),)
  CMAKE_ARGS += -DCMAKE_CUDA_ARCHITECTURES=$(CUDA_ARCHS)
endif

FUZZ_BUILD   ?= build-fuzz
ASAN_BUILD   ?= build-asan
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := fuzz_ply fuzz_colmap_bin fuzz_colmap_txt fuzz_json fuzz_image fuzz_scene_formats fuzz_viewer_message


.PHONY: all deps deps-python configure build test test-cpu test-asan test-gpu test-viewer test-viewer-ran fuzz demo format clean python

all: build

# CI also installs Chromium, Node and the pinned npm packages: the browser (viewer) tests run there, never
# skipped.
ifeq ($(CI),true)
  DEPS_ARGS := --viewer
endif
deps:
	@scripts/install-deps.sh $(DEPS_ARGS)

configure: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The whole CPU suite; tests labelled `gpu` need a CUDA device (see test-gpu). CI also runs the suite
# under ASan + UBSan and every fuzzer for FUZZ_SECONDS.
ifeq ($(CI),true)
test: test-cpu test-viewer-ran test-asan fuzz
else
test: test-cpu
endif

# The Python package's tests (python/tests) need NumPy, pytest and PyTorch: installed for `make test` only.
deps-python:
	@scripts/install-deps.sh --python $(DEPS_ARGS)

# OpenMP threads sleep, not spin, at barriers while ctest runs tests side by side: spinning threads of one
# test held the cores another test's threads needed (a 7 s training took 47 s beside another; CI's CPU suite
# and sanitizer run lost minutes to it).
CTEST_ENV := OMP_WAIT_POLICY=passive

test-cpu: build deps-python
	$(CTEST_ENV) ctest --test-dir $(BUILD) -LE gpu --output-on-failure -j $(JOBS)

# The CPU suite built with AddressSanitizer + UndefinedBehaviorSanitizer (no CUDA: the sanitizers are host
# tools); any report fails the test that triggered it. -O1 -g1 keeps the build short on CI's two cores while
# reports still carry file:line; a unity build (several sources a compiler run: 550 CPU-seconds against
# 1194) halves it again. The release build stays one source a run, so that a file missing an include of its
# own still fails somewhere. The quality measurements (DistortedCapture: five 700-step trainings;
# AppearanceTraining: a 1500-step one; PoseRecovery: two 2000-step and two 1500-step ones) run in
# test-cpu: under the sanitizers the first two took 11 of CI's minutes, and they reach no code the
# Trainer.*, PoseOpt.* and undistort tests do not.
# The Python package's tests load libradiant.so into Debian's python3, which the sanitizer runtime cannot
# be preloaded into without instrumenting the interpreter: they run in test-cpu only.
ASAN_EXCLUDE := ^DistortedCapture\.|^AppearanceTraining\.ExposureFollows|^PoseRecovery\.|^python\.
test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1 -DNDEBUG" -DRADIANT_CUDA=OFF \
	  -DRADIANT_STATIC_DEPS=OFF -DRADIANT_SANITIZE=address,undefined -DCMAKE_UNITY_BUILD=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	$(CTEST_ENV) ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(ASAN_BUILD) -LE gpu -E '$(ASAN_EXCLUDE)' --output-on-failure -j $(JOBS)

# libFuzzer targets for every reader of user files (fuzz/), FUZZ_SECONDS each, with ASan + UBSan.
fuzz: deps
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only -DNDEBUG" \
	  -DRADIANT_CUDA=OFF -DRADIANT_STATIC_DEPS=OFF -DRADIANT_FUZZ=ON -DBUILD_TESTING=OFF -DCMAKE_UNITY_BUILD=ON
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(FUZZ_TARGETS)
	JOBS=$(JOBS) scripts/run-fuzzers.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# CI: the browser tests must have run, not skipped for want of Chromium or the npm packages.
test-viewer-ran: build
	@ctest --test-dir $(BUILD) -L viewer --output-on-failure | tee $(BUILD)/viewer-tests.log
	@! grep -q "Skipped" $(BUILD)/viewer-tests.log || (echo "viewer tests skipped in CI"; exit 1)

# The Python package (python/): libradiant.so built and copied beside it, so `pip install ./python` (in a
# virtual environment: Debian's Python is externally managed) or PYTHONPATH=python finds it.
python: build
	cp -L $(BUILD)/src/capi/libradiant.so python/radiant/libradiant.so
	@echo "python: pip install ./python   (or: PYTHONPATH=$(CURDIR)/python python3 -c 'import radiant')"

test-gpu: build
	ctest --test-dir $(BUILD) -L gpu --output-on-failure

# The third-party reader tests alone (they also run in `make test`, skipped without the packages).
test-viewer: build
	scripts/install-deps.sh --viewer
	ctest --test-dir $(BUILD) -L viewer --output-on-failure

demo: build
	$(BUILD)/radiant demo -o out/demo

format:
	git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' | xargs clang-format -i

clean:
	rm -rf $(BUILD) $(FUZZ_BUILD) $(ASAN_BUILD)
