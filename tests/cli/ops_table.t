# ops table: each list with its size
$ tracediff ops tests/golden/traces/hta-trace_compare/base tests/golden/traces/hta-trace_compare/test --format table --device gpu
? 0
> added (0)
> deleted (0)
> increased (0)
> decreased (0)
> unchanged (1)
>   void at::native::vectorized_elementwise_kernel…> >(int, at::native::CUDAFunctor_add<int>, at::detail::Array<char*, 3>)
! tracediff: note: control: 16 GPU events with no launch found (no iteration) left out; see docs/numbers.md
! tracediff: note: test: 16 GPU events with no launch found (no iteration) left out; see docs/numbers.md
