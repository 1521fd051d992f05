# compare --help documents selection, rows and output
$ tracediff compare --help
? 0
> usage: tracediff compare CONTROL TEST [options]
>
> Per name (or short name): counts and total durations (us) of each side,
> their differences, and +/-/= by count. Rows: the table and markdown by the
> absolute change in duration, largest first; CSV and JSON by name (HTA's
> order); --sort sets the order of every format.
>
> A trace set is a directory of trace files (one per rank: .json, .json.gz,
> .json.zst; Nsight Systems or rocpd .sqlite/.db exports) or one trace file.
>
> selection:
>   --control-rank R                  control's ranks: N | N,M,... | all (default: the lowest rank)
>   --test-rank R                     test's ranks: N | N,M,... | all (default: the lowest rank)
>   --control-iteration I             control's iterations: N | N,M,... | all | steady (all
>                                     but the lowest: no warm-up) (default: the lowest)
>   --test-iteration I                test's iterations: N | N,M,... | all | steady (all but
>                                     the lowest: no warm-up) (default: the lowest)
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
>   --explain-names                   print what --normalize-names folds (each folded name, the
>                                     rules that fold it and the names it holds, with counts)
>                                     instead of the rows
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
> statistics:
>   --stats                           add samples, p- and q-values and a verdict per name
>                                     (slower, faster, noise, added, removed, n/a; docs/stats.md;
>                                     with --match tree per LCA: docs/tree-match.md)
>   --samples iteration|call|auto     iteration: one sample per selected (rank, iteration),
>                                     the name's total there (Welch's t-test); call: one per
>                                     call (Mann-Whitney U; with --by op, top-op or
>                                     annotation one per op call or annotation instance, its
>                                     GPU time). auto (default): iteration when both sides
>                                     have at least 3 such samples, else call
>   --alpha A                         false discovery rate for the q-values (default 0.05)
>   --min-change P%                   a smaller change of the mean is noise (default 1%);
>                                     report: also the flame graph's grey band
>
> rows:
>   --sort COLUMN                     name, diff_duration, diff_counts, abs_diff_duration,
>                                     abs_diff_counts, control_counts, test_total_duration, ...
>                                     (numbers sort descending unless --ascending);
>                                     with --stats also q (smallest first) and change
>   --by kernel|op|top-op|annotation|class|module|lca-name
>                                     rows by the GPU event's own name (kernel, the default),
>                                     the cpu op that launched it (innermost or outermost),
>                                     its user annotation, its kernel class, or the nn.Module
>                                     path of its stack. Implies the GPU side (--device gpu),
>                                     but module: --device cpu gives the CPU events' modules;
>                                     GPU time with no op is the row (unattributed). See
>                                     docs/attribution.md and docs/stacks.md. lca-name: with
>                                     --match tree, totals per LCA name (docs/tree-match.md)
>   --exclusive                       --by module: a module's own GPU time (default: with its
>                                     children's, so that the outermost module holds it all)
>   --match name|tree                 name: rows by name (default); tree: the same work
>                                     matched by the two call trees, a row per lowest common
>                                     ancestor with both sides' kernels, of the selected ranks
>                                     and iterations; with --stats one sample per (rank,
>                                     iteration) per LCA; report: adds "Matched by structure";
>                                     explain NAME: the LCAs of that name or path
>                                     (docs/tree-match.md)
>   --python-frames                   with --match tree: the python_function frames (traces
>                                     recorded with with_stack=True) join the call trees, so
>                                     LCAs and paths can be Python functions, as TraceLens
>                                     does with them (docs/tree-match.md, "Python frames")
>   --classes FILE                    --by class rules: class<TAB>regex lines, first match
>                                     wins (default: docs/attribution.md)
>   --ascending                       sort from the smallest number
>   --top N                           the first N rows after sorting
>   --with-rate                       with --by op: FLOPs per call and achieved TFLOP/s per side
>                                     where roofline's model applies (record_shapes=True traces;
>                                     docs/roofline.md)
>   --include REGEX                   keep the names REGEX matches (regex as in Python, PCRE2)
>   --exclude REGEX                   drop the names REGEX matches (regex as in Python, PCRE2)
>
> output:
>   --format table|csv|json|markdown|folded
>                                     default: table on a terminal, else csv;
>                                     with -o, from the file's extension. folded: each side's
>                                     GPU stacks as folded lines (CPU stacks with --device cpu;
>                                     docs/stacks.md)
>   --side control|test               --format folded: write this side's stacks only (to -o, or
>                                     stdout); without it -o names both files: CONTROL,TEST
>   --csv-safe                        CSV for a spreadsheet: a text cell starting with = + - @,
>                                     TAB or CR gets a leading ' (numbers never do)
>   -o, --output FILE                 written whole or not at all ('-': stdout); the format from
>                                     the extension (.txt table, .csv, .json, .md markdown) unless
>                                     --format says; another extension is refused
>
> examples:
>   tracediff compare examples/control examples/test --sort abs_diff_duration --top 10
>   tracediff compare examples/control examples/test --device gpu --short-names -o diff.csv
