# the main help lists the commands and exit codes
$ tracediff --help
? 0
> usage: tracediff <command> [options]
>
> Compare two sets of PyTorch profiler traces: a control run and a test run.
>
> example:
>   tracediff compare examples/control examples/test --sort abs_diff_duration --top 10
>
> commands:
>   compare     per-name counts and total durations of both sides, and the diff
>   ops         the names added, deleted, increased, decreased, unchanged
>   info        ranks, iterations, files and event counts of one trace set
>   plot        bar charts of counts or durations, a flame graph, the roofline, the breakdown (.svg, .png, .pdf)
>   report      one self-contained HTML report
>   summarize   keep a trace set's aggregates in a summary (SQLite)
>   runs        the runs kept in a summary
>   trend       each name's total duration across the runs of a summary
>   check       CI gate: exit 3 when a name got significantly slower
>   explain     the kernels one op launched on each side, and its CPU time
>   breakdown   where the step time went: GPU busy, idle, overlap; diffed, as a waterfall
>   roofline    per op and shape: work, achieved rate, % of the GPU's roofline; diffed
>   completion  a shell completion script (bash or zsh) on stdout
>   man         this program's manual page (roff) on stdout
>
> A trace set is a directory of trace files (one per rank: .json, .json.gz, .json.zst;
> Nsight Systems or rocpd .sqlite/.db exports, docs/profilers.md) or one trace file.
> 'tracediff <command> --help' tells more.
>
> exit status: 0 ok, 1 bad data or I/O error, 2 bad usage, 3 regression found (check)
