# JSON keeps HTA's order (by name) by default
$ tracediff compare tests/data/noisy/control tests/data/noisy/test --format json -q
? 0
> [
>  {"name": "<built-in method to of Tensor object at 0x7f11aa00ffe0>", "control_counts": 0, "control_total_duration": 0, "test_counts": 1, "test_total_duration": 50, "diff_counts": 1, "diff_duration": 50, "counts_change_categories": "+"},
>  {"name": "<built-in method to of Tensor object at 0x7f3a2c01b2e0>", "control_counts": 1, "control_total_duration": 50, "test_counts": 0, "test_total_duration": 0, "diff_counts": -1, "diff_duration": -50, "counts_change_categories": "-"},
>  {"name": "ProfilerStep#5", "control_counts": 1, "control_total_duration": 9000, "test_counts": 0, "test_total_duration": 0, "diff_counts": -1, "diff_duration": -9000, "counts_change_categories": "-"},
>  {"name": "ProfilerStep#7", "control_counts": 0, "control_total_duration": 0, "test_counts": 1, "test_total_duration": 9000, "diff_counts": 1, "diff_duration": 9000, "counts_change_categories": "+"},
>  {"name": "aten::copy_", "control_counts": 2, "control_total_duration": 100, "test_counts": 2, "test_total_duration": 100, "diff_counts": 0, "diff_duration": 0, "counts_change_categories": "="},
>  {"name": "aten::mm", "control_counts": 1, "control_total_duration": 700, "test_counts": 1, "test_total_duration": 700, "diff_counts": 0, "diff_duration": 0, "counts_change_categories": "="},
>  {"name": "cudaLaunchKernel", "control_counts": 1, "control_total_duration": 12, "test_counts": 1, "test_total_duration": 12, "diff_counts": 0, "diff_duration": 0, "counts_change_categories": "="},
>  {"name": "torch/nn/modules/module.py(1520): _call_impl", "control_counts": 1, "control_total_duration": 3000, "test_counts": 0, "test_total_duration": 0, "diff_counts": -1, "diff_duration": -3000, "counts_change_categories": "-"},
>  {"name": "torch/nn/modules/module.py(1527): _call_impl", "control_counts": 0, "control_total_duration": 0, "test_counts": 1, "test_total_duration": 3000, "diff_counts": 1, "diff_duration": 3000, "counts_change_categories": "+"},
>  {"name": "torch/optim/adam.py(1530): step", "control_counts": 0, "control_total_duration": 0, "test_counts": 1, "test_total_duration": 400, "diff_counts": 1, "diff_duration": 400, "counts_change_categories": "+"},
>  {"name": "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)", "control_counts": 1, "control_total_duration": 150, "test_counts": 1, "test_total_duration": 180, "diff_counts": 0, "diff_duration": 30, "counts_change_categories": "="}
> ]
