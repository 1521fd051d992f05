# all ranks a side: no pointer to breakdown --per-rank
$ tracediff compare tests/golden/traces/hta-two_ranks tests/golden/traces/hta-two_ranks --format csv --top 1 --control-rank all --test-rank all
? 0
> name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories
> ## DisaggregatedTowerArchAwaitable wait() ##,2,2505,2,2505,0,0,=
