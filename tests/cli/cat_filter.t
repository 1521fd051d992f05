# --cat: only events of the listed categories
$ tracediff compare tests/data/noisy/control tests/data/noisy/test --cat kernel,cuda_runtime --format csv
? 0
> name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories
> cudaLaunchKernel,1,12,1,12,0,0,=
> "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",1,150,1,180,0,30,=
