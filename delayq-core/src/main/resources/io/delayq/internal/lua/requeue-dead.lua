-- requeue-dead: gives a dead job a fresh set of attempts, due now. Its last error stays readable
-- until it succeeds.
--
-- KEYS and ARGV[1..7]: see _keys.lua.
-- ARGV[8] id
-- ARGV[9] optional: the latest burial time in epoch ms the job may have ('' or absent: any); a job
--         buried later (requeued and dead again since the caller looked) is left as it is
--
-- Returns the due time in epoch ms, -1 when no dead job has this id, or -2 when it died after
-- ARGV[9].
-- @include keys
-- @include clock
-- @include wake
local id = ARGV[FIRST_ARG]
local died_by = ARGV[FIRST_ARG + 1]
if died_by and died_by ~= '' then
  local died = redis.call('ZSCORE', DEAD, id)
  if not died then
    return -1
  end
  if tonumber(died) > tonumber(died_by) then
    return -2
  end
end
if redis.call('ZREM', DEAD, id) == 0 then
  return -1
end
local now_ms = math.floor(redis_now_us() / 1000)
redis.call('HDEL', ATTEMPTS, id)
redis.call('ZADD', SCHEDULED, now_ms, id)
wake_if_head(id, now_ms)
return now_ms
