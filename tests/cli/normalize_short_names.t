# --normalize-names with --short-names: normalized first, then shortened
$ tracediff compare tests/data/noisy/control tests/data/noisy/test --normalize-names --short-names --format csv
? 0
> short_name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories
> ,1,50,1,50,0,0,=
> ProfilerStep#…,1,9000,1,9000,0,0,=
> _call_impl,1,3000,1,3000,0,0,=
> at::native::vectorized_elementwise_kernel,1,150,1,180,0,30,=
> aten::copy_,2,100,2,100,0,0,=
> aten::mm,1,700,1,700,0,0,=
> cudaLaunchKernel,1,12,1,12,0,0,=
> step,0,0,1,400,1,400,+
