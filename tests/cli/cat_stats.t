# --cat with --stats: the statistics take the same events (the cpu_op aten::copy_, 60 us each, not the user_annotation of the same name)
$ tracediff compare tests/data/noisy/control tests/data/noisy/test --cat cpu_op --stats --control-iteration all --test-iteration all --format csv -q
? 0
> name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories,samples,control_n,test_n,control_mean,test_mean,control_stdev,test_stdev,control_median,test_median,control_min,control_max,test_min,test_max,diff_mean,change_pct,ci_low,ci_high,p_value,q_value,verdict,shift_us,shift_low,shift_high,reason
> aten::copy_,6,360,2,120,-4,-240,-,call,6,2,60,60,0,0,60,60,60,60,60,60,0,0,,,1,1,noise,0,0,0,
> aten::mm,6,4200,2,1400,-4,-2800,-,call,6,2,700,700,0,0,700,700,700,700,700,700,0,0,,,1,1,noise,0,0,0,
> aten::zeros,3,90,1,30,-2,-60,-,call,3,1,30,30,0,,30,30,30,30,30,30,0,0,,,,,n/a,,,,under 2 calls a side
