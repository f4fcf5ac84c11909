-- extend-lease: a long handler keeps its job for ARGV[10] ms more, counted from now.
--
-- KEYS and ARGV[1..7]: see _keys.lua.
-- ARGV[8] id  ARGV[9] claim number of the delivery (its fencing token / 1000)  ARGV[10] lease ms
--
-- Returns the new lease deadline in epoch ms.
-- Error replies: "DQ_LEASE_EXPIRED" when that delivery no longer holds the job.
-- @include keys
-- @include clock
-- @include lease
local id, claim = ARGV[FIRST_ARG], ARGV[FIRST_ARG + 1]
local now_ms = math.floor(redis_now_us() / 1000)
local lease = held_lease(id, claim, now_ms)
if not lease then
  return redis.error_reply('DQ_LEASE_EXPIRED the delivery of claim ' .. claim .. ' no longer holds this job')
end
local new_deadline = now_ms + tonumber(ARGV[FIRST_ARG + 2])
redis.call('ZADD', ACTIVE, 'XX', lease_score(new_deadline, lease_attempt(lease)), id)
return new_deadline
