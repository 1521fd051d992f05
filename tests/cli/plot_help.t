# plot --help: selection, rows, output (-o required)
$ tracediff plot --help
? 0
> usage: tracediff plot counts|duration|flame|roofline|breakdown CONTROL TEST [options] -o FILE
>
> A grouped bar chart, per name: control and test, and below them, on an axis
> of its own so that small changes stay visible, their difference (test -
> control, below that zero line when negative). 'counts' draws the counts
> ("Ops Count Comparison"), 'duration' the total durations ("Ops Duration
> Comparison", us). Names are shown short when that is unambiguous; in SVG
> each group's tooltip holds the full name.
>
> Rows: by default the 10 largest changes by absolute difference
> (abs_diff_counts or abs_diff_duration), ProfilerStep rows left out. Any of
> --sort, --top or --include replaces that default with exactly what is asked
> for. At most 1000 rows in one chart.
>
> 'flame' draws a differential flame graph of the GPU stacks (docs/stacks.md):
> an icicle, each frame as wide as its test time, red when slower than in
> control, blue when faster, grey within --min-change, hatched when only in
> test; each frame's tooltip gives both times and the change. --side draws
> one side alone.
>
> 'roofline' draws roofline's rows (docs/roofline.md) on log-log axes:
> intensity (FLOP/byte) against achieved TFLOP/s, each side's roofs (memory
> slope, then flat at each peak its rows use; test dashed), a point per row
> and side, and an arrow from control to test for the --top rows (default
> 10) with the most GPU time. It takes roofline's --control-gpu/--test-gpu.
>
> 'breakdown' draws where the step time went (docs/breakdown.md): the
> waterfall from control's step time to test's through each component's
> change, as `tracediff breakdown` computes it (same selection and
> defaults); with --per-rank a bar per rank and side, stacked by component,
> the slowest rank and stragglers marked.
>
> selection:
>   --control-rank R                  control's ranks: N | N,M,... | all (default: the lowest rank)
>   --test-rank R                     test's ranks: N | N,M,... | all (default: the lowest rank)
>   --control-iteration I             control's iterations: N | N,M,... | all | steady (all
>                                     but the lowest: no warm-up) (default: the lowest)
>   --test-iteration I                test's iterations: N | N,M,... | all | steady (all but
>                                     the lowest: no warm-up) (default: the lowest)
>   --hta-scope                       HTA's TraceAnalysis scope instead of the selection: every
>                                     rank, the last step dropped when the set has 2 or more
>   --per-iteration                   divide each side's counts and durations by its selected
>                                     (rank, iteration) samples: 6 iterations against 1 compare
>                                     fairly (counts then print with decimals)
>   --device all|cpu|gpu              cpu: stream -1; gpu: every other stream (default: all)
>   --short-names                     group by short names (no templates, arguments)
>   --cat LIST                        only events of these categories: cpu_op,kernel,...
>                                     ('tracediff info SET' lists them with counts and time)
>   --no-python                       every category but python_function
>   --normalize-names                 one row for names that differ only by addresses (0x and
>                                     6+ hex digits), Python line numbers (file.py(N)), step
>                                     numbers (ProfilerStep#N), Inductor graph hashes
>                                     (CompiledFxGraph HASH) or Triton kernels' numbers
>                                     (triton_..._N), each shown as an ellipsis; applied before
>                                     --short-names (docs/numbers.md). The default of plot,
>                                     report, check and trend
>   --rename REGEX=REPL               your own rule: every match of REGEX in a name becomes REPL
>                                     ($1, ${name}: its groups), so that names made equal share
>                                     a row; repeatable, applied in order before
>                                     --normalize-names and --short-names (a '=' in REGEX is
>                                     written \=; docs/numbers.md)
>   --no-normalize-names              every name its own row, as HTA groups them (the default
>                                     of compare, ops and explain)
>   --hta-strict                      HTA's own numbers: GPU events on stream 0 get no
>                                     iteration (default: their launch's; docs/numbers.md)
>   --ns                              the traces' own resolution: durations in us with their
>                                     decimals, nothing rounded (default: decimal timestamps are
>                                     rounded to whole us as HTA does; HTA_DISABLE_NS_ROUNDING=1
>                                     in the environment does the same; docs/numbers.md)
>   --nsys-names short|demangled      kernel names of Nsight Systems exports: nsys's shortName
>                                     (default) or the demangled signature (docs/profilers.md)
>   --pid PID[,PID...]                the events of these processes only, in each Nsight Systems
>                                     or rocpd export (info lists a file's processes;
>                                     docs/profilers.md)
>   --step-marker REGEX               the events whose name REGEX matches (PCRE2) are the
>                                     iterations, numbered 0, 1, ... in time order, instead of
>                                     ProfilerStep#N (a train_step annotation, an NVTX range)
>   --control-label NAME              control's label: headers, legends, column prefixes
>   --test-label NAME                 test's label: headers, legends, column prefixes
>   -j, --jobs N                      threads (or processes) reading the traces (default: one per core; one for under 1 MB of files)
>   -q, --quiet                       no notes on stderr
>
> rows:
>   --sort COLUMN                     name, diff_duration, diff_counts, abs_diff_duration,
>                                     abs_diff_counts, control_counts, test_total_duration, ...
>                                     (numbers sort descending unless --ascending);
>                                     with --stats also q (smallest first) and change
>   --by kernel|op|top-op|annotation|class|module
>                                     rows by the GPU event's own name (kernel, the default),
>                                     the cpu op that launched it (innermost or outermost),
>                                     its user annotation, its kernel class, or the nn.Module
>                                     path of its stack. Implies the GPU side (--device gpu),
>                                     but module: --device cpu gives the CPU events' modules;
>                                     GPU time with no op is the row (unattributed). See
>                                     docs/attribution.md and docs/stacks.md
>   --exclusive                       --by module: a module's own GPU time (default: with its
>                                     children's, so that the outermost module holds it all)
>   --classes FILE                    --by class rules: class<TAB>regex lines, first match
>                                     wins (default: docs/attribution.md)
>   --ascending                       sort from the smallest number
>   --top N                           the first N rows after sorting
>   --control-gpu GPU                 control's GPU: a name of the table (docs/roofline.md) or a
>                                     FILE.json in TraceLens's arch format (default: the trace's)
>   --test-gpu GPU                    test's GPU: a name of the table or a FILE.json (default: the
>                                     trace's)
>   --per-rank                        one row per rank and side: step, busy, idle, exposed
>                                     communication; the slowest rank and stragglers marked
>   --straggler P%                    a rank whose step is more than P% above its side's
>                                     median is a straggler (default 5%)
>   --include REGEX                   keep the names REGEX matches (regex as in Python, PCRE2)
>   --exclude REGEX                   drop the names REGEX matches (regex as in Python, PCRE2)
>
> output:
>   --side control|test               plot flame: draw this side alone, plain (default: the
>                                     difference, width = test time, colour = change)
>   --min-change P%                   plot flame: a frame whose time changed less is grey
>                                     (default 1%)
>   --format FORMAT                   refused: the format follows -o's extension
>   --width PX                        a chart's width in pixels (default: what the labels
>                                     need; a larger width widens the bars, a smaller one is
>                                     raised to what the labels need)
>   --height PX                       a chart's height in pixels (default: fit; larger
>                                     heightens both panels)
>   -o, --output FILE                 required: .svg, .png or .pdf (from the extension); written
>                                     whole or not at all. '-o -' writes SVG to stdout
>
> examples:
>   tracediff plot duration examples/control examples/test -o duration.svg
>   tracediff plot counts examples/control examples/test --device gpu --top 20 -o counts.png
>   tracediff plot breakdown examples/control examples/test -o breakdown.svg
