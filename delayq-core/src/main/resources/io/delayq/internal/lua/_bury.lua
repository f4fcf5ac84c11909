-- Shared helper: the loader expands it where a script includes "bury".
-- Moves a job to the dead-letter set and keeps that set within its caps. Trimming is bounded
-- (at most 16 by age and 16 by count per call): each burial adds one job, so the caps converge
-- without ever scanning an unbounded range.
local function purge(dead_key, jobs_key, attempts_key, errors_key, ids)
  for _, old in ipairs(ids) do
    redis.call('ZREM', dead_key, old)
    redis.call('HDEL', jobs_key, old)
    redis.call('HDEL', attempts_key, old)
    redis.call('HDEL', errors_key, old)
  end
end

local function bury(dead_key, jobs_key, attempts_key, errors_key, id, now_ms, reason, max_count, max_age_ms)
  redis.call('ZADD', dead_key, now_ms, id)
  redis.call('HSET', errors_key, id, reason)
  purge(dead_key, jobs_key, attempts_key, errors_key,
        redis.call('ZRANGEBYSCORE', dead_key, '-inf', '(' .. string.format('%d', now_ms - max_age_ms), 'LIMIT', 0, 16))
  local extra = redis.call('ZCARD', dead_key) - max_count
  if extra > 0 then
    purge(dead_key, jobs_key, attempts_key, errors_key, redis.call('ZRANGE', dead_key, 0, math.min(extra, 16) - 1))
  end
end

-- The record is "<format>|<maxAttempts>|<createdMs>|<payload>"; only the header is matched.
local function max_attempts_of(record)
  return tonumber(string.match(record, '^%d+|(%d+)|'))
end
