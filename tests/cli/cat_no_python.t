# --no-python: every category but python_function
$ tracediff compare tests/data/noisy/control tests/data/noisy/test --no-python --format csv -q
? 0
> name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories
> ProfilerStep#5,1,9000,0,0,-1,-9000,-
> ProfilerStep#7,0,0,1,9000,1,9000,+
> aten::copy_,2,100,2,100,0,0,=
> aten::mm,1,700,1,700,0,0,=
> cudaLaunchKernel,1,12,1,12,0,0,=
> "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",1,150,1,180,0,30,=
