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

-- The record is "2|<policy>|<maxAttempts>|<createdMs>|<payload>" (policy 'k' when it was
-- scheduled with KEEP, else 'r'; delayq 0.1 wrote "1|<maxAttempts>|<createdMs>|<payload>"), or
-- "3|<policy>|<maxAttempts>|<createdMs>|<trace headers>|<payload>" for a job scheduled under a
-- traced call; versions 2 and 3 agree up to the creation time, the only part scripts read. Only
-- the header is matched. A record that does not parse allows one attempt, so it goes dead rather
-- than failing the script.
local function max_attempts_of(record)
  record = record or ''
  local max = string.match(record, '^[23]|%a|(%d+)|') or string.match(record, '^1|(%d+)|')
  return math.min(1000, tonumber(max or '1'))
end

-- True for a job scheduled with KEEP: only such ids are remembered for the idempotency window,
-- since a retried REPLACE schedules the job again whether or not it finished.
local function scheduled_with_keep(record)
  -- why: a claim asks this of every job; byte reads cost a fraction of a pattern match
  if not record or string.byte(record, 3) ~= 107 then
    return false
  end
  local version = string.byte(record, 1)
  return version == 50 or version == 51
end
