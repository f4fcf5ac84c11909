-- cancel: removes a scheduled job and its record, and remembers its id for the idempotency
-- window when it was scheduled with KEEP. A job a delivery holds is not touched; one whose lease ran out is recovered first.
--
-- KEYS and ARGV[1..7]: see _keys.lua.
-- ARGV[8] id
--
-- Returns 1 cancelled, 0 no such scheduled job. Error replies: "DQ_ACTIVE" when a delivery holds it.
-- @include keys
-- @include clock
-- @include bury
-- @include lease
-- @include recover
-- @include done
local id = ARGV[FIRST_ARG]
local now_ms = math.floor(redis_now_us() / 1000)
if recover_if_expired(id, now_ms) then
  return redis.error_reply('DQ_ACTIVE a worker holds this job now; it can no longer be cancelled')
end
if redis.call('ZREM', SCHEDULED, id) == 1 then
  local record = redis.call('HGET', JOBS, id)
  redis.call('HDEL', JOBS, id)
  redis.call('HDEL', ATTEMPTS, id)
  redis.call('HDEL', ERRORS, id)
  if scheduled_with_keep(record) then
    remember_done({id}, 1, now_ms)
  end
  return 1
end
return 0
