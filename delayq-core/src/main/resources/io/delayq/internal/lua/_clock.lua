-- Shared prologue: the loader expands it where a script includes "clock".
-- "now" is the Redis server's clock, never the caller's: a skewed client cannot make a job early.
local function redis_now_us()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
