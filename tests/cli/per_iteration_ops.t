# ops --per-iteration: increased/decreased/unchanged by the counts per (rank, iteration) sample
$ tracediff ops tests/data/noisy/control tests/data/noisy/test --control-iteration all --test-iteration all --per-iteration --format csv -q
? 0
> category,name
> added,<built-in method to of Tensor object at 0x7f11aa00ffe0>
> added,torch/nn/modules/module.py(1527): _call_impl
> added,torch/optim/adam.py(1530): step
> deleted,<built-in method to of Tensor object at 0x7f3a2c01b2e0>
> deleted,ProfilerStep#10
> deleted,ProfilerStep#5
> deleted,ProfilerStep#6
> deleted,ProfilerStep#9
> deleted,torch/nn/modules/module.py(1520): _call_impl
> increased,ProfilerStep#7
> increased,ProfilerStep#8
> unchanged,aten::copy_
> unchanged,aten::mm
> unchanged,aten::zeros
> unchanged,cudaLaunchKernel
> unchanged,"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)"
