"""psql for the benchmarks' PostgreSQL side (one copy for every suite that drives PostGIS by hand).

A suite in Benchmarks/<suite>/ imports it after putting Benchmarks/ on its path:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent)); from pg_tools import psql
"""
import os
import subprocess
import urllib.parse


def pg_parts(base):
    """Host, port, user and password of a postgresql:// URL, as psql's flags and PGPASSWORD take them."""
    u = urllib.parse.urlparse(base)
    return dict(host=u.hostname, port=str(u.port or 5432), user=u.username or "", password=u.password or "")


def psql(base, db, sql):
    """Runs `sql` on database `db` of the server `base` names; its unaligned output, or exit naming the statement."""
    p = pg_parts(base)
    env = dict(os.environ, PGPASSWORD=p["password"], PGOPTIONS="-c client_min_messages=warning")
    r = subprocess.run(["psql", "-h", p["host"], "-p", p["port"], "-U", p["user"], "-d", db, "-v", "ON_ERROR_STOP=1",
                        "-qAt", "-c", sql], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"psql failed on {db}: {sql}\n{r.stderr}")
    return r.stdout.strip()
