# tracediff: build, test, demo. GNU make.
#
#   make            the libraries and build/tracediff
#   make demo       install what is missing, build, compare the bundled examples
#   make test       build and run every test (unit, reference cases, CLI, bad inputs),
#                   the suites two at a time (TD_TEST_JOBS, default the CPUs)
#   make sanitize   every suite under AddressSanitizer + UBSan, the reference cases
#                   on their subset (tests/subset/golden.txt)
#   make valgrind   the subset of reference cases under valgrind memcheck
#   make check-all  sanitize and valgrind on every reference case (before merging
#                   anything that touches read/ or model/)
#   make coverage-build, coverage-subset: the line coverage behind the subset
#   make bench      benchmarks (long; see bench/README.md)
#   make lint       functions over 80 lines, cppcheck
#   make format     clang-format every C file; make check-format: only check

CC      ?= cc
BUILD   ?= build
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wno-missing-field-initializers
OPT     ?= -O2 -g
CAIRO_CFLAGS := $(shell pkg-config --cflags cairo 2>/dev/null)
PCRE2_CFLAGS := $(shell pkg-config --cflags libpcre2-8 2>/dev/null)
PCRE2_LIBS   := $(shell pkg-config --libs libpcre2-8 2>/dev/null || echo -lpcre2-8)
# GSL: the t and normal distributions of compare --stats (src/compare/stats_tests.c),
# loaded at first use (src/compare/gsl_dl.h), not linked: its soname, read
# from the development library the compiler would link.
GSL_CFLAGS   := $(shell pkg-config --cflags gsl 2>/dev/null)
GSL_SONAME   := $(shell objdump -p "$$($(CC) -print-file-name=libgsl.so)" 2>/dev/null | \
                  sed -n 's/^ *SONAME *//p')
# libcrypto: SHA-256 of the files summarized (src/util/sha256.c), loaded at
# the first hash, not linked; its soname, likewise.
CRYPTO_SONAME := $(shell objdump -p "$$($(CC) -print-file-name=libcrypto.so)" 2>/dev/null | \
                  sed -n 's/^ *SONAME *//p')
CFLAGS  += $(CSTD) $(WARN) $(OPT) -Iinclude -Isrc $(PCRE2_CFLAGS) $(GSL_CFLAGS) -MMD -MP
# libtracediff: util, read, model, store, compare. No drawing.
SQLITE_CFLAGS := $(shell pkg-config --cflags sqlite3 2>/dev/null)
SQLITE_LIBS   := $(shell pkg-config --libs sqlite3 2>/dev/null || echo -lsqlite3)
CFLAGS  += $(SQLITE_CFLAGS)
CORE_LIBS   := -lisal -lzstd -lz $(PCRE2_LIBS) $(SQLITE_LIBS) -ldl -lpthread -lm
# libtracediff-render: present/ (tables, text formats, charts, report). Cairo
# is loaded when the first chart is drawn (src/present/cairo_dl.h), not linked.
RENDER_LIBS := -ldl -lm
LDLIBS  += $(RENDER_LIBS) $(CORE_LIBS)

CORE_DIRS   := src/util src/read src/model src/store src/compare
LIB_SRC     := $(foreach d,$(CORE_DIRS),$(wildcard $(d)/*.c))
RENDER_SRC  := $(wildcard src/present/*.c)
CLI_SRC     := $(wildcard src/cli/*.c)
LIB_OBJ     := $(LIB_SRC:%.c=$(BUILD)/%.o)
RENDER_OBJ  := $(RENDER_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ     := $(CLI_SRC:%.c=$(BUILD)/%.o)
# MAJOR.MINOR.PATCH from include/tracediff.h; the soname carries MAJOR.
TD_VER_PART = $(shell sed -n 's/^\#define TD_VERSION_$(1) \([0-9]*\).*/\1/p' include/tracediff.h)
VER_MAJOR   := $(call TD_VER_PART,MAJOR)
VER_MINOR   := $(call TD_VER_PART,MINOR)
VER_PATCH   := $(call TD_VER_PART,PATCH)
VERSION     := $(VER_MAJOR).$(VER_MINOR).$(VER_PATCH)
SOVER       := $(VER_MAJOR)
LIB         := $(BUILD)/libtracediff.a
RLIB        := $(BUILD)/libtracediff-render.a
SO          := $(BUILD)/libtracediff.so
RSO         := $(BUILD)/libtracediff-render.so
BIN         := $(BUILD)/tracediff
# The man page, made by the binary from its option table; docs/tracediff.1 is
# the committed copy (tests/cli_doc_test.py keeps them equal).
MAN         := $(BUILD)/tracediff.1
# A program that uses the whole library, statically linked.
LIBS_ALL    := $(RLIB) $(LIB)

.PHONY: all mpi-skipped valgrind-mpi deps demo test unit golden clitest sanitize sanitize-build valgrind \
        check-all coverage-build coverage-subset bench clean lint format check-format

all: $(BIN) $(SO) $(RSO) $(MAN)

# Library objects are position-independent: the same objects make the
# static and the shared libraries. Only what include/tracediff.h declares
# (TD_API) is exported from the shared ones.
$(LIB_OBJ) $(RENDER_OBJ): CFLAGS += -fPIC -fvisibility=hidden
# Flags live here: objects follow a change of them.
$(LIB_OBJ) $(RENDER_OBJ) $(CLI_OBJ): Makefile
$(RENDER_OBJ): CFLAGS += $(CAIRO_CFLAGS)
$(BUILD)/src/compare/gsl_dl.o: CFLAGS += $(if $(GSL_SONAME),-DTD_GSL_SONAME='"$(GSL_SONAME)"')
$(BUILD)/src/util/sha256.o: CFLAGS += $(if $(CRYPTO_SONAME),-DTD_CRYPTO_SONAME='"$(CRYPTO_SONAME)"')

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(LIB): $(LIB_OBJ)
	$(AR) rcs $@ $^

$(RLIB): $(RENDER_OBJ)
	$(AR) rcs $@ $^

$(SO): $(LIB_OBJ)
	$(CC) -shared -Wl,--no-undefined -Wl,-soname,libtracediff.so.$(SOVER) $(LDFLAGS) -o $@ \
	    $(LIB_OBJ) $(CORE_LIBS)

# The few internal helpers present/ shares with the core (errors, growable
# arrays, UTF-8, run-time loading) are hidden in libtracediff.so: the render
# library keeps its own private copy of them.
RENDER_PRIVATE := $(BUILD)/src/util/error.o $(BUILD)/src/util/utf8_text.o $(BUILD)/src/util/dl.o

$(RSO): $(RENDER_OBJ) $(RENDER_PRIVATE) $(SO)
	$(CC) -shared -Wl,--no-undefined -Wl,-soname,libtracediff-render.so.$(SOVER) $(LDFLAGS) \
	    -o $@ $(RENDER_OBJ) $(RENDER_PRIVATE) -L$(BUILD) -ltracediff $(RENDER_LIBS)

$(BIN): $(CLI_OBJ) $(LIBS_ALL)
	$(CC) $(CFLAGS) $(LDFLAGS) $(EXE_LDFLAGS) -o $@ $(CLI_OBJ) $(LIBS_ALL) $(LDLIBS)

$(MAN): $(BIN)
	$(BIN) man > $@.tmp && mv $@.tmp $@

# tracediff-mpi (mpi/): the same commands over MPI, built when Open MPI's
# mpicc is there; it links the CLI's objects but its main().
MPICC       ?= $(shell command -v mpicc 2>/dev/null)
MPI_SRC     := $(wildcard mpi/*.c)
MPI_OBJ     := $(MPI_SRC:%.c=$(BUILD)/%.o)
MPI_BIN     := $(BUILD)/tracediff-mpi
CLI_SHARED_OBJ := $(filter-out $(BUILD)/src/cli/main.o,$(CLI_OBJ))

ifneq ($(MPICC),)
all: $(MPI_BIN)

$(MPI_OBJ): $(BUILD)/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -c -o $@ $<

$(MPI_BIN): $(MPI_OBJ) $(CLI_SHARED_OBJ) $(LIBS_ALL)
	$(MPICC) $(CFLAGS) $(LDFLAGS) $(EXE_LDFLAGS) -o $@ $(MPI_OBJ) $(CLI_SHARED_OBJ) $(LIBS_ALL) $(LDLIBS)
else
all: mpi-skipped

mpi-skipped:
	@echo "tracediff-mpi: not built (no mpicc; install libopenmpi-dev openmpi-bin)"
endif

# Debian packages the build and tests need; installed only when missing.
deps:
	@sh scripts/deps.sh

demo: deps
	@$(MAKE) --no-print-directory all
	$(BIN) compare examples/control examples/test --format table --top 25 --sort abs_diff_duration

# The unit tests: one object per file, so that make -j compiles them side by
# side (one compiler run over all of them kept a core idle).
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_OBJ := $(UNIT_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN := $(BUILD)/unit_tests

$(UNIT_OBJ): $(BUILD)/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit -c -o $@ $<

$(UNIT_BIN): $(UNIT_OBJ) $(LIBS_ALL)
	$(CC) $(CFLAGS) $(LDFLAGS) $(EXE_LDFLAGS) -o $@ $(UNIT_OBJ) $(LIBS_ALL) $(LDLIBS)

unit: $(UNIT_BIN)
	$(UNIT_BIN)

golden: $(BIN)
	python3 tests/golden_test.py $(BIN) tests/golden/cases.json

clitest: $(BIN)
	python3 tests/cli_test.py $(BIN)

# The Python module is built once, before the suites that use it (python,
# gate, profilers) start side by side: each of them runs `make python`, which
# then finds it up to date instead of three makes writing it at once.
test: deps
	@$(MAKE) --no-print-directory all $(UNIT_BIN)
	@$(MAKE) --no-print-directory -s python || echo "make python failed: the python suite will say why"
	@sh tests/run_all.sh $(BUILD)

# Every suite under AddressSanitizer + UndefinedBehaviorSanitizer: every unit
# test, CLI expectation, bad input and fuzz replay; the suites that walk the
# reference cases walk the subset of them (TD_TEST_SUBSET=1, tests/cases.py),
# chosen by line coverage (scripts/choose_subset.py, numbers in
# CONTRIBUTING.md). The unit tests' randomized loops run 1/UNIT_SCALE of
# their rounds (tests/unit/harness.h: unit_rounds). make check-all: SUBSET=0
# (every case), FULL=1 (every way of loading on every case), UNIT_SCALE=1.
SUBSET ?= 1
FULL ?= 0
UNIT_SCALE ?= 10
# LeakSanitizer: LEAKS=some keeps it on for the suites whose paths allocate
# differently and every command and format (tests/commands_test.py), off for
# the loops that repeat them (tests/run_all.py: LEAKS_OFF); LEAKS=all: on
# everywhere.
LEAKS ?= some
# The executables (tracediff, tracediff-mpi, unit_tests) carry their own
# copy of the sanitizer runtimes and are not position-independent: each of
# the thousands of processes the pass starts then resolves no runtime
# symbols through the PLT nor relocates itself at start (tracediff --version:
# 44 -> 27 ms CPU without leak checks, 82 -> 56 with; CONTRIBUTING.md,
# "Times"). The Python module is a shared object loaded into a Python with
# libasan preloaded: it keeps the shared runtime (LDFLAGS only, the flags
# tests/python_test.py gives).
ASAN_EXE_LDFLAGS = -static-libasan -static-libubsan -no-pie
ASAN_BUILD = $(MAKE) --no-print-directory BUILD=build-asan \
	    OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	    LDFLAGS="-fsanitize=address,undefined" EXE_LDFLAGS="$(ASAN_EXE_LDFLAGS)"
# Only what the sanitizer pass runs: the CLI, its manual page (cli_doc),
# tracediff-mpi and the unit tests; not the shared libraries, which only the
# plain pass's layout, pip and install suites use. The Python suite builds
# its instrumented module itself. '+': $(MAKE) hides in ASAN_BUILD, and
# without it the sub-make gets no job slots and builds one file at a time.
SAN_TARGETS = build-asan/tracediff build-asan/tracediff.1 build-asan/unit_tests \
	    $(if $(MPICC),build-asan/tracediff-mpi)
sanitize-build:
	+@$(ASAN_BUILD) $(SAN_TARGETS)

# TD_PLAIN_EXE: the plain build computes the expected outputs where a suite
# checks one path against another (tests/cases.py: expectation_exe).
# The instrumented Python module is built once here, with the flags
# tests/python_test.py gives (which then finds it up to date).
sanitize: deps sanitize-build all
	+@$(ASAN_BUILD) -s python || echo "make python (build-asan) failed: the python suite will say why"
	TD_PLAIN_EXE=$(CURDIR)/$(BIN) TD_LEAKS=$(LEAKS) \
	TD_TEST_SUBSET=$(SUBSET) TD_TEST_FULL=$(FULL) TD_UNIT_SCALE=$(UNIT_SCALE) ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	    sh tests/run_all.sh build-asan

# The reference cases under valgrind memcheck: zero errors, zero leaks; what
# ASan cannot judge (reads of uninitialised memory). The cases of
# tests/subset/valgrind.txt, the fewest of the sanitizer pass's subset that
# run every line the subset runs, two at a time (SUBSET=0: every case). Then
# one case with its files loaded by child processes (forced): the transfer
# of loaded files between processes, which the other cases load in threads
# (SUBSET=0: every case of that pair).
VALGRIND = valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=all --suppressions=tests/valgrind.supp
VALGRIND_CHILD = $(if $(filter 0,$(SUBSET)),--only trace_diff,--id trace_diff.two.all)
VALGRIND_CASES = grep -v '^\#' tests/subset/valgrind.txt | TRACEDIFF_WRAP="$(VALGRIND)" \
	    xargs -P 2 -I @ python3 tests/golden_test.py $(BIN) tests/golden/cases.json --id @
valgrind: deps all
	$(if $(filter 0,$(SUBSET)),TD_TEST_SUBSET=0 TRACEDIFF_WRAP="$(VALGRIND)" \
	    python3 tests/golden_test.py $(BIN) tests/golden/cases.json --parallel 2, \
	    $(VALGRIND_CASES))
	TD_PROCESSES=1 TRACEDIFF_WRAP="$(VALGRIND)" \
	    python3 tests/golden_test.py $(BIN) tests/golden/cases.json --parallel 2 $(VALGRIND_CHILD)

# Every instrumented pass on every reference case: what sanitize and valgrind
# leave out, for changes to read/ or model/ (about 30 minutes on two cores).
check-all:
	@$(MAKE) --no-print-directory sanitize SUBSET=0 FULL=1 UNIT_SCALE=1 LEAKS=all
	@$(MAKE) --no-print-directory valgrind SUBSET=0

# The line coverage behind the subset: a build with gcc's --coverage, then
# scripts/choose_subset.py (choose: rewrite tests/subset/golden.txt; measure:
# the whole suite's coverage per folder, every case against the subset).
coverage-build:
	@$(MAKE) --no-print-directory BUILD=build-cov OPT="-O0 -g --coverage" LDFLAGS=--coverage \
	    all build-cov/unit_tests

coverage-subset: coverage-build
	python3 scripts/choose_subset.py measure build-cov

# tracediff-mpi's ranks under valgrind (Open MPI's own start-up leaks left out).
valgrind-mpi: all
	python3 scripts/mpi_valgrind.py $(BUILD)

C_FILES = $(shell git ls-files '*.c' '*.h' 2>/dev/null)

# New functions stay under 80 lines (scripts/lint-allow.txt lists the
# exceptions); cppcheck when it is installed.
lint:
	python3 scripts/func_lengths.py --max 80 $(foreach a,$(shell grep -v '^\#' scripts/lint-allow.txt),--allow $(a)) src mpi
	@if command -v cppcheck >/dev/null; then \
	    cppcheck -q -j2 --error-exitcode=1 --std=c11 --inline-suppr -Iinclude -Isrc src; fi

format:
	clang-format -i --style=file $(C_FILES)

check-format:
	clang-format --dry-run --Werror --style=file $(C_FILES)

clean:
	rm -rf $(BUILD) build-asan build-cov

# Fragments owned by their folders: fuzzing, browser tests, benchmarks,
# the Python module, make install.
-include fuzz/fuzz.mk tests/browser/browser.mk bench/bench.mk python/python.mk scripts/install.mk

-include $(LIB_OBJ:.o=.d) $(RENDER_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(MPI_OBJ:.o=.d) $(UNIT_OBJ:.o=.d)
