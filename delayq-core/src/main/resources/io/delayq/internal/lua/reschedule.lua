-- reschedule: moves a scheduled job to a new due time; payload and attempts stay.
--
-- KEYS[1] scheduled zset  KEYS[2] active zset
-- ARGV[1] id  ARGV[2] 'd' (ARGV[3] is a delay in ms) or 'a' (ARGV[3] is epoch ms)
-- ARGV[4] wake channel  ARGV[5] partition number
--
-- Returns the new due time in epoch ms.
-- Error replies: "DQ_ACTIVE" when a worker holds it, "DQ_NOT_FOUND" when no such scheduled job.
-- @include clock
-- @include wake
local id = ARGV[1]
if not redis.call('ZSCORE', KEYS[1], id) then
  if redis.call('ZSCORE', KEYS[2], id) then
    return redis.error_reply('DQ_ACTIVE a worker holds this job now; it can no longer be rescheduled')
  end
  return redis.error_reply('DQ_NOT_FOUND no scheduled job has this id')
end
local due_ms
if ARGV[2] == 'd' then
  due_ms = math.floor(redis_now_us() / 1000) + tonumber(ARGV[3])
else
  due_ms = tonumber(ARGV[3])
end
redis.call('ZADD', KEYS[1], 'XX', due_ms, id)
wake_if_head(KEYS[1], id, due_ms, ARGV[4], ARGV[5])
return due_ms
