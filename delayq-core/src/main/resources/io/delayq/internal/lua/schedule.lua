-- schedule: adds a job, or applies the duplicate policy when its id is already known.
--
-- KEYS[1] scheduled zset   KEYS[2] active zset   KEYS[3] dead zset
-- KEYS[4] jobs hash        KEYS[5] attempts hash KEYS[6] errors hash
-- ARGV[1] id   ARGV[2] record   ARGV[3] 'd' (ARGV[4] is a delay in ms) or 'a' (ARGV[4] is epoch ms)
-- ARGV[5] 'r' replace or 'k' keep   ARGV[6] wake channel   ARGV[7] partition number
--
-- Returns {outcome, dueMs}: outcome 1 created, 2 replaced, 0 kept (dueMs is then the existing
-- job's due time, or -1 when it is not scheduled but active or dead).
-- Error replies: "DQ_ACTIVE" when replacing a job that a worker holds right now.
-- @include clock
-- @include wake
local id = ARGV[1]
local now_ms = math.floor(redis_now_us() / 1000)
local due_ms
if ARGV[3] == 'd' then
  due_ms = now_ms + tonumber(ARGV[4])
else
  due_ms = tonumber(ARGV[4])
end

local outcome = 1
if redis.call('HEXISTS', KEYS[4], id) == 1 then
  if ARGV[5] == 'k' then
    local score = redis.call('ZSCORE', KEYS[1], id)
    if score then
      return {0, tonumber(score)}
    end
    return {0, -1}
  end
  if redis.call('ZSCORE', KEYS[2], id) then
    return redis.error_reply('DQ_ACTIVE a worker holds this job now; it cannot be replaced until that attempt ends')
  end
  redis.call('ZREM', KEYS[3], id)
  redis.call('HDEL', KEYS[5], id)
  redis.call('HDEL', KEYS[6], id)
  outcome = 2
end

redis.call('HSET', KEYS[4], id, ARGV[2])
redis.call('ZADD', KEYS[1], due_ms, id)
wake_if_head(KEYS[1], id, due_ms, ARGV[6], ARGV[7])
return {outcome, due_ms}
