-- hold-for-delete: the first step of deleting a queue, on one partition. Pauses it, so no claim
-- leases anything from here on, and counts the leases still running, which a delete that is not
-- forced refuses to end. O(log N).
--
-- KEYS and ARGV[1..7]: see _keys.lua.
--
-- Returns {1 when the partition was paused already (else 0), leases still running}.
-- @include keys
-- @include clock
-- @include lease
local was_paused = redis.call('EXISTS', PAUSED)
redis.call('SET', PAUSED, '1')
local now_ms = math.floor(redis_now_us() / 1000)
return {was_paused, redis.call('ZCOUNT', ACTIVE, '(' .. string.format('%d', lease_expired_max(now_ms)), '+inf')}
