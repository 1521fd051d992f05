# tracediff: build, test, demo. GNU make.
#
#   make            the library and build/tracediff
#   make demo       install what is missing, build, compare the bundled examples
#   make test       build and run every test (unit, reference cases, CLI, bad inputs)
#   make sanitize   the whole suite under AddressSanitizer + UBSan
#   make valgrind   the reference cases under valgrind memcheck
#   make bench      benchmarks (long; see bench/README.md)

CC      ?= cc
BUILD   ?= build
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wno-missing-field-initializers
OPT     ?= -O2 -g
CFLAGS  += $(CSTD) $(WARN) $(OPT) -Iinclude -Isrc -MMD -MP
LDLIBS  += -lzstd -lz -lpthread -lm

LIB_SRC := $(wildcard src/*.c)
CLI_SRC := $(wildcard src/cli/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
LIB     := $(BUILD)/libtracediff.a
BIN     := $(BUILD)/tracediff

.PHONY: all deps demo test unit golden clitest sanitize valgrind bench clean

all: $(BIN)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(LIB): $(LIB_OBJ)
	$(AR) rcs $@ $^

$(BIN): $(CLI_OBJ) $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LDLIBS)

# Debian packages the build and tests need; installed only when missing.
deps:
	@sh scripts/deps.sh

demo: deps
	@$(MAKE) --no-print-directory all
	$(BIN) compare examples/control examples/test --top 25 --sort abs_diff_duration

UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_BIN := $(BUILD)/unit_tests

$(UNIT_BIN): $(UNIT_SRC) $(LIB)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $(UNIT_SRC) $(LIB) $(LDLIBS)

unit: $(UNIT_BIN)
	$(UNIT_BIN)

golden: $(BIN)
	python3 tests/golden_test.py $(BIN) tests/golden/cases.json

clitest: $(BIN)
	python3 tests/cli_test.py $(BIN)

test: deps
	@$(MAKE) --no-print-directory all $(UNIT_BIN)
	@sh tests/run_all.sh $(BUILD)

clean:
	rm -rf $(BUILD)

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)
