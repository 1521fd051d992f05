# GPU events whose launch is not in the trace have no iteration: counted on stderr
$ tracediff compare tests/golden/traces/hta-trace_compare/base tests/golden/traces/hta-trace_compare/test --device gpu --format csv
? 0
> name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories
> "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<int>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<int>, at::detail::Array<char*, 3>)",1,4,1,4,0,0,=
! tracediff: note: control: 16 GPU events with no launch found (no iteration) left out; see docs/numbers.md
! tracediff: note: test: 16 GPU events with no launch found (no iteration) left out; see docs/numbers.md
