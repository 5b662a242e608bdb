-- POST one JSON body (the file named by the second script argument) to each
-- path of a list in turn (the file named by the first), so that every request
-- writes to another record: (p1) a payment with three splits, each to another
-- patient. The list is long enough that a run never wraps. The bearer token
-- comes in with wrk's -H option.
local paths = {}
local pos = 0
local body = nil

init = function(args)
  local file = assert(io.open(args[1], "r"), "bench: cannot open the path list " .. tostring(args[1]))
  for line in file:lines() do
    if #line > 0 then paths[#paths + 1] = line end
  end
  file:close()
  assert(#paths > 0, "bench: the path list is empty")
  local f = assert(io.open(args[2], "r"), "bench: cannot open the body " .. tostring(args[2]))
  body = f:read("*a")
  f:close()
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

request = function()
  pos = pos + 1
  if pos > #paths then pos = 1 end
  return wrk.format("POST", paths[pos], nil, body)
end
