-- requeue-dead: gives a dead job a fresh set of attempts, due now. Its last error stays readable
-- until it succeeds.
--
-- KEYS[1] dead zset  KEYS[2] scheduled zset  KEYS[3] attempts hash
-- ARGV[1] id  ARGV[2] wake channel  ARGV[3] partition number
--
-- Returns the due time in epoch ms, or -1 when no dead job has this id.
-- @include clock
-- @include wake
local id = ARGV[1]
if redis.call('ZREM', KEYS[1], id) == 0 then
  return -1
end
local now_ms = math.floor(redis_now_us() / 1000)
redis.call('HDEL', KEYS[3], id)
redis.call('ZADD', KEYS[2], now_ms, id)
wake_if_head(KEYS[2], id, now_ms, ARGV[2], ARGV[3])
return now_ms
