-- list-dead: the most recently buried jobs of one partition, newest first, at most ARGV[8].
--
-- KEYS and ARGV[1..7]: see _keys.lua.
-- ARGV[8] limit
--
-- Returns {id1, deadAtMs1, attempts1, record1, lastError1, id2, ...}.
-- @include keys
local ids = redis.call('ZREVRANGE', DEAD, 0, tonumber(ARGV[FIRST_ARG]) - 1, 'WITHSCORES')
local out = {}
for i = 1, #ids, 2 do
  local id = ids[i]
  out[#out + 1] = id
  out[#out + 1] = tonumber(ids[i + 1])
  out[#out + 1] = tonumber(redis.call('HGET', ATTEMPTS, id)) or 0
  out[#out + 1] = redis.call('HGET', JOBS, id) or ''
  out[#out + 1] = redis.call('HGET', ERRORS, id) or ''
end
return out
