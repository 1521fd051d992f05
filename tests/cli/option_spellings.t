# --name=VALUE, -jN, -o VALUE and --name VALUE mean the same
$ tracediff compare examples/control examples/test --top=3 -j2 --sort abs_diff_duration --format=csv -o -
? 0
> name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories
> cudaMemcpyAsync,38,10190,802,40994,764,30804,+
> aten::_local_scalar_dense,5,4819,5,32448,0,27629,=
> aten::item,5,4826,5,32455,0,27629,=
! tracediff: note: test: 614 GPU events with no launch found (no iteration) left out; see docs/numbers.md
