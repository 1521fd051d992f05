# make bench: tracediff against its floors and HTA's figures, on inputs
# generated into bench/out/inputs/ from tests/golden/traces/ (kept between
# runs). Writes bench/out/results.md. About 5 minutes from a fresh clone;
# BENCH_QUICK=1 for a subset (under 2 minutes); BENCH_RUNS=N runs per timing
# (median reported, default 3); BENCH_NICE=-10 to run at that priority in a
# scheduler autogroup of its own (root). See bench/README.md.

SCAN_FLOOR := $(BUILD)/scan_floor
RUNSTAT    := $(BUILD)/runstat
BENCH_OUT  ?= bench/out
BENCH_RUNS ?= 3

$(SCAN_FLOOR): bench/scan_floor.c $(LIB)
	$(CC) -O2 $(CSTD) -Iinclude -Isrc -o $@ bench/scan_floor.c $(LIB) $(CORE_LIBS)

$(RUNSTAT): bench/runstat.c
	@mkdir -p $(dir $@)
	$(CC) -O2 $(CSTD) $(WARN) -o $@ bench/runstat.c

bench: deps
	@$(MAKE) --no-print-directory all $(SCAN_FLOOR) $(RUNSTAT)
	python3 bench/run_bench.py --bin $(BIN) --floor $(SCAN_FLOOR) --runstat $(RUNSTAT) \
	    --out $(BENCH_OUT) \
	    --runs $(BENCH_RUNS) --cc $(CC) $(if $(filter-out 0,$(BENCH_QUICK)),--quick) \
	    $(if $(BENCH_NICE),--nice $(BENCH_NICE))

# Summaries against traces: size share and compare speed-up (bench/summary_bench.sh).
.PHONY: bench-summary
bench-summary: all
	sh bench/summary_bench.sh $(SUMMARY_SCALE)

# tracediff-mpi against the CLI on 64 ranks per side (bench/mpi_bench.py).
.PHONY: bench-mpi
bench-mpi: all
	python3 bench/mpi_bench.py --bin $(BIN) --out $(BENCH_OUT) --runs $(BENCH_RUNS)
