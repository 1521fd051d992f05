# -q is accepted by every command: man
$ tracediff man --format usage -q
? 0
> tracediff compare    CONTROL TEST [options]
> tracediff ops        CONTROL TEST [options]
> tracediff info       SET [options]
> tracediff plot       counts|duration|flame|roofline|breakdown CONTROL TEST [options] -o FILE
> tracediff report     CONTROL TEST [options] [-o FILE.html]
> tracediff summarize  SET [options] -o FILE.tdsum
> tracediff runs       FILE.tdsum [options]
> tracediff trend      FILE.tdsum [options]
> tracediff check      CONTROL TEST [options]
> tracediff explain    CONTROL TEST NAME [options]
> tracediff breakdown  CONTROL TEST [options]
> tracediff roofline   CONTROL TEST [options]
> tracediff completion bash|zsh [options]
> tracediff man        [options]
>
> selection:
>   --control-rank R                  [compare, ops, plot, report, check, explain, roofline]
>                                     control's ranks: N | N,M,... | all (default: the lowest rank)
>   --test-rank R                     [compare, ops, plot, report, check, explain, roofline]
>                                     test's ranks: N | N,M,... | all (default: the lowest rank)
>   --control-iteration I             [compare, ops, plot, report, check, explain, roofline]
>                                     control's iterations: N | N,M,... | all | steady (all
>                                     but the lowest: no warm-up) (default: the lowest)
>   --test-iteration I                [compare, ops, plot, report, check, explain, roofline]
>                                     test's iterations: N | N,M,... | all | steady (all but
>                                     the lowest: no warm-up) (default: the lowest)
>   --control-rank R                  [breakdown] control's ranks: N | N,M,... | all (default: all)
>   --test-rank R                     [breakdown] test's ranks: N | N,M,... | all (default: all)
>   --control-iteration I             [breakdown] control's iterations: N | N,M,... | all | steady
>                                     (default: steady with 2 or more steps, else the whole trace)
>   --test-iteration I                [breakdown] test's iterations: N | N,M,... | all | steady
>                                     (default: steady with 2 or more steps, else the whole trace)
>   --hta-scope                       [plot, breakdown]
>                                     HTA's TraceAnalysis scope instead of the selection: every
>                                     rank, the last step dropped when the set has 2 or more
>   --per-iteration                   [compare, ops, plot, report]
>                                     divide each side's counts and durations by its selected
>                                     (rank, iteration) samples: 6 iterations against 1 compare
>                                     fairly (counts then print with decimals)
>   --rank R                          [summarize] the ranks to keep: N | N,M,... | all (default: all)
>   --iteration I                     [summarize]
>                                     the iterations to keep: N | N,M,... | all (default: all)
>   --run NAME                        [summarize]
>                                     the run's name (default: the set's folder name, or the
>                                     file's name without .json[.gz|.zst])
>   --replace                         [summarize] replace a run of that name (else it is an error)
>   --runs A,B,...                    [trend] these runs, in this order (default: all, as added)
>   --names REGEX                     [trend] only the names REGEX matches (regex as in Python, PCRE2)
>   --device all|cpu|gpu              [compare, ops, plot, report, summarize, trend, check, explain]
>                                     cpu: stream -1; gpu: every other stream (default: all)
>   --short-names                     [compare, plot, report, trend, check, explain]
>                                     group by short names (no templates, arguments)
>   --cat LIST                        [compare, ops, plot, report, check, explain]
>                                     only events of these categories: cpu_op,kernel,...
>                                     ('tracediff info SET' lists them with counts and time)
>   --no-python                       [compare, ops, plot, report, check, explain]
>                                     every category but python_function
>   --normalize-names                 [compare, ops, plot, report, trend, check, explain]
>                                     one row for names that differ only by addresses (0x and
>                                     6+ hex digits), Python line numbers (file.py(N)), step
>                                     numbers (ProfilerStep#N), Inductor graph hashes
>                                     (CompiledFxGraph HASH) or Triton kernels' numbers
>                                     (triton_..._N), each shown as an ellipsis; applied before
>                                     --short-names (docs/numbers.md). The default of plot,
>                                     report, check and trend
>   --rename REGEX=REPL               [compare, ops, plot, report, trend, check, explain]
>                                     your own rule: every match of REGEX in a name becomes REPL
>                                     ($1, ${name}: its groups), so that names made equal share
>                                     a row; repeatable, applied in order before
>                                     --normalize-names and --short-names (a '=' in REGEX is
>                                     written \=; docs/numbers.md)
>   --no-normalize-names              [plot, report, trend, check]
>                                     every name its own row, as HTA groups them (the default
>                                     of compare, ops and explain)
>   --explain-names                   [compare]
>                                     print what --normalize-names folds (each folded name, the
>                                     rules that fold it and the names it holds, with counts)
>                                     instead of the rows
>   --hta-strict                      [compare, ops, plot, report, check, explain]
>                                     HTA's own numbers: GPU events on stream 0 get no
>                                     iteration (default: their launch's; docs/numbers.md)
>   --ns                              [compare, ops, info, plot, report, summarize, check, explain, breakdown, roofline]
>                                     the traces' own resolution: durations in us with their
>                                     decimals, nothing rounded (default: decimal timestamps are
>                                     rounded to whole us as HTA does; HTA_DISABLE_NS_ROUNDING=1
>                                     in the environment does the same; docs/numbers.md)
>   --nsys-names short|demangled      [compare, ops, info, plot, report, summarize, check, explain, breakdown, roofline]
>                                     kernel names of Nsight Systems exports: nsys's shortName
>                                     (default) or the demangled signature (docs/profilers.md)
>   --pid PID[,PID...]                [compare, ops, info, plot, report, summarize, check, explain, breakdown, roofline]
>                                     the events of these processes only, in each Nsight Systems
>                                     or rocpd export (info lists a file's processes;
>                                     docs/profilers.md)
>   --step-marker REGEX               [compare, ops, info, plot, report, summarize, check, explain, breakdown, roofline]
>                                     the events whose name REGEX matches (PCRE2) are the
>                                     iterations, numbered 0, 1, ... in time order, instead of
>                                     ProfilerStep#N (a train_step annotation, an NVTX range)
>   --control-label NAME              [compare, ops, plot, report, check, explain, breakdown, roofline]
>                                     control's label: headers, legends, column prefixes
>   --test-label NAME                 [compare, ops, plot, report, check, explain, breakdown, roofline]
>                                     test's label: headers, legends, column prefixes
>   -j, --jobs N                      [compare, ops, info, plot, report, summarize, check, explain, breakdown, roofline]
>                                     threads (or processes) reading the traces (default: one per core; one for under 1 MB of files)
>   -q, --quiet                       [compare, ops, info, plot, report, summarize, runs, trend, check, explain, breakdown, roofline, completion, man]
>                                     no notes on stderr
>
> statistics (compare, report, check, roofline):
>   --stats                           [roofline]
>                                     add samples (each row's GPU time per (rank, iteration),
>                                     or per call), p- and q-values and a verdict per row, as
>                                     compare --stats (docs/roofline.md)
>   --stats                           [compare, report]
>                                     add samples, p- and q-values and a verdict per name
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
> gate (check):
>   --max-regression P%               the smallest slowdown that fails the check (default 5%)
>   --min-us U                        ignore names whose control total in the selection is
>                                     under U us (default 0)
>   --gate-waits                      let waits fail the check too: synchronize calls and ops
>                                     mostly inside them or device-to-host copies (default:
>                                     listed apart, never failing; docs/stats.md)
>   --allow-new                       a name only in test is not a regression (default: it is,
>                                     when its total is at least --min-us)
>   --max-step-regression P%          also fail when the step time (ProfilerStep; without it,
>                                     the trace's span) or the GPU time per (rank, iteration)
>                                     grew by more than P% (significantly, with 3 or more
>                                     samples a side)
>   --junit FILE                      JUnit XML: a testcase per compared name, a <failure>
>                                     per regression (written whole or not at all)
>
> rows:
>   --sort COLUMN                     [compare, plot, report, explain]
>                                     name, diff_duration, diff_counts, abs_diff_duration,
>                                     abs_diff_counts, control_counts, test_total_duration, ...
>                                     (numbers sort descending unless --ascending);
>                                     with --stats also q (smallest first) and change
>   --by kernel|op|top-op|annotation|class|module
>                                     [ops, plot, check]
>                                     rows by the GPU event's own name (kernel, the default),
>                                     the cpu op that launched it (innermost or outermost),
>                                     its user annotation, its kernel class, or the nn.Module
>                                     path of its stack. Implies the GPU side (--device gpu),
>                                     but module: --device cpu gives the CPU events' modules;
>                                     GPU time with no op is the row (unattributed). See
>                                     docs/attribution.md and docs/stacks.md
>   --by kernel|op|top-op|annotation|class|module|lca-name
>                                     [compare]
>                                     rows by the GPU event's own name (kernel, the default),
>                                     the cpu op that launched it (innermost or outermost),
>                                     its user annotation, its kernel class, or the nn.Module
>                                     path of its stack. Implies the GPU side (--device gpu),
>                                     but module: --device cpu gives the CPU events' modules;
>                                     GPU time with no op is the row (unattributed). See
>                                     docs/attribution.md and docs/stacks.md. lca-name: with
>                                     --match tree, totals per LCA name (docs/tree-match.md)
>   --exclusive                       [compare, ops, plot, check, explain]
>                                     --by module: a module's own GPU time (default: with its
>                                     children's, so that the outermost module holds it all)
>   --match name|tree                 [compare, report, explain]
>                                     name: rows by name (default); tree: the same work
>                                     matched by the two call trees, a row per lowest common
>                                     ancestor with both sides' kernels, of the selected ranks
>                                     and iterations; with --stats one sample per (rank,
>                                     iteration) per LCA; report: adds "Matched by structure";
>                                     explain NAME: the LCAs of that name or path
>                                     (docs/tree-match.md)
>   --python-frames                   [compare, report, explain]
>                                     with --match tree: the python_function frames (traces
>                                     recorded with with_stack=True) join the call trees, so
>                                     LCAs and paths can be Python functions, as TraceLens
>                                     does with them (docs/tree-match.md, "Python frames")
>   --inclusive                       [explain] also the kernels launched inside the op's children, at
>                                     any depth (aten::linear: its GEMMs; needs trace files)
>   --by op|top-op|annotation|module  [explain] NAME is an innermost op (default), an outermost op,
>                                     a user annotation, or an nn.Module path (as
>                                     'compare --by module' shows it)
>   --classes FILE                    [compare, ops, plot, check]
>                                     --by class rules: class<TAB>regex lines, first match
>                                     wins (default: docs/attribution.md)
>   --ascending                       [compare, plot, report, explain] sort from the smallest number
>   --top N                           [compare, plot, report, explain] the first N rows after sorting
>   --with-rate                       [compare]
>                                     with --by op: FLOPs per call and achieved TFLOP/s per side
>                                     where roofline's model applies (record_shapes=True traces;
>                                     docs/roofline.md)
>   --top N                           [trend]
>                                     the N names that changed most (default: all; 10 in a chart)
>   --by op|class                     [roofline]
>                                     op: a row per (op, input dims, input types) (default);
>                                     class: GEMM, attention, conv, elementwise, norm
>   --control-gpu GPU                 [plot, roofline]
>                                     control's GPU: a name of the table (docs/roofline.md) or a
>                                     FILE.json in TraceLens's arch format (default: the trace's)
>   --test-gpu GPU                    [plot, roofline]
>                                     test's GPU: a name of the table or a FILE.json (default: the
>                                     trace's)
>   --per-rank                        [plot, breakdown]
>                                     one row per rank and side: step, busy, idle, exposed
>                                     communication; the slowest rank and stragglers marked
>   --straggler P%                    [plot, breakdown]
>                                     a rank whose step is more than P% above its side's
>                                     median is a straggler (default 5%)
>   --include REGEX                   [compare, plot, report, check, explain]
>                                     keep the names REGEX matches (regex as in Python, PCRE2)
>   --exclude REGEX                   [compare, plot, report, check, explain]
>                                     drop the names REGEX matches (regex as in Python, PCRE2)
>
> output:
>   --format table|csv|json|markdown|folded
>                                     [compare] default: table on a terminal, else csv;
>                                     with -o, from the file's extension. folded: each side's
>                                     GPU stacks as folded lines (CPU stacks with --device cpu;
>                                     docs/stacks.md)
>   --side control|test               [compare]
>                                     --format folded: write this side's stacks only (to -o, or
>                                     stdout); without it -o names both files: CONTROL,TEST
>   --side control|test               [plot] plot flame: draw this side alone, plain (default: the
>                                     difference, width = test time, colour = change)
>   --min-change P%                   [plot] plot flame: a frame whose time changed less is grey
>                                     (default 1%)
>   --format table|csv|json|markdown  [breakdown, roofline] default: table on a terminal, else csv;
>                                     with -o, from the file's extension
>   --format table|csv|json           [ops] default: table on a terminal, else csv (category,name)
>   --format table|json               [info] default: table
>   --format table|csv|json           [explain] default: table on a terminal, else csv
>   --format html                     [report] the only one (and the default)
>   --format FORMAT                   [plot] refused: the format follows -o's extension
>   --format table|csv|json           [runs, trend] default: table on a terminal, else csv
>   --format table|markdown|json      [check] default: table; markdown is for a pull-request comment
>   --format roff|usage|tsv           [man] roff: the man page (default); usage: README's option
>                                     list; tsv: the option table
>   --csv-safe                        [compare, ops, runs, trend, explain]
>                                     CSV for a spreadsheet: a text cell starting with = + - @,
>                                     TAB or CR gets a leading ' (numbers never do)
>   --width PX                        [plot, report]
>                                     a chart's width in pixels (default: what the labels
>                                     need; a larger width widens the bars, a smaller one is
>                                     raised to what the labels need)
>   --height PX                       [plot, report] a chart's height in pixels (default: fit; larger
>                                     heightens both panels)
>   -o, --output FILE                 [summarize]
>                                     required: the summary (created, or a run added to it)
>   -o, --output FILE                 [trend] FILE.svg, .png or .pdf draws a line chart; .txt, .csv or
>                                     .json gets the table, CSV or JSON ('-': stdout)
>   -o, --output FILE                 [compare, ops, info, runs, check, explain, breakdown, roofline]
>                                     written whole or not at all ('-': stdout); the format from
>                                     the extension (.txt table, .csv, .json, .md markdown) unless
>                                     --format says; another extension is refused
>   -o, --output FILE                 [plot]
>                                     required: .svg, .png or .pdf (from the extension); written
>                                     whole or not at all. '-o -' writes SVG to stdout
>   -o, --output FILE                 [report]
>                                     .html or .htm (default: tracediff-report.html in the current
>                                     folder); written whole or not at all ('-': stdout)
