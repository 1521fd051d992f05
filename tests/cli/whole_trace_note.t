# no ProfilerStep: whole traces compared, said on stderr
$ tracediff compare tests/golden/traces/hta-no_steps tests/golden/traces/hta-trace_compare/test --device cpu --sort abs_diff_duration --top 3
? 0
> name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories
> [param|cuda],1,41579770,0,0,-1,-41579770,-
> [param|pytorch.model.alex_net|0|0|0|warmup|forward],2,31289653,0,0,-2,-31289653,-
> aten::to,20,24655662,0,0,-20,-24655662,-
! tracediff: note: control (tests/golden/traces/hta-no_steps) has no ProfilerStep: comparing the whole trace
