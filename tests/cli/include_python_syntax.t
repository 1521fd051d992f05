# Python-style syntax: a class, a case-insensitive flag, a look-ahead
$ tracediff compare examples/control examples/test --include '(?i)^ATEN::(?!as_)\w+_$' --sort name --top 3
? 0
> name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories
> aten::add_,439,2355,435,2499,-4,144,-
> aten::clamp_,1,18,1,24,0,6,=
> aten::clamp_min_,2,20,0,0,-2,-20,-
! tracediff: note: test: 614 GPU events with no launch found (no iteration) left out; see docs/numbers.md
