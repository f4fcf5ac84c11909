-- nack: a held delivery failed. The job is scheduled again after ARGV[10] ms, or buried in the
-- dead set when it has used all its attempts (or ARGV[11] is '1': the caller gives up on it now).
--
-- KEYS and ARGV[1..7]: see _keys.lua.
-- ARGV[8] id  ARGV[9] claim number of the delivery (its fencing token / 1000)  ARGV[10] retry delay ms  ARGV[11] '1' to bury at once, else '0'
-- ARGV[12] error text
--
-- Returns {1, dueMs} when scheduled again, {2, deadAtMs} when buried.
-- Error replies: "DQ_LEASE_EXPIRED" when that delivery no longer holds the job.
-- @include keys
-- @include clock
-- @include wake
-- @include bury
-- @include lease
local id, claim = ARGV[FIRST_ARG], ARGV[FIRST_ARG + 1]
local now_ms = math.floor(redis_now_us() / 1000)
local lease = held_lease(id, claim, now_ms)
if not lease then
  return redis.error_reply('DQ_LEASE_EXPIRED the delivery of claim ' .. claim .. ' no longer holds this job')
end
local attempt = lease_attempt(lease)
redis.call('ZREM', ACTIVE, id)
redis.call('HDEL', LEASES, id)
redis.call('HSET', ATTEMPTS, id, attempt)
local record = redis.call('HGET', JOBS, id)
if ARGV[FIRST_ARG + 3] == '1' or attempt >= max_attempts_of(record) then
  bury(id, now_ms, ARGV[FIRST_ARG + 4])
  return {2, now_ms}
end
local due_ms = now_ms + tonumber(ARGV[FIRST_ARG + 2])
redis.call('HSET', ERRORS, id, ARGV[FIRST_ARG + 4])
redis.call('ZADD', SCHEDULED, due_ms, id)
wake_if_head(id, due_ms)
return {1, due_ms}
