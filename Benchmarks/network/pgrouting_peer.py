#!/usr/bin/env python3
"""pgRouting side of Benchmarks/network/run.sh: the same queries as network-bench, on the same
network (DIR/edges.csv, DIR/points.csv written by network-bench), in PostgreSQL + pgRouting.

    pgrouting_peer.py DIR POSTGRES_URL

Loads the network into tables bench_edges / bench_points (not timed), then times, as pgRouting
is used (each call reads its edges SQL and builds its graph; that is pgRouting's design):
  * nearest-N: pgr_withPointsCost from an incident point to the 50 shelter points, 3 smallest;
  * one-to-many: pgr_withPointsCost from one point to 1,000 points;
  * 15-minute reachability: pgr_drivingDistance from the node nearest the origin (pgr_withPointsDD
    for the exact partial-edge start).
Prints one JSON object: mean milliseconds per query plus answers for the runner to compare.
"""
import json
import sys
import time

import psycopg2

EDGES = "SELECT id, source, target, cost, reverse_cost FROM bench_edges"


def main():
    data, url = sys.argv[1], sys.argv[2]
    con = psycopg2.connect(url)
    con.autocommit = True
    cur = con.cursor()
    cur.execute("CREATE EXTENSION IF NOT EXISTS pgrouting")
    cur.execute("SELECT pgr_version()")
    version = cur.fetchone()[0]
    cur.execute("DROP TABLE IF EXISTS bench_edges; DROP TABLE IF EXISTS bench_points")
    cur.execute("CREATE TABLE bench_edges (id bigint PRIMARY KEY, source bigint, target bigint, cost float8, reverse_cost float8)")
    cur.execute("CREATE TABLE bench_points (pid bigint PRIMARY KEY, edge_id bigint, fraction float8, kind text)")
    with open(f"{data}/edges.csv") as f:
        cur.copy_expert("COPY bench_edges FROM STDIN WITH CSV HEADER", f)
    with open(f"{data}/points.csv") as f:
        cur.copy_expert("COPY bench_points FROM STDIN WITH CSV HEADER", f)
    cur.execute("ANALYZE bench_edges; ANALYZE bench_points")
    cur.execute("SELECT pid, kind FROM bench_points ORDER BY pid")
    kinds = {}
    for pid, kind in cur.fetchall():
        kinds.setdefault(kind, []).append(pid)

    def points_sql(ids):
        return ("SELECT pid, edge_id, fraction, 'b'::char AS side FROM bench_points WHERE pid IN (%s)"
                % ",".join(map(str, ids)))

    # Nearest-3 of 50 shelters (fewer origins than ours: each call costs a graph build).
    origins = kinds["nearest_origin"][:8]
    answers = []
    t = time.perf_counter()
    for o in origins:
        cur.execute("""SELECT agg_cost FROM pgr_withPointsCost(%s, %s, %s, %s::bigint[], directed := true,
                       driving_side := 'b') ORDER BY agg_cost LIMIT 3""",
                    (EDGES, points_sql([o] + kinds["shelter"]), -o, [-s for s in kinds["shelter"]]))
        answers.append([r[0] for r in cur.fetchall()])
    nearest_ms = (time.perf_counter() - t) / len(origins) * 1000

    origins = kinds["otm_origin"][:3]
    checksum = 0.0
    t = time.perf_counter()
    for o in origins:
        cur.execute("""SELECT coalesce(sum(agg_cost), 0) FROM pgr_withPointsCost(%s, %s, %s, %s::bigint[],
                       directed := true, driving_side := 'b')""",
                    (EDGES, points_sql([o] + kinds["otm_target"]), -o, [-s for s in kinds["otm_target"]]))
        checksum += cur.fetchone()[0]
    otm_ms = (time.perf_counter() - t) / len(origins) * 1000

    reached = []
    t = time.perf_counter()
    for o in kinds["iso_origin"]:
        cur.execute("""SELECT count(*) FROM pgr_withPointsDD(%s, %s, %s, 900, directed := true,
                       driving_side := 'b', details := false) WHERE node > 0""",
                    (EDGES, points_sql([o]), -o))
        reached.append(cur.fetchone()[0])
    iso_ms = (time.perf_counter() - t) / len(kinds["iso_origin"]) * 1000

    print(json.dumps({"pgrouting": version, "nearest3_of_50_ms": nearest_ms, "one_to_1000_ms": otm_ms,
                      "isochrone15_reach_ms": iso_ms, "nearest3_answers": answers,
                      "one_to_1000_checksum_origins": len(origins), "one_to_1000_checksum": checksum,
                      "isochrone15_reached_nodes": reached}))


if __name__ == "__main__":
    main()
