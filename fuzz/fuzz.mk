# Fuzzing with libFuzzer (clang). Included by the top-level Makefile; see
# docs/fuzzing.md.
#
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS="json_scan trace_load args packed summary"]
#                      build, then run each target for FUZZ_SECONDS, one after
#                      the other; new inputs go to fuzz/corpus-work/<target>/
#                      (not committed), crashes to fuzz/crashes/<target>/
#   make fuzz-build    only build the fuzzers, in build-fuzz/
#   make fuzz-replay   replay the corpus and every saved crash (make test
#                      does this too, through tests/fuzz_replay_test.sh)

FUZZ_CC      ?= clang
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= json_scan trace_load args packed summary
FUZZ_FLAGS   ?=
# A 256-byte scanner window (normally 1 MiB), so that inputs of a few KB
# reach the window's edges, the moves of its content and its growth, while
# the inline fast paths (which want up to 80 bytes of look-ahead) are still
# taken wherever the window holds that much (src/read/json_scan.[ch]).
FUZZ_WINDOW  ?= 256
FUZZ_CFLAGS  := $(CSTD) $(WARN) -O1 -g -fno-omit-frame-pointer -Iinclude -Isrc -Ifuzz \
                $(CAIRO_CFLAGS) $(PCRE2_CFLAGS) -DTD_JSON_WINDOW=$(FUZZ_WINDOW) -MMD -MP
FUZZ_SAN     := address,undefined -fno-sanitize-recover=all
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_BUILD)/%.o) $(RENDER_SRC:%.c=$(FUZZ_BUILD)/%.o)
FUZZ_LIB     := $(FUZZ_BUILD)/libtracediff.a
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

.PHONY: fuzz fuzz-build fuzz-replay fuzz-ldlibs

$(FUZZ_BUILD)/src/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,$(FUZZ_SAN) -c -o $@ $<

$(FUZZ_LIB): $(FUZZ_LIB_OBJ)
	$(AR) rcs $@ $^

# The args target also drives the CLI's option parser (no main, no exit):
# every CLI object but main.o.
FUZZ_CLI_OBJ := $(filter-out %/main.o,$(CLI_SRC:%.c=$(FUZZ_BUILD)/%.o))
$(FUZZ_BUILD)/fuzz_args: $(FUZZ_CLI_OBJ)

$(FUZZ_BUILD)/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz_util.h $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer,$(FUZZ_SAN) -o $@ $< \
	    $(filter %.o,$^) $(FUZZ_LIB) $(LDLIBS)

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
	    mkdir -p fuzz/corpus-work/$$t fuzz/crashes/$$t; \
	    dict=; [ -f fuzz/$$t.dict ] && dict=-dict=fuzz/$$t.dict; \
	    echo "== fuzz_$$t for $(FUZZ_SECONDS) s"; \
	    $(FUZZ_BUILD)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
	        -artifact_prefix=fuzz/crashes/$$t/ $$dict $(FUZZ_FLAGS) \
	        fuzz/corpus-work/$$t fuzz/corpus/$$t || exit 1; \
	done

fuzz-replay: all
	sh tests/fuzz_replay_test.sh $(BUILD)

-include $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_CLI_OBJ:.o=.d)

# The libraries a program linking libtracediff.a needs (for the replay
# script, so that it follows the Makefile).
fuzz-ldlibs:
	@echo $(LDLIBS)
