-- stats: the counts of one partition. ZCOUNT is O(log N), so this stays cheap on a large backlog.
--
-- KEYS and ARGV[1..7]: see _keys.lua.
--
-- Returns {scheduled, dueNow, active (lease running), expired (lease ended, not yet recovered), dead,
-- paused}.
-- @include keys
-- @include clock
-- @include lease
local now_ms = math.floor(redis_now_us() / 1000)
local held = redis.call('ZCARD', ACTIVE)
local expired = held > 0 and redis.call('ZCOUNT', ACTIVE, '-inf', lease_expired_max(now_ms)) or 0
return {redis.call('ZCARD', SCHEDULED), redis.call('ZCOUNT', SCHEDULED, '-inf', now_ms),
        held - expired, expired, redis.call('ZCARD', DEAD), redis.call('EXISTS', PAUSED)}
