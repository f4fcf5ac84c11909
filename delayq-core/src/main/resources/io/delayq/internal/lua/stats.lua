-- stats: the counts of one partition. ZCOUNT is O(log N), so this stays cheap on a large backlog.
--
-- KEYS and ARGV[1..7]: see _keys.lua.
--
-- Returns {scheduled, dueNow, active (lease running), expired (lease ended, not yet recovered), dead,
-- paused, oldestDueMs, nowMs}: oldestDueMs is the due time of the partition's earliest scheduled job
-- when that job is due, else -1; nowMs is the server's clock it was compared with, so the caller can
-- tell how long the job has waited without trusting its own clock. One ZRANGE of the head: O(log N).
-- @include keys
-- @include clock
-- @include lease
local now_ms = math.floor(redis_now_us() / 1000)
local held = redis.call('ZCARD', ACTIVE)
local expired = held > 0 and redis.call('ZCOUNT', ACTIVE, '-inf', lease_expired_max(now_ms)) or 0
local head = redis.call('ZRANGE', SCHEDULED, 0, 0, 'WITHSCORES')
local oldest_due = -1
if head[2] and tonumber(head[2]) <= now_ms then
  oldest_due = math.floor(tonumber(head[2]))
end
return {redis.call('ZCARD', SCHEDULED), redis.call('ZCOUNT', SCHEDULED, '-inf', now_ms),
        held - expired, expired, redis.call('ZCARD', DEAD), redis.call('EXISTS', PAUSED), oldest_due, now_ms}
