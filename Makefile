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

.PHONY: all deps configure build test test-gpu demo format clean

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The whole CPU suite; tests labelled `gpu` need a CUDA device (see test-gpu).
test: build
	ctest --test-dir $(BUILD) -LE gpu --output-on-failure -j $(JOBS)

test-gpu: build
	ctest --test-dir $(BUILD) -L gpu --output-on-failure

demo: build
	$(BUILD)/radiant demo -o out/demo

format:
	git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' | xargs clang-format -i

clean:
	rm -rf $(BUILD)
