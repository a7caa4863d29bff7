#!/usr/bin/env python3
"""Generates Tests/TwinStoreTests/Fixtures/cql2_reference.json with PyPI `cql2` 0.6.0 as the oracle.

For each cql2-text expression it records whether the reference implementation accepts it
(parses and validates against the CQL2 JSON Schema) and, when it parses, its cql2-json form.
The Swift test (CQL2ReferenceTests) checks that CityTwin accepts exactly the valid ones (or a
documented difference) and that parseText(text) == parseJSON(reference json).

    python3 -m venv /tmp/cql2venv && /tmp/cql2venv/bin/pip install cql2==0.6.0
    /tmp/cql2venv/bin/python Scripts/reference/make_cql2_fixtures.py
"""
import json
import pathlib

import cql2

EXPRESSIONS = [
    # basic-cql2: comparisons, booleans, literals
    "floors = 3", "floors <> 3", "floors < 3", "floors <= 3", "floors > 3", "floors >= 3",
    "height = 12.5", "height > -3.25", "height < 1e3", "height >= 2.5E-2", "floors = -0",
    "name = 'Hankou'", "name = 'it''s'", "name = ''", "name = '汉口站'", "name <> 'a b c'",
    "is_open = TRUE", "is_open = false", "TRUE", "FALSE", "true AND floors = 1",
    "floors = 1 AND height = 2", "floors = 1 OR height = 2", "floors = 1 AND height = 2 AND name = 'x'",
    "floors = 1 OR height = 2 OR name = 'x'", "floors = 1 AND height = 2 OR name = 'x'",
    "floors = 1 OR height = 2 AND name = 'x'", "(floors = 1 OR height = 2) AND name = 'x'",
    "NOT floors = 1", "NOT (floors = 1)", "NOT NOT floors = 1", "NOT floors = 1 AND height = 2",
    "NOT (floors = 1 AND height = 2)", "((floors = 1))", "floors = 1 and height = 2", "floors = 1 Or height = 2",
    "name IS NULL", "name IS NOT NULL", "name is null", "NOT name IS NULL OR floors = 2",
    "built = DATE('2020-01-01')", "built > TIMESTAMP('2020-01-01T08:00:00Z')",
    "built < timestamp('2020-01-01T08:00:00+08:00')", "opened >= DATE('1999-12-31')",
    "\"floors\" = 3", "\"building height\" > 10", "\"name\" = 'x'",
    "floors = height", "floors < height", "name <> kind",
    # advanced-comparison-operators
    "name LIKE 'Han%'", "name LIKE 'H_nkou'", "name NOT LIKE '%station%'", "name LIKE 'a\\%b'",
    "name like 'x'", "floors BETWEEN 1 AND 5", "floors NOT BETWEEN 1 AND 5", "height between -1.5 and 2.5",
    "floors IN (1, 2, 3)", "floors NOT IN (1, 2)", "name IN ('a', 'b')", "name IN ('a')", "floors in (1)",
    "floors BETWEEN height AND 10",
    # case-insensitive / accent-insensitive
    "CASEI(name) = CASEI('hankou')", "casei(name) <> casei('HANKOU')", "CASEI(name) LIKE CASEI('han%')",
    "name LIKE CASEI('han%')", "ACCENTI(name) = ACCENTI('cafe')",
    # arithmetic
    "floors + 1 > 3", "floors - 1 > 3", "floors * 2 > 3", "floors / 2 > 3", "floors + 2 * 3 > 4",
    "(floors + 2) * 3 > 4", "floors * 2 + 3 > 4", "floors - 2 - 3 > 0", "floors / 2 / 3 > 0",
    "-floors > 1", "floors = - 1", "height * 0.5 <= floors + 1", "2 * 3 = floors", "floors DIV 2 = 1",
    "floors % 2 = 1", "floors ^ 2 > 1", "(floors) = 1",
    # spatial
    "S_INTERSECTS(geometry, POINT(114.3 30.6))", "S_INTERSECTS(geometry, BBOX(114.2, 30.5, 114.4, 30.7))",
    "s_intersects(geometry, point(114.3 30.6))",
    "S_INTERSECTS(geometry, LINESTRING(114.2 30.5, 114.4 30.7))",
    "S_INTERSECTS(geometry, POLYGON((114.2 30.5, 114.4 30.5, 114.4 30.7, 114.2 30.5)))",
    "S_INTERSECTS(geometry, MULTIPOINT((114.2 30.5), (114.4 30.7)))",
    "S_INTERSECTS(geometry, MULTILINESTRING((114.2 30.5, 114.4 30.7), (114 30, 115 31)))",
    "S_INTERSECTS(geometry, MULTIPOLYGON(((114.2 30.5, 114.4 30.5, 114.4 30.7, 114.2 30.5))))",
    "S_INTERSECTS(geometry, POINT Z(114.3 30.6 20))",
    "S_CONTAINS(geometry, POINT(114.3 30.6))", "S_WITHIN(geometry, BBOX(114, 30, 115, 31))",
    "S_DISJOINT(geometry, POINT(0 0))", "S_EQUALS(geometry, POINT(114.3 30.6))",
    "S_TOUCHES(geometry, LINESTRING(114 30, 115 31))", "S_OVERLAPS(geometry, BBOX(114, 30, 115, 31))",
    "S_CROSSES(geometry, LINESTRING(114 30, 115 31))", "S_WITHIN(POINT(114.3 30.6), geometry)",
    "S_INTERSECTS(geometry, BBOX(114, 30, 0, 115, 31, 100))",
    "S_INTERSECTS(geometry, POINT(114.3 30.6)) AND floors > 2",
    "NOT S_DISJOINT(geometry, BBOX(114, 30, 115, 31))",
    # temporal
    "T_AFTER(built, TIMESTAMP('2020-01-01T00:00:00Z'))", "T_BEFORE(built, DATE('2020-01-01'))",
    "T_DURING(built, INTERVAL('2020-01-01', '2020-12-31'))",
    "T_DURING(built, INTERVAL('2020-01-01T00:00:00Z', '..'))", "T_DURING(built, INTERVAL('..', '2020-12-31'))",
    "T_INTERSECTS(built, INTERVAL('2020-01-01', '2020-12-31'))", "T_EQUALS(built, TIMESTAMP('2020-01-01T00:00:00Z'))",
    "T_DISJOINT(built, INTERVAL('2020-01-01', '2020-12-31'))", "T_AFTER(built, INTERVAL('2020-01-01', '..'))",
    "T_STARTS(built, INTERVAL('2020-01-01', '2020-12-31'))", "T_FINISHES(built, INTERVAL('2020-01-01', '2020-12-31'))",
    "T_MEETS(built, INTERVAL('2020-01-01', '2020-12-31'))", "T_METBY(built, INTERVAL('2020-01-01', '2020-12-31'))",
    "T_CONTAINS(built, INTERVAL('2020-01-01', '2020-12-31'))", "T_OVERLAPS(built, INTERVAL('2020-01-01', '2020-12-31'))",
    "T_BEFORE(TIMESTAMP('2020-01-01T00:00:00Z'), built)", "t_intersects(built, date('2020-06-01'))",
    "T_INTERSECTS(INTERVAL(built, demolished), INTERVAL('2020-01-01', '..'))",
    # functions and arrays (not supported by CityTwin)
    "FOO(floors) = 1", "A_CONTAINS(tags, ('a', 'b'))",
    # invalid: syntax
    "", "floors =", "floors = 1 AND", "AND floors = 1", "floors = = 1", "(floors = 1", "floors = 1)",
    "floors == 1", "floors = 'abc", "name = \"x", "floors BETWEEN 1", "floors BETWEEN 1 OR 2",
    "floors IN ()", "floors IN 1, 2", "floors IS 1", "floors IS NOT", "floors NOT 1", "floors LIKE",
    "S_INTERSECTS(geometry, POINT(1))", "S_INTERSECTS(geometry, POINT(1 2)", "S_INTERSECTS(geometry, POLYGON((1 2, 3 4)))",
    "floors = 1 floors = 2", "floors = 1 #", "floors = 1 = 2", "NOT", "()", "floors = ()",
    "DATE('2020-01-01') =", "floors = 1 AND OR height = 2", "floors = .5", "floors != 1", "1 = 1",
    "'a' = 'a'", "floors", "floors + 1", "name LIKE 3", "S_INTERSECTS(geometry)",
    "T_AFTER(built)", "floors = 1,", "floors IN (1,)", "BBOX(1,2,3,4)",
]


def main() -> None:
    out = []
    for text in EXPRESSIONS:
        entry = {"text": text}
        try:
            expr = cql2.parse_text(text)
        except Exception as e:  # noqa: BLE001 - the oracle raises several types
            entry.update(valid=False, error=str(e).splitlines()[0] if str(e) else type(e).__name__)
            out.append(entry)
            continue
        entry["json"] = expr.to_json()
        try:
            expr.validate()
            entry["valid"] = True
        except Exception as e:  # noqa: BLE001
            entry.update(valid=False, error=str(e).splitlines()[0][:200])
        out.append(entry)
    target = pathlib.Path(__file__).resolve().parents[2] / "Tests/TwinStoreTests/Fixtures/cql2_reference.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    doc = {"generator": "Scripts/reference/make_cql2_fixtures.py", "oracle": f"cql2 {cql2.__version__}", "cases": out}
    target.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
    print(f"{len(out)} expressions, {sum(e['valid'] for e in out)} valid -> {target}")


if __name__ == "__main__":
    main()
