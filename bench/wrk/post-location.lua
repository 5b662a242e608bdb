-- (d) POST {P}/locations with a JSON body; every request creates a new row, so
-- the names carry a counter. The bearer token comes in with wrk's -H option.
local counter = 0

init = function(args)
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

request = function()
  counter = counter + 1
  local body = string.format(
    '{"name":"Bench practice %d","timezone":"America/Chicago","address_line1":"1 Main St","city":"Springfield","state":"IL","postal_code":"62701","country":"US","phone":"+1 217 555 0100","email":"front-desk@example.com"}',
    counter)
  return wrk.format("POST", nil, nil, body)
end
