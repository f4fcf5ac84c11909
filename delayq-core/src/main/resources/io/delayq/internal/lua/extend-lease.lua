-- extend-lease: a long handler keeps its job for ARGV[3] ms more, counted from now.
--
-- KEYS[1] active zset  KEYS[2] attempts hash
-- ARGV[1] id  ARGV[2] attempt  ARGV[3] lease ms
--
-- Returns the new lease deadline in epoch ms.
-- Error replies: "DQ_LEASE_EXPIRED" when that attempt no longer holds the job.
-- @include clock
local id = ARGV[1]
local now_ms = math.floor(redis_now_us() / 1000)
local deadline = redis.call('ZSCORE', KEYS[1], id)
if not deadline or tonumber(deadline) <= now_ms or redis.call('HGET', KEYS[2], id) ~= ARGV[2] then
  return redis.error_reply('DQ_LEASE_EXPIRED attempt ' .. ARGV[2] .. ' no longer holds this job')
end
local new_deadline = now_ms + tonumber(ARGV[3])
redis.call('ZADD', KEYS[1], 'XX', new_deadline, id)
return new_deadline
