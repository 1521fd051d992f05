# compare --help documents selection, rows and output
$ tracediff compare --help
? 0
> usage: tracediff compare CONTROL TEST [options]
>
> Per name (or short name): counts and total durations (us) of each side,
> their differences, and +/-/= by count. Rows are sorted by name unless --sort.
>
> selection:
>   --control-rank R, --test-rank R        R: N | N,M,... | all (default: the lowest rank)
>   --control-iteration I, --test-iteration I
>                                          I: N | N,M,... | all (default: the lowest)
>   --device all|cpu|gpu                   cpu: stream -1; gpu: every other stream
>   --short-names                          group by short names (no templates, arguments)
>   --hta-strict                           HTA's own numbers: GPU events on stream 0 get no
>                                          iteration (default: their launch's; docs/numbers.md)
>   --control-label NAME, --test-label NAME  side labels and column prefixes
>   -j, --jobs N                           files read at once (default: one per core)
>   -q, --quiet                            no notes on stderr
>
> rows:
>   --sort COLUMN [--ascending]   name, diff_duration, diff_counts, abs_diff_duration,
>                                 abs_diff_counts, control_counts, test_total_duration, ...
>                                 (numbers sort descending unless --ascending)
>   --top N                       the first N rows after sorting
>   --include REGEX, --exclude REGEX   keep or drop names (regex as in Python, PCRE2)
>
> output:
>   --format table|csv|json|markdown   (default: table on a terminal, else csv;
>                                      with -o, from the file's extension)
>   -o, --output FILE                  written whole or not at all
