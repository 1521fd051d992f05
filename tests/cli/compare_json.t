# json: an array of row objects
$ tracediff compare tests/golden/traces/hta-trace_compare/base tests/golden/traces/hta-trace_compare/test --format json --device gpu
? 0
> [
>  {"name": "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<int>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<int>, at::detail::Array<char*, 3>)", "control_counts": 1, "control_total_duration": 4, "test_counts": 1, "test_total_duration": 4, "diff_counts": 0, "diff_duration": 0, "counts_change_categories": "="}
> ]
! tracediff: note: control: 16 GPU events with no launch found (no iteration) left out; see docs/numbers.md
! tracediff: note: test: 16 GPU events with no launch found (no iteration) left out; see docs/numbers.md
