#!/bin/bash
# Prints the SQL script of the sqlite3 workload for ROWS rows: sqlite3 :memory: < script.
#
# Usage: sqlite.sh ROWS
#
# The rows come from a recursive CTE with an integer hash, so the script is tiny and the
# data deterministic. The mix (bulk insert, index build, point lookups through the index,
# a join, grouping and sorting) touches sqlite's B-tree, VDBE interpreter and sorter rather
# than one hot loop. Every query prints a small aggregate, which the harness checksums.
set -euo pipefail
rows=${1:?usage: sqlite.sh ROWS}
cat <<SQL
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER, grp INTEGER, name TEXT, val REAL);
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < $rows)
INSERT INTO t (id, k, grp, name, val)
SELECT i, (i * 2654435761) % 1000003, (i * 7919) % 97,
       printf('name-%08x', (i * 40503) % 65536), ((i * 31) % 1000) / 7.0
FROM s;
CREATE INDEX t_k ON t (k);
CREATE INDEX t_grp_name ON t (grp, name);
SELECT count(*), sum(k), round(sum(val), 3) FROM t;
SELECT grp, count(*), round(avg(val), 3), min(name), max(name)
  FROM t GROUP BY grp ORDER BY count(*) DESC, grp LIMIT 5;
WITH RECURSIVE q(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM q WHERE j < $rows / 4)
SELECT count(*), sum(t.id) FROM q JOIN t ON t.k = (q.j * 7) % 1000003;
CREATE TABLE g AS SELECT grp, name, count(*) AS c FROM t GROUP BY grp, name;
SELECT count(*), sum(c), max(c) FROM g;
SELECT name, k FROM t WHERE grp = 42 ORDER BY name, k LIMIT 3;
SELECT count(DISTINCT name) FROM t WHERE val > 50;
UPDATE t SET val = val * 2 WHERE grp < 10;
DELETE FROM t WHERE k % 5 = 0;
SELECT count(*), round(sum(val), 3) FROM t;
SQL
