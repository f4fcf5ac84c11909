-- release: a closing worker hands back a job it could not finish. The job is due again at once and
-- the attempt is not counted, since the job did not fail.
--
-- KEYS[1] scheduled zset  KEYS[2] active zset (scores are leases)  KEYS[3] attempts hash
-- ARGV[1] id  ARGV[2] attempt  ARGV[3] wake channel  ARGV[4] partition number
--
-- Returns 1 when released, 0 when that attempt no longer held the job.
-- @include clock
-- @include wake
-- @include lease
local id = ARGV[1]
local lease = redis.call('ZSCORE', KEYS[2], id)
if not lease or lease_attempt(lease) ~= tonumber(ARGV[2]) then
  return 0
end
local now_ms = math.floor(redis_now_us() / 1000)
redis.call('ZREM', KEYS[2], id)
local attempts = lease_attempt(lease) - 1
if attempts > 0 then
  redis.call('HSET', KEYS[3], id, attempts)
else
  redis.call('HDEL', KEYS[3], id)
end
redis.call('ZADD', KEYS[1], now_ms, id)
wake_if_head(KEYS[1], id, now_ms, ARGV[3], ARGV[4])
return 1
