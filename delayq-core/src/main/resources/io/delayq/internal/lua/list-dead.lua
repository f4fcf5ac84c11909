-- list-dead: the most recently buried jobs of one partition, newest first, at most ARGV[1].
--
-- KEYS[1] dead zset  KEYS[2] jobs hash  KEYS[3] attempts hash  KEYS[4] errors hash
-- ARGV[1] limit
--
-- Returns {id1, deadAtMs1, attempts1, record1, lastError1, id2, ...}.
local ids = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
local out = {}
for i = 1, #ids, 2 do
  local id = ids[i]
  out[#out + 1] = id
  out[#out + 1] = tonumber(ids[i + 1])
  out[#out + 1] = tonumber(redis.call('HGET', KEYS[3], id) or '0')
  out[#out + 1] = redis.call('HGET', KEYS[2], id) or ''
  out[#out + 1] = redis.call('HGET', KEYS[4], id) or ''
end
return out
