# ops with --normalize-names: folded names are unchanged, not added and deleted
$ tracediff ops tests/data/noisy/control tests/data/noisy/test --normalize-names --format json
? 0
> {
>  "added": [
>   "torch/optim/adam.py(…): step"
>  ],
>  "deleted": [],
>  "increased": [],
>  "decreased": [],
>  "unchanged": [
>   "<built-in method to of Tensor object at 0x…>",
>   "ProfilerStep#…",
>   "aten::copy_",
>   "aten::mm",
>   "cudaLaunchKernel",
>   "torch/nn/modules/module.py(…): _call_impl",
>   "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)"
>  ]
> }
