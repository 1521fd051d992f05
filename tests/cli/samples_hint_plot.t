# plot: different numbers of samples without --per-iteration: the hint names the option plot takes
$ tracediff plot duration tests/data/noisy/control tests/data/noisy/test --control-iteration all --test-iteration all --include ^nothing$ -o -
? 0
> <svg xmlns="http://www.w3.org/2000/svg" class="td-chart" data-kind="duration" width="670" height="609" viewBox="0 0 670 609" font-family="DejaVu Sans, Verdana, Geneva, sans-serif" role="img" aria-label="Ops Duration Comparison">
> <rect x="0" y="0" width="670" height="609" fill="#FFFFFF"/>
> <text x="335" y="34" font-size="18" fill="#222222" text-anchor="middle" font-weight="bold">Ops Duration Comparison</text>
> <text x="335" y="56" font-size="13" fill="#777777" text-anchor="middle">control (rank 0, iterations 5–10) vs test (rank 0, iterations 7,8) · cpu and gpu, normalized names</text>
> <rect x="166.5" y="69" width="12" height="12" fill="#4E79A7"/>
> <text x="184.5" y="80" font-size="13" fill="#222222">control</text>
> <rect x="251.5" y="69" width="12" height="12" fill="#F28E2B"/>
> <text x="269.5" y="80" font-size="13" fill="#222222">test</text>
> <rect x="316.5" y="69" width="12" height="12" fill="#B07AA1"/>
> <text x="334.5" y="80" font-size="13" fill="#222222">difference (test − control)</text>
> <line x1="60" y1="404.5" x2="420" y2="404.5" stroke="#E4E4E4" stroke-width="1"/>
> <line x1="55" y1="404.5" x2="60" y2="404.5" stroke="#444444" stroke-width="1"/>
> <text x="52" y="408.7" font-size="12" fill="#222222" text-anchor="end">0</text>
> <line x1="60" y1="344.5" x2="420" y2="344.5" stroke="#E4E4E4" stroke-width="1"/>
> <line x1="55" y1="344.5" x2="60" y2="344.5" stroke="#444444" stroke-width="1"/>
> <text x="52" y="348.7" font-size="12" fill="#222222" text-anchor="end">0.2</text>
> <line x1="60" y1="284.5" x2="420" y2="284.5" stroke="#E4E4E4" stroke-width="1"/>
> <line x1="55" y1="284.5" x2="60" y2="284.5" stroke="#444444" stroke-width="1"/>
> <text x="52" y="288.7" font-size="12" fill="#222222" text-anchor="end">0.4</text>
> <line x1="60" y1="223.5" x2="420" y2="223.5" stroke="#E4E4E4" stroke-width="1"/>
> <line x1="55" y1="223.5" x2="60" y2="223.5" stroke="#444444" stroke-width="1"/>
> <text x="52" y="227.7" font-size="12" fill="#222222" text-anchor="end">0.6</text>
> <line x1="60" y1="164.5" x2="420" y2="164.5" stroke="#E4E4E4" stroke-width="1"/>
> <line x1="55" y1="164.5" x2="60" y2="164.5" stroke="#444444" stroke-width="1"/>
> <text x="52" y="168.7" font-size="12" fill="#222222" text-anchor="end">0.8</text>
> <line x1="60" y1="104.5" x2="420" y2="104.5" stroke="#E4E4E4" stroke-width="1"/>
> <line x1="55" y1="104.5" x2="60" y2="104.5" stroke="#444444" stroke-width="1"/>
> <text x="52" y="108.7" font-size="12" fill="#222222" text-anchor="end">1.0</text>
> <text x="24" y="254" font-size="13" fill="#222222" text-anchor="middle" transform="rotate(-90 24 254)">Total Duration (us)</text>
> <line x1="60" y1="576.5" x2="420" y2="576.5" stroke="#E4E4E4" stroke-width="1"/>
> <line x1="55" y1="576.5" x2="60" y2="576.5" stroke="#444444" stroke-width="1"/>
> <text x="52" y="580.7" font-size="12" fill="#222222" text-anchor="end">0</text>
> <line x1="60" y1="546.5" x2="420" y2="546.5" stroke="#E4E4E4" stroke-width="1"/>
> <line x1="55" y1="546.5" x2="60" y2="546.5" stroke="#444444" stroke-width="1"/>
> <text x="52" y="550.7" font-size="12" fill="#222222" text-anchor="end">0.2</text>
> <line x1="60" y1="516.5" x2="420" y2="516.5" stroke="#E4E4E4" stroke-width="1"/>
> <line x1="55" y1="516.5" x2="60" y2="516.5" stroke="#444444" stroke-width="1"/>
> <text x="52" y="520.7" font-size="12" fill="#222222" text-anchor="end">0.4</text>
> <line x1="60" y1="486.5" x2="420" y2="486.5" stroke="#E4E4E4" stroke-width="1"/>
> <line x1="55" y1="486.5" x2="60" y2="486.5" stroke="#444444" stroke-width="1"/>
> <text x="52" y="490.7" font-size="12" fill="#222222" text-anchor="end">0.6</text>
> <line x1="60" y1="456.5" x2="420" y2="456.5" stroke="#E4E4E4" stroke-width="1"/>
> <line x1="55" y1="456.5" x2="60" y2="456.5" stroke="#444444" stroke-width="1"/>
> <text x="52" y="460.7" font-size="12" fill="#222222" text-anchor="end">0.8</text>
> <line x1="60" y1="426.5" x2="420" y2="426.5" stroke="#E4E4E4" stroke-width="1"/>
> <line x1="55" y1="426.5" x2="60" y2="426.5" stroke="#444444" stroke-width="1"/>
> <text x="52" y="430.7" font-size="12" fill="#222222" text-anchor="end">1.0</text>
> <text x="24" y="501" font-size="13" fill="#222222" text-anchor="middle" transform="rotate(-90 24 501)">Difference (us)</text>
> <line x1="60" y1="404.5" x2="420" y2="404.5" stroke="#444444" stroke-width="1"/>
> <line x1="60.5" y1="104" x2="60.5" y2="404" stroke="#444444" stroke-width="1"/>
> <line x1="60" y1="576.5" x2="420" y2="576.5" stroke="#444444" stroke-width="1"/>
> <line x1="60.5" y1="426" x2="60.5" y2="576" stroke="#444444" stroke-width="1"/>
> <text x="240" y="254" font-size="13" fill="#777777" text-anchor="middle">no rows to show</text>
> </svg>
! tracediff: note: control selects 6 (rank, iteration) samples and test 2: totals are not comparable; --per-iteration divides by them
