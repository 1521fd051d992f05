# --per-iteration: 6 control iterations against 2 test ones, divided per (rank, iteration) sample; counts with decimals
$ tracediff compare tests/data/noisy/control tests/data/noisy/test --control-iteration all --test-iteration all --per-iteration --format csv -q
? 0
> name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories
> <built-in method to of Tensor object at 0x7f11aa00ffe0>,0,0,1,50,1,50,+
> <built-in method to of Tensor object at 0x7f3a2c01b2e0>,1,50,0,0,-1,-50,-
> ProfilerStep#10,0.16666666666666666,1500,0,0,-0.16666666666666666,-1500,-
> ProfilerStep#5,0.16666666666666666,1500,0,0,-0.16666666666666666,-1500,-
> ProfilerStep#6,0.16666666666666666,1500,0,0,-0.16666666666666666,-1500,-
> ProfilerStep#7,0.16666666666666666,1500,0.5,4500,0.33333333333333337,3000,+
> ProfilerStep#8,0.16666666666666666,1500,0.5,4500,0.33333333333333337,3000,+
> ProfilerStep#9,0.16666666666666666,1500,0,0,-0.16666666666666666,-1500,-
> aten::copy_,2,100,2,100,0,0,=
> aten::mm,1,700,1,700,0,0,=
> aten::zeros,0.5,15,0.5,15,0,0,=
> cudaLaunchKernel,1,12,1,12,0,0,=
> torch/nn/modules/module.py(1520): _call_impl,1,3000,0,0,-1,-3000,-
> torch/nn/modules/module.py(1527): _call_impl,0,0,1,3000,1,3000,+
> torch/optim/adam.py(1530): step,0,0,1,400,1,400,+
> "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",1,150,1,180,0,30,=
