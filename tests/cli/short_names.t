# short names merge template instances
$ tracediff compare examples/control examples/test --short-names --device gpu --sort abs_diff_duration --top 5
? 0
> short_name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories
> Memcpy DtoD (Device -> Device),3,455,768,15355,765,14900,+
> cutlass::Kernel,273,10788,0,0,-273,-10788,-
> ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t,7,12817,7,23126,0,10309,=
> ncclKernel_AllReduce_RING_LL_Sum_float,3,3439,3,13269,0,9830,=
> Memcpy HtoD (Pinned -> Device),25,6232,25,12909,0,6677,=
! tracediff: note: test: 614 GPU events with no launch found (no iteration) left out; see docs/numbers.md
