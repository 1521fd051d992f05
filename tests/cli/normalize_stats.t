# --normalize-names with --stats: the statistics group by the same folded names
$ tracediff compare tests/data/noisy/control tests/data/noisy/test --normalize-names --stats --control-iteration all --test-iteration all --format csv
? 0
> name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories,samples,control_n,test_n,control_mean,test_mean,control_stdev,test_stdev,control_median,test_median,control_min,control_max,test_min,test_max,diff_mean,change_pct,ci_low,ci_high,p_value,q_value,verdict,shift_us,shift_low,shift_high,reason
> <built-in method to of Tensor object at 0x…>,6,300,2,100,-4,-200,-,call,6,2,50,50,0,0,50,50,50,50,50,50,0,0,,,1,1,noise,0,0,0,
> ProfilerStep#…,6,54000,2,18000,-4,-36000,-,call,6,2,9000,9000,0,0,9000,9000,9000,9000,9000,9000,0,0,,,1,1,noise,0,0,0,
> aten::copy_,12,600,4,200,-8,-400,-,call,12,4,50,50,10.44465935734187,11.547005383792516,50,50,40,60,40,60,0,0,,,1,1,noise,0,-20,20,
> aten::mm,6,4200,2,1400,-4,-2800,-,call,6,2,700,700,0,0,700,700,700,700,700,700,0,0,,,1,1,noise,0,0,0,
> aten::zeros,3,90,1,30,-2,-60,-,call,3,1,30,30,0,,30,30,30,30,30,30,0,0,,,,,n/a,,,,under 2 calls a side
> cudaLaunchKernel,6,72,2,24,-4,-48,-,call,6,2,12,12,0,0,12,12,12,12,12,12,0,0,,,1,1,noise,0,0,0,
> torch/nn/modules/module.py(…): _call_impl,6,18000,2,6000,-4,-12000,-,call,6,2,3000,3000,0,0,3000,3000,3000,3000,3000,3000,0,0,,,1,1,noise,0,0,0,
> torch/optim/adam.py(…): step,0,0,2,800,2,800,+,call,0,2,,400,,0,,400,,,400,400,,,,,,,added,,,,
> "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",6,900,2,360,-4,-540,-,call,6,2,150,180,0,0,150,180,150,150,180,180,30,20,,,0.015296919476967112,0.10707843633876979,noise,30,30,30,
! tracediff: note: control selects 6 (rank, iteration) samples and test 2: totals are not comparable; --per-iteration divides by them
