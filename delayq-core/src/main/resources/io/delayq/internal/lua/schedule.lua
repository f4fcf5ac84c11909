-- schedule: adds jobs to one partition, or applies the duplicate policy to ids already known.
-- Takes many jobs per call so that bulk scheduling pays one round trip and one script start per batch.
--
-- KEYS[1] scheduled zset   KEYS[2] active zset   KEYS[3] dead zset
-- KEYS[4] jobs hash        KEYS[5] attempts hash KEYS[6] errors hash
-- ARGV[1] wake channel   ARGV[2] partition number
-- then five values per job: id, record, 'd' (the next value is a delay in ms) or 'a' (epoch ms),
-- that value, and 'r' (replace) or 'k' (keep)
--
-- Returns {outcome1, dueMs1, outcome2, dueMs2, ...} in the order of the jobs. Outcome 1 created,
-- 2 replaced, 0 kept (dueMs: the existing job's due time, or -1 when it is active or dead), -1 refused
-- because a worker holds that job right now (dueMs -1).
-- @include clock
local now_ms
local out = {}
local placed = {}

for i = 3, #ARGV, 5 do
  local id = ARGV[i]
  -- why: an absolute time stays text, sparing Redis a float-to-text conversion per job
  local due_ms = ARGV[i + 3]
  if ARGV[i + 2] == 'd' then
    -- why: TIME only when a delay needs it; absolute times are scheduled without it
    now_ms = now_ms or math.floor(redis_now_us() / 1000)
    due_ms = string.format('%d', now_ms + tonumber(due_ms))
  end
  -- why: HSETNX both tests and writes, so a new id (the common case) costs one call, not two
  local outcome = 1
  if redis.call('HSETNX', KEYS[4], id, ARGV[i + 1]) == 0 then
    if ARGV[i + 4] == 'k' then
      outcome = 0
    elseif redis.call('ZSCORE', KEYS[2], id) then
      outcome = -1
    else
      redis.call('ZREM', KEYS[3], id)
      redis.call('HDEL', KEYS[5], id)
      redis.call('HDEL', KEYS[6], id)
      redis.call('HSET', KEYS[4], id, ARGV[i + 1])
      outcome = 2
    end
  end
  if outcome > 0 then
    redis.call('ZADD', KEYS[1], due_ms, id)
    placed[id] = true
    out[#out + 1] = outcome
    out[#out + 1] = tonumber(due_ms)
  elseif outcome == 0 then
    local score = redis.call('ZSCORE', KEYS[1], id)
    out[#out + 1] = 0
    out[#out + 1] = score and tonumber(score) or -1
  else
    out[#out + 1] = -1
    out[#out + 1] = -1
  end
end

-- Wake sleeping workers only when this call put a job at the head of the partition: a steady stream
-- of jobs behind the head publishes nothing.
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if head[1] and placed[head[1]] then
  redis.call('PUBLISH', ARGV[1], ARGV[2] .. ':' .. head[2])
end
return out
