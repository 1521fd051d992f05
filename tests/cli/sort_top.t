# sort by a column, descending by default, cut to top N
$ tracediff compare examples/control examples/test --sort diff_duration --top 5
? 0
> name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories
> cudaMemcpyAsync,38,10190,802,40994,764,30804,+
> aten::_local_scalar_dense,5,4819,5,32448,0,27629,=
> aten::item,5,4826,5,32455,0,27629,=
> ## sparse_data_dist ##,1,10246,1,36898,0,26652,=
> ProfilerStep#1009,1,75473,1,100298,0,24825,=
! tracediff: note: test: 614 GPU events with no launch found (no iteration) left out; see docs/numbers.md
