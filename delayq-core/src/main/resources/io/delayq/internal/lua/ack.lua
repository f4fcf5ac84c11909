-- ack: finishes jobs whose lease is still held by the attempt that acks them. Takes many
-- (id, attempt) pairs so that a busy worker acks a whole batch in one call.
--
-- KEYS[1] active zset  KEYS[2] jobs hash  KEYS[3] attempts hash  KEYS[4] errors hash
-- ARGV[2i-1] id   ARGV[2i] attempt number it was claimed with
--
-- Returns one integer per pair: 1 done, 0 refused (the lease expired, or belongs to another attempt).
-- @include clock
local now_ms = math.floor(redis_now_us() / 1000)
local result = {}
for i = 1, #ARGV, 2 do
  local id = ARGV[i]
  local deadline = redis.call('ZSCORE', KEYS[1], id)
  local ok = 0
  if deadline and tonumber(deadline) > now_ms
      and redis.call('HGET', KEYS[3], id) == ARGV[i + 1] then
    redis.call('ZREM', KEYS[1], id)
    redis.call('HDEL', KEYS[2], id)
    redis.call('HDEL', KEYS[3], id)
    redis.call('HDEL', KEYS[4], id)
    ok = 1
  end
  result[#result + 1] = ok
end
return result
