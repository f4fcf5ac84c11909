-- ack: finishes jobs whose lease is still held by the attempt that acks them. Takes many
-- (id, attempt) pairs so that a busy worker acks a whole batch in one call.
--
-- KEYS[1] active zset  KEYS[2] jobs hash  KEYS[3] attempts hash  KEYS[4] errors hash
-- ARGV[2i-1] id   ARGV[2i] attempt number it was claimed with
--
-- Returns one integer per pair: 1 done, 0 refused (the lease expired, or belongs to another attempt).
-- @include clock
local now_ms = math.floor(redis_now_us() / 1000)
local ids = {}
for i = 1, #ARGV, 2 do
  ids[#ids + 1] = ARGV[i]
end
-- Whole-batch reads and writes (ZMSCORE needs Redis 6.2): a few calls however many jobs are acked.
local deadlines = redis.call('ZMSCORE', KEYS[1], unpack(ids))
local attempts = redis.call('HMGET', KEYS[3], unpack(ids))
local result, done = {}, {}
for i, id in ipairs(ids) do
  local ok = 0
  if deadlines[i] and tonumber(deadlines[i]) > now_ms and attempts[i] == ARGV[2 * i] then
    done[#done + 1] = id
    ok = 1
  end
  result[i] = ok
end
if #done > 0 then
  redis.call('ZREM', KEYS[1], unpack(done))
  redis.call('HDEL', KEYS[2], unpack(done))
  redis.call('HDEL', KEYS[3], unpack(done))
  redis.call('HDEL', KEYS[4], unpack(done))
end
return result
