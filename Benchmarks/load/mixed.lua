-- wrk script of Benchmarks/load: reads cycling through a URL list (item pages, bbox pages, tiles,
-- single features), with every WRITE_EVERY-th request of a connection's thread a new shelter
-- (POST, unique id). Counts statuses per thread; `done` prints one JSON line with the totals,
-- wrk's socket errors and the seconds (os.time) in which 503s came.
--   wrk -t2 -c64 -d60s --timeout 10s -s mixed.lua URL -- TOKEN WRITE_EVERY PATHS_FILE
local threads = {}
local next_id = 0

function setup(thread)
  next_id = next_id + 1
  thread:set("thread_id", next_id)
  table.insert(threads, thread)
end

function init(args)
  token = args[1]
  write_every = tonumber(args[2] or "10")
  paths = {}
  for line in io.lines(args[3]) do
    if #line > 0 then table.insert(paths, line) end
  end
  n, writes = 0, 0
  ok, created, unavailable, server_errors, client_errors = 0, 0, 0, 0, 0
  unavailable_seconds = ""
  client_statuses = ""
end

function request()
  n = n + 1
  if write_every > 0 and n % write_every == 0 then
    writes = writes + 1
    local id = string.format("wrk-%d-%d-%d", os.time(), thread_id, writes)
    local lon = 114.78 + (writes % 97) * 0.0005
    local lat = 30.82 + (writes % 89) * 0.0005
    local body = string.format([[{"type": "Feature", "id": "%s", "geometry": {"type": "Point", "coordinates": [%.5f, %.5f]},
 "properties": {"name": "压测 %s", "class": "紧急", "admin_level": "村(社区)", "effective_area_m2": 1000, "per_capita_m2": 1.5,
 "capacity": 600, "service_radius_m": 500, "contact_phone": "027-00000000"}}]], id, lon, lat, id)
    return wrk.format("POST", "/collections/shelters/items",
                      {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token}, body)
  end
  return wrk.format("GET", paths[(n * 7919) % #paths + 1])
end

function response(status, headers, body)
  if status == 201 then
    created = created + 1
  elseif status < 400 then
    ok = ok + 1
  elseif status == 503 then
    unavailable = unavailable + 1
    unavailable_seconds = unavailable_seconds .. os.time() .. ","
  elseif status >= 500 then
    server_errors = server_errors + 1
  else
    client_errors = client_errors + 1
    client_statuses = client_statuses .. status .. ","
  end
end

function done(summary, latency, requests)
  local t = {ok = 0, created = 0, unavailable = 0, server_errors = 0, client_errors = 0}
  local seconds, statuses = "", ""
  for _, thread in ipairs(threads) do
    for k, _ in pairs(t) do t[k] = t[k] + thread:get(k) end
    seconds = seconds .. thread:get("unavailable_seconds")
    statuses = statuses .. thread:get("client_statuses")
  end
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "seconds": %.3f, "ok": %d, "created": %d, "unavailable": %d, "server_errors": %d, "client_errors": %d, ' ..
    '"socket_errors": {"connect": %d, "read": %d, "write": %d, "timeout": %d}, "latency_ms": {"p50": %.2f, "p99": %.2f, "max": %.2f}, ' ..
    '"unavailable_at": [%s], "client_error_statuses": [%s]}\n',
    summary.requests, summary.duration / 1e6, t.ok, t.created, t.unavailable, t.server_errors, t.client_errors,
    e.connect, e.read, e.write, e.timeout, latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
    seconds:sub(1, -2), statuses:sub(1, -2)))
end
