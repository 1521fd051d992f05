# --cat selects events: aten::copy_ is both a user_annotation (40 us) and a cpu_op (60 us) on the same thread; only the annotation is kept, and nothing is kept whole
$ tracediff compare tests/data/noisy/control tests/data/noisy/test --cat user_annotation --format csv
? 0
> name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories
> ProfilerStep#5,1,9000,0,0,-1,-9000,-
> ProfilerStep#7,0,0,1,9000,1,9000,+
> aten::copy_,1,40,1,40,0,0,=
