# ops table: long names shortened in the middle to fit the width
$ tracediff ops tests/data/noisy/control tests/data/noisy/test --format table -q
? 0
> added (4)
>   <built-in method to of Tensor object at 0x7f11aa00ffe0>
>   ProfilerStep#7
>   torch/nn/modules/module.py(1527): _call_impl
>   torch/optim/adam.py(1530): step
> deleted (3)
>   <built-in method to of Tensor object at 0x7f3a2c01b2e0>
>   ProfilerStep#5
>   torch/nn/modules/module.py(1520): _call_impl
> increased (0)
> decreased (0)
> unchanged (4)
>   aten::copy_
>   aten::mm
>   cudaLaunchKernel
>   void at::native::vectorized_elementwise_kernel…>(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)
