"""Writes N noisy address strings drawn from a district store's standard addresses (seeded).

Usage: make_sample.py STORE.sqlite N OUT.csv
Noise: dropped 省/市/区/街道 prefixes, Chinese or full-width numerals, 栋/幢/号楼/座, 单元/门,
室/户 variants, spaces and punctuation. Reads the current versions of layer `addresses`.
"""
import csv, json, random, sqlite3, sys

store, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rng = random.Random(2026)
db = sqlite3.connect(store)
rows = [json.loads(p) for (p,) in db.execute("SELECT props FROM f_addresses WHERE valid_to IS NULL")]
full = [r["full_address"] for r in rows if r["level"] in ("户室", "单元", "楼栋", "门牌") and r["status"] == "在用"]
DIG = "零一二三四五六七八九"

def cn(num):
    if num < 10: return DIG[num]
    t, o = divmod(num, 10)
    return ("" if t == 1 else DIG[t]) + "十" + ("" if o == 0 else DIG[o])

def noisy(a):
    for p in ("湖北省武汉市", "新洲区", "邾城街道"):
        if rng.random() < 0.4: a = a.replace(p, "", 1)
    a = a.replace("栋", rng.choice(["栋", "幢", "号楼", "座"])).replace("单元", rng.choice(["单元", "门"]))
    a = a.replace("室", rng.choice(["室", "户", ""]))
    if rng.random() < 0.2: a = a.translate({ord(c): ord(c) + 0xFEE0 for c in "0123456789"})
    if rng.random() < 0.2:
        import re
        a = re.sub(r"(\d{1,2})(栋|幢|号楼|座)", lambda m: cn(int(m.group(1))) + m.group(2), a)
    if rng.random() < 0.3:
        i = rng.randrange(1, len(a))
        a = a[:i] + rng.choice([" ", "，", "-"]) + a[i:]
    return a

with open(out, "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f)
    w.writerow(["id", "address"])
    for i in range(n):
        w.writerow([i + 1, noisy(rng.choice(full))])
