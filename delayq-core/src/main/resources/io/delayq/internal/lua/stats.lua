-- stats: the counts of one partition. ZCOUNT is O(log N), so this stays cheap on a large backlog.
--
-- KEYS[1] scheduled zset  KEYS[2] active zset  KEYS[3] dead zset  KEYS[4] paused flag
--
-- Returns {scheduled, dueNow, active, dead, paused}.
-- @include clock
local now_ms = math.floor(redis_now_us() / 1000)
return {redis.call('ZCARD', KEYS[1]), redis.call('ZCOUNT', KEYS[1], '-inf', now_ms),
        redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[3]), redis.call('EXISTS', KEYS[4])}
