#!/usr/bin/env bash
# Makes the inputs of the real-program tests in DIR, deterministically.
set -euo pipefail
dir=$1
mkdir -p "$dir"
cd "$dir"
seq 1 200000 | awk '{ print ($1 * 7919) % 200003 }' >numbers.txt
awk '{ printf "%s%s\n", substr("abcdefghijklmnopqrstuvwxyz", ($1 % 26) + 1, 1 + $1 % 7), $1 % 1000 }' \
	numbers.txt >words.txt
gzip -9 -c numbers.txt >numbers.txt.gz
cat >query.sql <<'SQL'
create table t(a integer, b text);
with recursive c(x) as (select 1 union all select x + 1 from c where x < 20000)
insert into t select x, hex(x * 2654435761 % 1000003) from c;
create index tb on t(b);
select count(*), sum(a), min(b), max(b) from t;
select b, count(*) from t group by substr(b, 1, 1) order by 2 desc limit 5;
SQL
cat >script.pl <<'PL'
my %h;
$h{$_ % 97}++ for 1 .. 200000;
my @words = map { sprintf("%x", $_ * 2654435761 % 1000003) } 1 .. 5000;
print join(",", map {"$_=$h{$_}"} sort { $a <=> $b } keys %h), "\n";
print scalar(grep { /^[a-f]+$/ } @words), " ", (sort @words)[0], "\n";
PL
cat >script.py <<'PY'
import hashlib, json, re
data = {"n": list(range(50)), "s": "x" * 10}
text = json.dumps(data, sort_keys=True)
print(text[:60], len(text))
print(re.findall(r"(\d)(\d)", text)[:8])
h = hashlib.sha256()
for i in range(20000):
    h.update(str(i).encode())
print(h.hexdigest(), hashlib.md5(text.encode()).hexdigest())
print(sorted({w: len(w) for w in re.split(r"\W+", text) if w}.items())[:5])
PY
cat >threads.py <<'PY'
import threading
r = [0] * 4
def f(i):
    r[i] = sum(range(200000 * (i + 1)))
ts = [threading.Thread(target=f, args=(i,)) for i in range(4)]
[t.start() for t in ts]
[t.join() for t in ts]
print(r)
PY
cat >pool.py <<'PY'
from multiprocessing import Pool
def sq(x):
    return x * x
if __name__ == "__main__":
    with Pool(2) as p:
        print(sum(p.map(sq, range(1000))))
PY
printf '#include <stdio.h>\nint main(void) { puts("hello, compiled under the logger"); return 0; }\n' >hello.c
