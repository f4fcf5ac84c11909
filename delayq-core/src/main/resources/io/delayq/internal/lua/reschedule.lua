-- reschedule: moves a scheduled job to a new due time; payload and attempts stay. A job whose
-- lease ran out is recovered first, and then moved.
--
-- KEYS and ARGV[1..7]: see _keys.lua.
-- ARGV[8] id  ARGV[9] 'd' (ARGV[10] is a delay in ms) or 'a' (ARGV[10] is epoch ms)
--
-- Returns the new due time in epoch ms.
-- Error replies: "DQ_ACTIVE" when a delivery holds it, "DQ_NOT_FOUND" when no such scheduled job.
-- @include keys
-- @include clock
-- @include wake
-- @include bury
-- @include lease
-- @include recover
local id = ARGV[FIRST_ARG]
local now_ms = math.floor(redis_now_us() / 1000)
if recover_if_expired(id, now_ms) then
  return redis.error_reply('DQ_ACTIVE a worker holds this job now; it can no longer be rescheduled')
end
if not redis.call('ZSCORE', SCHEDULED, id) then
  return redis.error_reply('DQ_NOT_FOUND no scheduled job has this id')
end
local due_ms
if ARGV[FIRST_ARG + 1] == 'd' then
  due_ms = now_ms + tonumber(ARGV[FIRST_ARG + 2])
else
  due_ms = tonumber(ARGV[FIRST_ARG + 2])
end
redis.call('ZADD', SCHEDULED, 'XX', due_ms, id)
wake_if_head(id, due_ms)
return due_ms
