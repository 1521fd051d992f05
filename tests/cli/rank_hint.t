# compare of sets with several ranks, one a side: the note points to breakdown --per-rank
$ tracediff compare tests/golden/traces/hta-two_ranks tests/golden/traces/hta-two_ranks --format csv --top 1
? 0
> name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories
> ## DisaggregatedTowerArchAwaitable wait() ##,1,1235,1,1235,0,0,=
! tracediff: note: control compares 1 of 2 ranks and test 1 of 2; 'tracediff breakdown --per-rank CONTROL TEST' shows every rank, the slowest and stragglers marked
