# info --help: only the options info takes
$ tracediff info --help
? 0
> usage: tracediff info SET [options]
>
> Ranks, iterations, files, sizes and event counts by category of one set.
>
> A trace set is a directory of trace files (one per rank: .json, .json.gz,
> .json.zst; Nsight Systems or rocpd .sqlite/.db exports) or one trace file.
>
> selection:
>   --ns                           the traces' own resolution: durations in us with their
>                                  decimals, nothing rounded (default: decimal timestamps are
>                                  rounded to whole us as HTA does; HTA_DISABLE_NS_ROUNDING=1
>                                  in the environment does the same; docs/numbers.md)
>   --nsys-names short|demangled   kernel names of Nsight Systems exports: nsys's shortName
>                                  (default) or the demangled signature (docs/profilers.md)
>   --pid PID[,PID...]             the events of these processes only, in each Nsight Systems
>                                  or rocpd export (info lists a file's processes;
>                                  docs/profilers.md)
>   --step-marker REGEX            the events whose name REGEX matches (PCRE2) are the
>                                  iterations, numbered 0, 1, ... in time order, instead of
>                                  ProfilerStep#N (a train_step annotation, an NVTX range)
>   -j, --jobs N                   threads (or processes) reading the traces (default: one per core; one for under 1 MB of files)
>   -q, --quiet                    no notes on stderr
>
> output:
>   --format table|json            default: table
>   -o, --output FILE              written whole or not at all ('-': stdout); the format from
>                                  the extension (.txt table, .csv, .json, .md markdown) unless
>                                  --format says; another extension is refused
>
> examples:
>   tracediff info examples/control
>   tracediff info examples/test --format json
