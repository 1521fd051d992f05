# plot --per-iteration: the chart's numbers are the CSV's per sample (data- attributes), the subtitle says so
$ tracediff plot counts tests/data/noisy/control tests/data/noisy/test --control-iteration all --test-iteration all --per-iteration --include ^aten --sort name -q -o -
? 0
> <svg xmlns="http://www.w3.org/2000/svg" class="td-chart" data-kind="counts" width="805" height="658" viewBox="0 0 805 658" font-family="DejaVu Sans, Verdana, Geneva, sans-serif" role="img" aria-label="Ops Count Comparison">
> <rect x="0" y="0" width="805" height="658" fill="#FFFFFF"/>
> <text x="402.5" y="34" font-size="18" fill="#222222" text-anchor="middle" font-weight="bold">Ops Count Comparison</text>
> <text x="402.5" y="56" font-size="13" fill="#777777" text-anchor="middle">control (rank 0, iterations 5–10) vs test (rank 0, iterations 7,8) · cpu and gpu, normalized names, per (rank, iteration)</text>
> <rect x="234" y="69" width="12" height="12" fill="#4E79A7"/>
> <text x="252" y="80" font-size="13" fill="#222222">control</text>
> <rect x="319" y="69" width="12" height="12" fill="#F28E2B"/>
> <text x="337" y="80" font-size="13" fill="#222222">test</text>
> <rect x="384" y="69" width="12" height="12" fill="#B07AA1"/>
> <text x="402" y="80" font-size="13" fill="#222222">difference (test − control)</text>
> <line x1="60" y1="404.5" x2="420" y2="404.5" stroke="#E4E4E4" stroke-width="1"/>
> <line x1="55" y1="404.5" x2="60" y2="404.5" stroke="#444444" stroke-width="1"/>
> <text x="52" y="408.7" font-size="12" fill="#222222" text-anchor="end">0</text>
> <line x1="60" y1="329.5" x2="420" y2="329.5" stroke="#E4E4E4" stroke-width="1"/>
> <line x1="55" y1="329.5" x2="60" y2="329.5" stroke="#444444" stroke-width="1"/>
> <text x="52" y="333.7" font-size="12" fill="#222222" text-anchor="end">0.5</text>
> <line x1="60" y1="254.5" x2="420" y2="254.5" stroke="#E4E4E4" stroke-width="1"/>
> <line x1="55" y1="254.5" x2="60" y2="254.5" stroke="#444444" stroke-width="1"/>
> <text x="52" y="258.7" font-size="12" fill="#222222" text-anchor="end">1.0</text>
> <line x1="60" y1="179.5" x2="420" y2="179.5" stroke="#E4E4E4" stroke-width="1"/>
> <line x1="55" y1="179.5" x2="60" y2="179.5" stroke="#444444" stroke-width="1"/>
> <text x="52" y="183.7" font-size="12" fill="#222222" text-anchor="end">1.5</text>
> <line x1="60" y1="104.5" x2="420" y2="104.5" stroke="#E4E4E4" stroke-width="1"/>
> <line x1="55" y1="104.5" x2="60" y2="104.5" stroke="#444444" stroke-width="1"/>
> <text x="52" y="108.7" font-size="12" fill="#222222" text-anchor="end">2.0</text>
> <text x="24" y="254" font-size="13" fill="#222222" text-anchor="middle" transform="rotate(-90 24 254)">Count</text>
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
> <text x="24" y="501" font-size="13" fill="#222222" text-anchor="middle" transform="rotate(-90 24 501)">Difference</text>
> <g class="bar-group" data-control="2" data-test="2" data-diff="0"><title>aten::copy_</title>
> <rect x="73.2" y="104" width="46.8" height="300" fill="#4E79A7"><title>control: 2</title></rect>
> <rect x="120" y="104" width="46.8" height="300" fill="#F28E2B"><title>test: 2</title></rect>
> <rect x="96.6" y="576" width="46.8" height="0" fill="#B07AA1"><title>difference: 0</title></rect>
> <text x="123.6" y="586" font-size="12" fill="#222222" text-anchor="end" transform="rotate(-45 123.6 586)">aten::copy_</text>
> </g>
> <g class="bar-group" data-control="1" data-test="1" data-diff="0"><title>aten::mm</title>
> <rect x="193.2" y="254" width="46.8" height="150" fill="#4E79A7"><title>control: 1</title></rect>
> <rect x="240" y="254" width="46.8" height="150" fill="#F28E2B"><title>test: 1</title></rect>
> <rect x="216.6" y="576" width="46.8" height="0" fill="#B07AA1"><title>difference: 0</title></rect>
> <text x="243.6" y="586" font-size="12" fill="#222222" text-anchor="end" transform="rotate(-45 243.6 586)">aten::mm</text>
> </g>
> <g class="bar-group" data-control="0.5" data-test="0.5" data-diff="0"><title>aten::zeros</title>
> <rect x="313.2" y="329" width="46.8" height="75" fill="#4E79A7"><title>control: 0.5</title></rect>
> <rect x="360" y="329" width="46.8" height="75" fill="#F28E2B"><title>test: 0.5</title></rect>
> <rect x="336.6" y="576" width="46.8" height="0" fill="#B07AA1"><title>difference: 0</title></rect>
> <text x="363.6" y="586" font-size="12" fill="#222222" text-anchor="end" transform="rotate(-45 363.6 586)">aten::zeros</text>
> </g>
> <line x1="60" y1="404.5" x2="420" y2="404.5" stroke="#444444" stroke-width="1"/>
> <line x1="60.5" y1="104" x2="60.5" y2="404" stroke="#444444" stroke-width="1"/>
> <line x1="60" y1="576.5" x2="420" y2="576.5" stroke="#444444" stroke-width="1"/>
> <line x1="60.5" y1="426" x2="60.5" y2="576" stroke="#444444" stroke-width="1"/>
> </svg>
