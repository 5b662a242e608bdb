-- (e4) PATCH {P}/patients/{id} over a list of patient paths (first script
-- argument), each with the version it has now: a patient's first PATCH sends
-- base_version 1, its next (after the list wrapped around) 2, and so on. The
-- list is long enough (100,000 patients) that a run never wraps; the versions
-- are tracked per wrk thread, so run it with one thread (-t1, the default).
local paths = {}
local versions = {}
local pos = 0
local counter = 0

init = function(args)
  local file = assert(io.open(args[1], "r"), "bench: cannot open the path list " .. tostring(args[1]))
  for line in file:lines() do
    if #line > 0 then paths[#paths + 1] = line end
  end
  file:close()
  assert(#paths > 0, "bench: the path list is empty")
  wrk.method = "PATCH"
  wrk.headers["Content-Type"] = "application/json"
end

request = function()
  pos = pos + 1
  if pos > #paths then pos = 1 end
  local version = (versions[pos] or 0) + 1
  versions[pos] = version
  counter = counter + 1
  -- a front-desk edit: the name the patient goes by and a new email (both full-text indexed; no duplicate check runs)
  local body = string.format('{"base_version":%d,"preferred_name":"Bench %d","email":"bench.%d@example.net"}', version, counter, counter)
  return wrk.format("PATCH", paths[pos], nil, body)
end
