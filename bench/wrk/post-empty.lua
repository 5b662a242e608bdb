-- (f1) POST with no body (the estimate of a treatment plan). The bearer token
-- comes in with wrk's -H option.
init = function(args)
  wrk.method = "POST"
end
