# markdown: sorted by |diff_duration| by default, and says so
$ tracediff compare tests/data/noisy/control tests/data/noisy/test --format markdown -q
? 0
> Rows by |diff_duration|, largest first.
>
> | name | control_counts | control_total_duration | test_counts | test_total_duration | diff_counts | diff_duration | counts_change_categories |
> |:---|---:|---:|---:|---:|---:|---:|:---:|
> | `ProfilerStep#5` | 1 | 9,000 | 0 | 0 | -1 | -9,000 | - |
> | `ProfilerStep#7` | 0 | 0 | 1 | 9,000 | 1 | 9,000 | + |
> | `torch/nn/modules/module.py(1520): _call_impl` | 1 | 3,000 | 0 | 0 | -1 | -3,000 | - |
> | `torch/nn/modules/module.py(1527): _call_impl` | 0 | 0 | 1 | 3,000 | 1 | 3,000 | + |
> | `torch/optim/adam.py(1530): step` | 0 | 0 | 1 | 400 | 1 | 400 | + |
> | `<built-in method to of Tensor object at 0x7f11aa00ffe0>` | 0 | 0 | 1 | 50 | 1 | 50 | + |
> | `<built-in method to of Tensor object at 0x7f3a2c01b2e0>` | 1 | 50 | 0 | 0 | -1 | -50 | - |
> | `void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)` | 1 | 150 | 1 | 180 | 0 | 30 | = |
> | `aten::copy_` | 2 | 100 | 2 | 100 | 0 | 0 | = |
> | `aten::mm` | 1 | 700 | 1 | 700 | 0 | 0 | = |
> | `cudaLaunchKernel` | 1 | 12 | 1 | 12 | 0 | 0 | = |
