-- GET requests over a list of paths, one per line in the file named by the first
-- script argument (wrk ... -- <file>). bench/run.ts writes the list already
-- shuffled; each wrk thread starts at its own offset and walks it in order, so
-- the requests spread over many records instead of hitting one row that stays
-- in every cache. The bearer token comes in with wrk's -H option.
local paths = {}
local pos = 0
local thread_count = 0

setup = function(thread)
  thread:set("tid", thread_count)
  thread_count = thread_count + 1
end

init = function(args)
  local file = assert(io.open(args[1], "r"), "bench: cannot open the path list " .. tostring(args[1]))
  for line in file:lines() do
    if #line > 0 then paths[#paths + 1] = line end
  end
  file:close()
  assert(#paths > 0, "bench: the path list is empty")
  -- setup() set the global `tid` in this thread's Lua state
  pos = ((tonumber(tid) or 0) * 7919) % #paths
end

request = function()
  pos = pos + 1
  if pos > #paths then pos = 1 end
  return wrk.format("GET", paths[pos])
end
