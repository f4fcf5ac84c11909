-- workers: the ids of the worker processes whose heartbeat has not expired. Writes nothing.
--
-- KEYS[1] the sorted set of live processes (member process id, score expiry ms)
-- ARGV[1] "now" in epoch microseconds, or '' to read TIME here (see _clock.lua)
-- ARGV[2] most ids to return
--
-- Returns {nowMs, id1, id2, ...}, soonest to expire first; {-1, type} when KEYS[1] is another
-- program's key of another type (no live process can be listed until a heartbeat replaces it).
-- @include clock
local t = redis.call('TYPE', KEYS[1])['ok']
if t ~= 'zset' and t ~= 'none' then
  return {-1, t}
end
local now_ms = math.floor(redis_now_us() / 1000)
local out = {now_ms}
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. string.format('%d', now_ms), '+inf', 'LIMIT', 0, tonumber(ARGV[2]))
for i = 1, #ids do
  out[i + 1] = ids[i]
end
return out
