-- Shared helper: the loader expands it where a script includes "bury".
-- Moves a job to the dead-letter set and keeps that set within its caps. Trimming is bounded (at
-- most 16 by count per burial; by age, at most `limit` per call of trim_dead, which claims run on
-- every sweep), so the caps converge without ever scanning an unbounded range.
local function purge(ids)
  for _, old in ipairs(ids) do
    redis.call('ZREM', DEAD, old)
    redis.call('HDEL', JOBS, old)
    redis.call('HDEL', ATTEMPTS, old)
    redis.call('HDEL', ERRORS, old)
  end
end

local function trim_dead(now_ms, limit)
  purge(redis.call('ZRANGEBYSCORE', DEAD, '-inf', '(' .. string.format('%d', now_ms - DEAD_AGE_MS), 'LIMIT', 0, limit))
end

local function bury(id, now_ms, reason)
  redis.call('ZADD', DEAD, now_ms, id)
  redis.call('HSET', ERRORS, id, reason)
  trim_dead(now_ms, 16)
  local extra = redis.call('ZCARD', DEAD) - DEAD_CAP
  if extra > 0 then
    purge(redis.call('ZRANGE', DEAD, 0, math.min(extra, 16) - 1))
  end
end

-- The record is "<format>|<maxAttempts>|<createdMs>|<payload>"; only the header is matched. A
-- record that does not parse allows one attempt, so it goes dead rather than failing the script.
local function max_attempts_of(record)
  return math.min(1000, tonumber(string.match(record or '', '^%d+|(%d+)|') or '1'))
end
