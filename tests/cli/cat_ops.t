# ops --no-python
$ tracediff ops tests/data/noisy/control tests/data/noisy/test --no-python -q
? 0
> category,name
> added,ProfilerStep#7
> deleted,ProfilerStep#5
> unchanged,aten::copy_
> unchanged,aten::mm
> unchanged,cudaLaunchKernel
> unchanged,"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)"
