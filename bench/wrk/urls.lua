-- wrk script: GET the paths listed in the file named by $URLS, one after the other from a random start (bench/wrk/ab.sh).
local paths = {}
for line in io.lines(os.getenv("URLS")) do paths[#paths+1] = line end
local i = math.random(#paths)
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
