-- wrk script: POSTs a workload to /api/plan and counts the answers by
-- status, and the 503s that lack Retry-After (bench/serve_load.sh).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/yaml"
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  local f = io.open(args[1], "r")
  wrk.body = f:read("*a")
  f:close()
  ok, busy, bare, other = 0, 0, 0, 0
end

function request()
  return wrk.format(nil, "/api/plan")
end

function response(status, headers, body)
  if status == 200 then
    ok = ok + 1
  elseif status == 503 then
    busy = busy + 1
    if headers["Retry-After"] == nil then bare = bare + 1 end
  else
    other = other + 1
  end
end

function done(summary, latency, requests)
  local t = {ok = 0, busy = 0, bare = 0, other = 0}
  for _, th in ipairs(threads) do
    for k, _ in pairs(t) do t[k] = t[k] + th:get(k) end
  end
  io.write(string.format("answers: 200 x %d, 503 x %d (%d without Retry-After), other x %d\n",
                         t.ok, t.busy, t.bare, t.other))
end
