-- POST a JSON body read from the file named by the first script argument
-- (the revenue count). The bearer token comes in with wrk's -H option.
init = function(args)
  local f = assert(io.open(args[1], "r"))
  wrk.body = f:read("*a")
  f:close()
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end
