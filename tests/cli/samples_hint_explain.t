# explain does not take --per-iteration: the hint does not offer it
$ tracediff explain tests/data/noisy/control tests/data/noisy/test aten::mm --control-iteration all --test-iteration all --format csv
? 0
> name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories
> "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",6,900,2,360,-4,-540,-
> (CPU time),6,4200,2,1400,-4,-2800,-
! tracediff: note: control selects 6 (rank, iteration) samples and test 2: totals are not comparable
