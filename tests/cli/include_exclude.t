# regex filters on the name
$ tracediff compare examples/control examples/test --include '^aten::' --exclude 'backward|Backward' --sort abs_diff_counts --top 5
? 0
> name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories
> aten::copy_,74,6085,872,14001,798,7916,+
> aten::as_strided,768,512,302,244,-466,-268,-
> aten::clone,8,232,389,8799,381,8567,+
> aten::empty_strided,110,691,481,3541,371,2850,+
> aten::transpose,493,1135,136,419,-357,-716,-
! tracediff: note: test: 614 GPU events with no launch found (no iteration) left out; see docs/numbers.md
