-- Shared helper: the loader expands it where a script includes "clock".
-- "now" is the Redis server's clock, never the caller's: a skewed client cannot make a job early.
-- Where the server refuses TIME inside scripts, the caller read TIME from the same server just
-- before the call and passes it in ARGV[1]; that reading is at most the script's own time, so a
-- job can be handed out late by a round trip, never early.
local function redis_now_us()
  if ARGV[1] ~= '' then
    return tonumber(ARGV[1])
  end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
