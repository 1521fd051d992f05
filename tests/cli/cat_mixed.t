# --cat goes by name: a name under a kept and a left-out category keeps all its events, and a note says so
$ tracediff compare tests/data/noisy/control tests/data/noisy/test --cat user_annotation --format csv
? 0
> name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories
> ProfilerStep#5,1,9000,0,0,-1,-9000,-
> ProfilerStep#7,0,0,1,9000,1,9000,+
> aten::copy_,2,100,2,100,0,0,=
! tracediff: note: control: 1 name under both kept and left-out categories: kept whole (--cat goes by name)
! tracediff: note: test: 1 name under both kept and left-out categories: kept whole (--cat goes by name)
