# events with no iteration (stream 0, not cpu_op) are counted on stderr
$ tracediff compare tests/golden/traces/hta-amd tests/golden/traces/hta-triton --top 2 --sort name
? 0
> name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories
> AddmmBackward0,1,215,0,0,-1,-215,-
> MseLossBackward0,1,311,0,0,-1,-311,-
! tracediff: note: control: 16 events with no iteration (stream 0, not cpu_op) left out; see docs/numbers.md
