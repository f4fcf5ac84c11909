-- heartbeat: writes one worker process's heartbeat and prunes the processes whose heartbeat
-- expired. Bounded: the prune removes only members already expired, one per dead process.
--
-- KEYS[1] the sorted set of live processes (member process id, score expiry ms)
-- KEYS[2] this process's heartbeat hash
-- ARGV[1] "now" in epoch microseconds, or '' to read TIME here (see _clock.lua)
-- ARGV[2] process id   ARGV[3] time to live, ms   ARGV[4..] field, value, field, value, ... of the hash
--
-- Returns the server time written as the hash's 'seen' field, epoch ms.
--
-- KEYS[1] is delayq's own key name: a key of another type there (another program's, or damage) is
-- replaced by the sorted set, so heartbeats heal it instead of failing forever.
-- @include clock
local now_ms = math.floor(redis_now_us() / 1000)
local ttl = tonumber(ARGV[3])
local t = redis.call('TYPE', KEYS[1])['ok']
if t ~= 'zset' and t ~= 'none' then
  redis.call('DEL', KEYS[1])
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_ms)
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[2], 'seen', string.format('%d', now_ms), unpack(ARGV, 4))
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('ZADD', KEYS[1], string.format('%d', now_ms + ttl), ARGV[2])
return now_ms
