# labels rename the column prefixes
$ tracediff compare tests/golden/traces/hta-trace_compare/base tests/golden/traces/hta-trace_compare/test --control-label base --test-label new --sort new_total_duration --top 3
? 0
> name,base_counts,base_total_duration,new_counts,new_total_duration,diff_counts,diff_duration,counts_change_categories
> ProfilerStep#1009,1,100298,1,100298,0,0,=
> nccl:all_reduce,1,66,1,66,0,0,=
> cudaEventQuery,1,10,1,10,0,0,=
! tracediff: note: base: 16 GPU events with no launch found (no iteration) left out; see docs/numbers.md
! tracediff: note: new: 16 GPU events with no launch found (no iteration) left out; see docs/numbers.md
