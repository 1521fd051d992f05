# markdown: names in code spans, pipes escaped
$ tracediff compare tests/golden/traces/hta-trace_compare/base tests/golden/traces/hta-trace_compare/test --format markdown --device cpu
? 0
> Rows by |diff_duration|, largest first.
>
> | name | control_counts | control_total_duration | test_counts | test_total_duration | diff_counts | diff_duration | counts_change_categories |
> |:---|---:|---:|---:|---:|---:|---:|:---:|
> | `ProfilerStep#1009` | 1 | 100,298 | 1 | 100,298 | 0 | 0 | = |
> | `aten::as_strided` | 1 | 0 | 1 | 0 | 0 | 0 | = |
> | `aten::empty` | 1 | 2 | 1 | 2 | 0 | 0 | = |
> | `cudaEventQuery` | 1 | 10 | 1 | 10 | 0 | 0 | = |
> | `cudaLaunchKernel` | 1 | 4 | 1 | 4 | 0 | 0 | = |
> | `nccl:all_reduce` | 1 | 66 | 1 | 66 | 0 | 0 | = |
