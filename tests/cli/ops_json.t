# ops: the five lists
$ tracediff ops tests/golden/traces/hta-trace_compare/base tests/golden/traces/hta-trace_compare/test --format json
? 0
> {
>  "added": [],
>  "deleted": [],
>  "increased": [],
>  "decreased": [],
>  "unchanged": [
>   "ProfilerStep#1009",
>   "aten::as_strided",
>   "aten::empty",
>   "cudaEventQuery",
>   "cudaLaunchKernel",
>   "nccl:all_reduce",
>   "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<int>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<int>, at::detail::Array<char*, 3>)"
>  ]
> }
! tracediff: note: control: 16 GPU events with no launch found (no iteration) left out; see docs/numbers.md
! tracediff: note: test: 16 GPU events with no launch found (no iteration) left out; see docs/numbers.md
