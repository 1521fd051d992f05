# The Python module: build/python/tracediff/ (pure Python) with its C core
# tracediff/_tracediff*.so, statically linked with the libraries.
#
#   make python        build it; use with PYTHONPATH=build/python
#   make python-test   its tests (tests/python_test.py)
#
# The interpreter: PYTHON=... if given, else the first of /usr/bin/python3
# and python3 that imports pandas and has Python.h (the python3 first on PATH
# may be another interpreter without them).

PY_PROBE := import os, sys, sysconfig, pandas; \
    sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))
PY_NEEDED := $(filter python python-test python-bench,$(MAKECMDGOALS))

ifneq ($(PY_NEEDED),)
ifeq ($(origin PYTHON),undefined)
PYTHON := $(shell for p in /usr/bin/python3 python3; do \
    command -v $$p >/dev/null 2>&1 && $$p -c '$(PY_PROBE)' 2>/dev/null && { command -v $$p; break; }; done)
endif
PY_INC := $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
PY_EXT := $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>/dev/null)
endif

PY_DIR := $(BUILD)/python
PY_SRC := $(wildcard python/tracediff/*.py python/tracediff/*/*.py)
PY_OUT := $(PY_SRC:python/%=$(PY_DIR)/%)
PY_MOD := $(PY_DIR)/tracediff/_tracediff$(PY_EXT)

.PHONY: python python-test python-check python-bench

python-check:
	@test -n "$(PYTHON)" || { echo "make python: no Python 3 with pandas and Python.h found" \
	    "(apt-get install python3-dev python3-pandas, or set PYTHON=...)" >&2; exit 1; }
	@test -f "$(PY_INC)/Python.h" || { echo "make python: $(PYTHON) has no Python.h" \
	    "(apt-get install python3-dev)" >&2; exit 1; }

python: python-check $(PY_MOD) $(PY_OUT)

$(PY_DIR)/%.py: python/%.py
	@mkdir -p $(dir $@)
	cp $< $@

# Python.h is included as a system header, so its own code is not held to
# our warnings; the module's code is.
$(PY_MOD): python/_tracediff.c include/tracediff.h $(LIBS_ALL) | python-check
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT) -fPIC -fvisibility=hidden -isystem $(PY_INC) -Iinclude \
	    -shared $(LDFLAGS) -o $@ $< $(LIBS_ALL) $(LDLIBS)

python-test: python $(BIN)
	PYTHON=$(PYTHON) $(PYTHON) tests/python_test.py $(BIN)

# compare_traces from Python against the CLI (bench/python_bench.py).
python-bench: python $(BIN)
	$(PYTHON) bench/python_bench.py --bin $(BIN) --pydir $(PY_DIR)
