# make bench: tracediff against its floors and HTA's figures, on inputs
# generated into bench/out/inputs/ from tests/golden/traces/ (kept between
# runs). Writes bench/out/results.md. About 5 minutes from a fresh clone;
# BENCH_QUICK=1 for a subset (under 2 minutes); BENCH_RUNS=N runs per timing
# (median reported, default 3); BENCH_NICE=-10 to run at that priority in a
# scheduler autogroup of its own (root). See bench/README.md.

SCAN_FLOOR := $(BUILD)/scan_floor
RUNSTAT    := $(BUILD)/runstat
SIMDJSON_WALK := $(BUILD)/simdjson_walk
CXX        ?= g++
BENCH_OUT  ?= bench/out
BENCH_RUNS ?= 3

$(SCAN_FLOOR): bench/scan_floor.c $(LIB)
	$(CC) -O2 $(CSTD) -Iinclude -Isrc -o $@ bench/scan_floor.c $(LIB) $(CORE_LIBS)

# The anchor: simdjson on-demand (bench only; bench/deps.sh installs it).
$(SIMDJSON_WALK): bench/simdjson_walk.cpp
	@mkdir -p $(dir $@)
	$(CXX) -O2 -std=c++17 -Wall -Wextra -Werror -o $@ bench/simdjson_walk.cpp -lsimdjson

# Which inflater to link: isa-l, zlib, libdeflate (bench only).
INFLATE_BENCH := $(BUILD)/inflate_bench
$(INFLATE_BENCH): bench/inflate_bench.c
	@mkdir -p $(dir $@)
	$(CC) -O2 $(CSTD) $(WARN) -o $@ bench/inflate_bench.c -lisal -lz -ldeflate

$(RUNSTAT): bench/runstat.c
	@mkdir -p $(dir $@)
	$(CC) -O2 $(CSTD) $(WARN) -o $@ bench/runstat.c

bench-deps: deps
	@sh bench/deps.sh

bench: bench-deps
	@$(MAKE) --no-print-directory all $(SCAN_FLOOR) $(RUNSTAT) $(SIMDJSON_WALK) $(INFLATE_BENCH)
	python3 bench/run_bench.py --bin $(BIN) --floor $(SCAN_FLOOR) --runstat $(RUNSTAT) \
	    --simdjson $(SIMDJSON_WALK) --inflate $(INFLATE_BENCH) \
	    --out $(BENCH_OUT) \
	    --runs $(BENCH_RUNS) --cc $(CC) $(if $(filter-out 0,$(BENCH_QUICK)),--quick) \
	    $(if $(BENCH_NICE),--nice $(BENCH_NICE))
.PHONY: bench-deps

# Summaries against traces: size share and compare speed-up (bench/summary_bench.sh).
.PHONY: bench-summary
bench-summary: all
	sh bench/summary_bench.sh $(SUMMARY_SCALE)

# The cost of compare --stats against a plain compare (target: at most 1.3x).
bench-stats: $(BIN)
	sh bench/stats_cost.sh $(BIN)

# The cost of breakdown against a plain compare (target: at most 1.3x).
bench-breakdown: $(BIN)
	sh bench/breakdown_cost.sh $(BIN)

# The cost of compare --match tree against a plain compare, in CPU time (target: under 2x).
bench-tree: $(BIN) $(RUNSTAT)
	sh bench/tree_cost.sh $(BIN)

# The cost of roofline against a plain compare, in CPU time (target: at most 1.5x).
bench-roofline: $(BIN) $(RUNSTAT)
	sh bench/roofline_cost.sh $(BIN)

# make bench-attribution: compare --by op against a plain compare (bench/attribution.sh).
bench-attribution: all
	sh bench/attribution.sh $(BIN) $(or $(BENCH_RUNS),5)

# tracediff-mpi against the CLI on 64 ranks per side (bench/mpi_bench.py).
.PHONY: bench-mpi
bench-mpi: all
	python3 bench/mpi_bench.py --bin $(BIN) --out $(BENCH_OUT) --runs $(BENCH_RUNS)
