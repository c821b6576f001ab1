#!/usr/bin/env bash
# Idle-machine measurements for RESULTS.md, one at a time (run it on an idle machine, with fci
# installed; the log is $OUT/measure.log).
cd "$(dirname "$0")/.."; OUT=${OUT:-/tmp/fci-measure}; mkdir -p "$OUT"
exec > $OUT/measure.log 2>&1
echo "== start $(date) $(git rev-parse --short HEAD)"
echo "== bench quick"; fci bench --json > $OUT/bench.json; python -c "import json; d=json.load(open('$OUT/bench.json')); [print(r) for r in d['rows']]; print(d['engines'])"
echo "== solve --jobs speed-up (slowest calibration deals, no sea)"
for s in 13 417 439 346; do for j in 1 2; do fci solve --random --seed $s --sea none --jobs $j --json -q | python -c "import json,sys; d=json.load(sys.stdin); print($s, $j, d['min_remaining'], d['exact'], d['stats']['states'], d['stats']['seconds'])"; done; done
echo "== solve_bench 200 no sea"; python benchmarks/solve_bench.py --sea none --count 200 | grep -v "^#"
echo "== census standard both 1-200 jobs 2"; rm -f $OUT/c.sqlite*; /usr/bin/time -f "%e s" fci census run --layout standard --sea both --deals 1-200 --jobs 2 --db $OUT/c.sqlite -q
echo "== grade seeds 1-10 (exact profile, 2 threads)"
for s in 1 2 3 4 5 6; do /usr/bin/time -f "grade $s %e s" fci grade --random --seed $s -q --dag-states 0 --json > $OUT/grade-$s.json; python -c "import json; d=json.load(open('$OUT/grade-$s.json')); print($s, d['tier'], d['bits'], d['bits_bounds'], d['seconds'])"; done
for t in easy medium; do echo "== generate $t x5 seed 1"; /usr/bin/time -f "%e s" timeout 240 fci generate -d $t -n 5 --seed 1 -q --json > $OUT/gen-$t.json; python -c "import json; d=json.load(open('$OUT/gen-$t.json')); [print(p['deal'], p['candidates'], p['bits_bounds']) for p in d['puzzles']]"; done
echo "== generate hard x5 seed 1"; /usr/bin/time -f "%e s" timeout 240 fci generate -d hard -n 5 --seed 1 -q --json > $OUT/gen-hard.json; python -c "import json; d=json.load(open('$OUT/gen-hard.json')); [print(p['deal'], p['candidates'], p['bits_bounds']) for p in d['puzzles']]"
echo "== generate expert x5 seed 1"; /usr/bin/time -f "%e s" timeout 240 fci generate -d expert -n 5 --seed 1 -q --json > $OUT/gen-expert.json; python -c "import json; d=json.load(open('$OUT/gen-expert.json')); [print(p['deal'], p['candidates'], p['bits_bounds']) for p in d['puzzles']]"
echo "== graph --optimal seed 13 (expert, 44.5 bits)"; /usr/bin/time -f "%e s" timeout 300 fci graph --optimal --random --seed 13 --sea none --json > $OUT/opt13.json; python -c "import json; d=json.load(open('$OUT/opt13.json')); print(d['positions'], d['perfect_lines'], d['width_by_turn'])"
echo "== cold compile"; rm -rf $OUT/nc; NUMBA_CACHE_DIR=$OUT/nc /usr/bin/time -f "%e s" fci solve --random --seed 2 --sea none --json -q | grep -o '"compile_seconds": [0-9.]*'; NUMBA_CACHE_DIR=$OUT/nc /usr/bin/time -f "%e s warm" fci solve --random --seed 2 --sea none -q > /dev/null
echo "== end $(date)"
