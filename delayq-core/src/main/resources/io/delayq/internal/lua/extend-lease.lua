-- extend-lease: a long handler keeps its job for ARGV[3] ms more, counted from now.
--
-- KEYS[1] active zset (scores are leases)
-- ARGV[1] id  ARGV[2] attempt  ARGV[3] lease ms
--
-- Returns the new lease deadline in epoch ms.
-- Error replies: "DQ_LEASE_EXPIRED" when that attempt no longer holds the job.
-- @include clock
-- @include lease
local id = ARGV[1]
local now_ms = math.floor(redis_now_us() / 1000)
local lease = redis.call('ZSCORE', KEYS[1], id)
if not lease or lease_deadline(lease) <= now_ms or lease_attempt(lease) ~= tonumber(ARGV[2]) then
  return redis.error_reply('DQ_LEASE_EXPIRED attempt ' .. ARGV[2] .. ' no longer holds this job')
end
local new_deadline = now_ms + tonumber(ARGV[3])
redis.call('ZADD', KEYS[1], 'XX', lease_score(new_deadline, tonumber(ARGV[2])), id)
return new_deadline
