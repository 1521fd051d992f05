# --normalize-names: addresses, .py(line) and ProfilerStep#N fold; folded rows add up
$ tracediff compare tests/data/noisy/control tests/data/noisy/test --normalize-names --control-iteration all --test-iteration all --format csv
? 0
> name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories
> <built-in method to of Tensor object at 0x…>,6,300,2,100,-4,-200,-
> ProfilerStep#…,6,54000,2,18000,-4,-36000,-
> aten::copy_,12,600,4,200,-8,-400,-
> aten::mm,6,4200,2,1400,-4,-2800,-
> aten::zeros,3,90,1,30,-2,-60,-
> cudaLaunchKernel,6,72,2,24,-4,-48,-
> torch/nn/modules/module.py(…): _call_impl,6,18000,2,6000,-4,-12000,-
> torch/optim/adam.py(…): step,0,0,2,800,2,800,+
> "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",6,900,2,360,-4,-540,-
! tracediff: note: control selects 6 (rank, iteration) samples and test 2: totals are not comparable; --per-iteration divides by them
