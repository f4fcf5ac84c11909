-- requeue-dead: gives a dead job a fresh set of attempts, due now. Its last error stays readable
-- until it succeeds.
--
-- KEYS and ARGV[1..7]: see _keys.lua.
-- ARGV[8] id
--
-- Returns the due time in epoch ms, or -1 when no dead job has this id.
-- @include keys
-- @include clock
-- @include wake
local id = ARGV[FIRST_ARG]
if redis.call('ZREM', DEAD, id) == 0 then
  return -1
end
local now_ms = math.floor(redis_now_us() / 1000)
redis.call('HDEL', ATTEMPTS, id)
redis.call('ZADD', SCHEDULED, now_ms, id)
wake_if_head(id, now_ms)
return now_ms
