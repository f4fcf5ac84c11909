-- Shared helper: the loader expands it where a script includes "recover" (after "lease" and "bury").
-- Ends a lease that ran out: the attempt counts, and the job is due again at once, or buried when
-- that was its last attempt (then it returns true). Claims recover expired leases in bounded
-- batches; by-id operations recover the one job they touch first, so an expired, unrecovered lease
-- never blocks them.
local function recover(id, score, now_ms)
  local attempts = lease_attempt(score)
  -- why: first, so that a leases key of another type (another program's) fails the call before
  -- it changes anything; Redis does not undo the writes of a script that stops halfway
  redis.call('HDEL', LEASES, id)
  redis.call('ZREM', ACTIVE, id)
  local record = redis.call('HGET', JOBS, id)
  if not record then
    redis.call('HDEL', ATTEMPTS, id)
    return
  end
  redis.call('HSET', ATTEMPTS, id, attempts)
  if attempts >= max_attempts_of(record) then
    bury(id, now_ms, 'lease expired on attempt ' .. attempts .. ' of ' .. max_attempts_of(record))
    return true
  end
  redis.call('ZADD', SCHEDULED, now_ms, id)
  return false
end

-- Recovers `id` if it holds an expired lease; returns its lease score while a lease still holds it.
local function recover_if_expired(id, now_ms)
  local score = redis.call('ZSCORE', ACTIVE, id)
  if score and lease_deadline(score) <= now_ms then
    recover(id, score, now_ms)
    return nil
  end
  return score
end
