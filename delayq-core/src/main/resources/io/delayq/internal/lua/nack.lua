-- nack: a held attempt failed. The job is scheduled again after ARGV[3] ms, or buried in the dead
-- set when it has used all its attempts (or ARGV[4] is '1': the caller gives up on it now).
--
-- KEYS[1] scheduled zset  KEYS[2] active zset (scores are leases)  KEYS[3] jobs hash  KEYS[4] attempts hash
-- KEYS[5] dead zset       KEYS[6] errors hash
-- ARGV[1] id  ARGV[2] attempt  ARGV[3] retry delay ms  ARGV[4] '1' to bury at once, else '0'
-- ARGV[5] error text  ARGV[6] dead-letter cap  ARGV[7] dead-letter retention ms
-- ARGV[8] wake channel  ARGV[9] partition number
--
-- Returns {1, dueMs} when scheduled again, {2, deadAtMs} when buried.
-- Error replies: "DQ_LEASE_EXPIRED" when that attempt no longer holds the job.
-- @include clock
-- @include wake
-- @include bury
-- @include lease
local id = ARGV[1]
local now_ms = math.floor(redis_now_us() / 1000)
local lease = redis.call('ZSCORE', KEYS[2], id)
if not lease or lease_deadline(lease) <= now_ms or lease_attempt(lease) ~= tonumber(ARGV[2]) then
  return redis.error_reply('DQ_LEASE_EXPIRED attempt ' .. ARGV[2] .. ' no longer holds this job')
end
redis.call('ZREM', KEYS[2], id)
redis.call('HSET', KEYS[4], id, ARGV[2])
local record = redis.call('HGET', KEYS[3], id)
if ARGV[4] == '1' or tonumber(ARGV[2]) >= max_attempts_of(record) then
  bury(KEYS[5], KEYS[3], KEYS[4], KEYS[6], id, now_ms, ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7]))
  return {2, now_ms}
end
local due_ms = now_ms + tonumber(ARGV[3])
redis.call('HSET', KEYS[6], id, ARGV[5])
redis.call('ZADD', KEYS[1], due_ms, id)
wake_if_head(KEYS[1], id, due_ms, ARGV[8], ARGV[9])
return {1, due_ms}
