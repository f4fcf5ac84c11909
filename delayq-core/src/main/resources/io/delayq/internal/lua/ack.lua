-- ack: finishes jobs whose lease is still held by the attempt that acks them. Takes many
-- (id, attempt) pairs so that a busy worker acks a whole batch in one call.
--
-- KEYS[1] active zset (scores are leases)  KEYS[2] jobs hash  KEYS[3] attempts hash  KEYS[4] errors hash
-- ARGV[2i-1] id   ARGV[2i] attempt number it was claimed with
--
-- Returns one integer per pair: 1 done, 0 refused (the lease expired, or belongs to another attempt).
-- @include clock
-- @include lease
local now_ms = math.floor(redis_now_us() / 1000)
local ids = {}
for i = 1, #ARGV, 2 do
  ids[#ids + 1] = ARGV[i]
end
-- Whole-batch reads and writes (ZMSCORE needs Redis 6.2): a few calls however many jobs are acked.
local leases = redis.call('ZMSCORE', KEYS[1], unpack(ids))
local result, done, nd = {}, {}, 0
for i, id in ipairs(ids) do
  local ok = 0
  local lease = leases[i]
  if lease and lease_deadline(lease) > now_ms and lease_attempt(lease) == tonumber(ARGV[2 * i]) then
    nd = nd + 1
    done[nd] = id
    ok = 1
  end
  result[i] = ok
end
if nd > 0 then
  redis.call('ZREM', KEYS[1], unpack(done))
  redis.call('HDEL', KEYS[2], unpack(done))
  -- Retried jobs only have entries here; skip the calls when the partition has none.
  if redis.call('EXISTS', KEYS[3]) == 1 then
    redis.call('HDEL', KEYS[3], unpack(done))
  end
  if redis.call('EXISTS', KEYS[4]) == 1 then
    redis.call('HDEL', KEYS[4], unpack(done))
  end
end
return result
