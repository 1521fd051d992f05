# ops --help: selection and output options, an example
$ tracediff ops --help
? 0
> usage: tracediff ops CONTROL TEST [options]
>
> The five ops_diff lists by full name: added, deleted, increased, decreased,
> unchanged (each sorted by name). --short-names does not apply here.
>
> On a terminal, a list per category fitted to its width (long names cut as
> compare's table cuts them); piped, CSV with one line per name (category,name; full
> names); --format json, HTA's ops_diff as an object of five arrays.
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
>
> output:
>   --format table|csv|json           default: table on a terminal, else csv (category,name)
>   --csv-safe                        CSV for a spreadsheet: a text cell starting with = + - @,
>                                     TAB or CR gets a leading ' (numbers never do)
>   -o, --output FILE                 written whole or not at all ('-': stdout); the format from
>                                     the extension (.txt table, .csv, .json, .md markdown) unless
>                                     --format says; another extension is refused
>
> examples:
>   tracediff ops examples/control examples/test
>   tracediff ops examples/control examples/test --device cpu --format json
