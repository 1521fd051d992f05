# different numbers of samples without --per-iteration: a one-line hint on stderr
$ tracediff compare tests/data/noisy/control tests/data/noisy/test --control-iteration all --test-iteration all --format json
? 0
> [
>  {"name": "<built-in method to of Tensor object at 0x7f11aa00ffe0>", "control_counts": 0, "control_total_duration": 0, "test_counts": 2, "test_total_duration": 100, "diff_counts": 2, "diff_duration": 100, "counts_change_categories": "+"},
>  {"name": "<built-in method to of Tensor object at 0x7f3a2c01b2e0>", "control_counts": 6, "control_total_duration": 300, "test_counts": 0, "test_total_duration": 0, "diff_counts": -6, "diff_duration": -300, "counts_change_categories": "-"},
>  {"name": "ProfilerStep#10", "control_counts": 1, "control_total_duration": 9000, "test_counts": 0, "test_total_duration": 0, "diff_counts": -1, "diff_duration": -9000, "counts_change_categories": "-"},
>  {"name": "ProfilerStep#5", "control_counts": 1, "control_total_duration": 9000, "test_counts": 0, "test_total_duration": 0, "diff_counts": -1, "diff_duration": -9000, "counts_change_categories": "-"},
>  {"name": "ProfilerStep#6", "control_counts": 1, "control_total_duration": 9000, "test_counts": 0, "test_total_duration": 0, "diff_counts": -1, "diff_duration": -9000, "counts_change_categories": "-"},
>  {"name": "ProfilerStep#7", "control_counts": 1, "control_total_duration": 9000, "test_counts": 1, "test_total_duration": 9000, "diff_counts": 0, "diff_duration": 0, "counts_change_categories": "="},
>  {"name": "ProfilerStep#8", "control_counts": 1, "control_total_duration": 9000, "test_counts": 1, "test_total_duration": 9000, "diff_counts": 0, "diff_duration": 0, "counts_change_categories": "="},
>  {"name": "ProfilerStep#9", "control_counts": 1, "control_total_duration": 9000, "test_counts": 0, "test_total_duration": 0, "diff_counts": -1, "diff_duration": -9000, "counts_change_categories": "-"},
>  {"name": "aten::copy_", "control_counts": 12, "control_total_duration": 600, "test_counts": 4, "test_total_duration": 200, "diff_counts": -8, "diff_duration": -400, "counts_change_categories": "-"},
>  {"name": "aten::mm", "control_counts": 6, "control_total_duration": 4200, "test_counts": 2, "test_total_duration": 1400, "diff_counts": -4, "diff_duration": -2800, "counts_change_categories": "-"},
>  {"name": "aten::zeros", "control_counts": 3, "control_total_duration": 90, "test_counts": 1, "test_total_duration": 30, "diff_counts": -2, "diff_duration": -60, "counts_change_categories": "-"},
>  {"name": "cudaLaunchKernel", "control_counts": 6, "control_total_duration": 72, "test_counts": 2, "test_total_duration": 24, "diff_counts": -4, "diff_duration": -48, "counts_change_categories": "-"},
>  {"name": "torch/nn/modules/module.py(1520): _call_impl", "control_counts": 6, "control_total_duration": 18000, "test_counts": 0, "test_total_duration": 0, "diff_counts": -6, "diff_duration": -18000, "counts_change_categories": "-"},
>  {"name": "torch/nn/modules/module.py(1527): _call_impl", "control_counts": 0, "control_total_duration": 0, "test_counts": 2, "test_total_duration": 6000, "diff_counts": 2, "diff_duration": 6000, "counts_change_categories": "+"},
>  {"name": "torch/optim/adam.py(1530): step", "control_counts": 0, "control_total_duration": 0, "test_counts": 2, "test_total_duration": 800, "diff_counts": 2, "diff_duration": 800, "counts_change_categories": "+"},
>  {"name": "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)", "control_counts": 6, "control_total_duration": 900, "test_counts": 2, "test_total_duration": 360, "diff_counts": -4, "diff_duration": -540, "counts_change_categories": "-"}
> ]
! tracediff: note: control selects 6 (rank, iteration) samples and test 2: totals are not comparable; --per-iteration divides by them
! tracediff: note: 4 names differ only by addresses or line numbers; --normalize-names folds them (--explain-names shows how)
