-- Shared helper: the loader expands it where a script includes "lease".
-- A lease is one score in the active zset: deadline_ms * 1024 + attempt, so claims and expiry
-- read the attempt with the deadline. Exact in a double while deadlines stay below 2^53 / 1024 ms
-- (the year 2248); attempts are capped at 1000. Which delivery holds the lease is the fencing
-- token in the leases hash: unique per delivery, so a former holder is refused even when the job
-- was handed back uncounted and delivered again on the same attempt. The stored token of a job
-- scheduled with KEEP ends in 'k', so that its ack knows to remember the id (see _done.lua)
-- without reading the record.
local LEASE_SCALE = 1024
-- The highest attempt a lease can carry; records written by others with more are capped here.
local MAX_ATTEMPT = 1000
-- The leases hash field that holds the last token issued: no job id is empty.
local TOKEN_COUNTER = ''

local function lease_score(deadline_ms, attempt)
  return deadline_ms * LEASE_SCALE + attempt
end

local function lease_deadline(score)
  return math.floor(tonumber(score) / LEASE_SCALE)
end

local function lease_attempt(score)
  return tonumber(score) % LEASE_SCALE
end

-- The highest score whose lease has ended by now_ms.
local function lease_expired_max(now_ms)
  return now_ms * LEASE_SCALE + LEASE_SCALE - 1
end

-- True when `stored` (a leases hash value) is the lease of the delivery with `token`.
local function is_holder(stored, token)
  return stored == token or stored == token .. 'k'
end

-- The lease score of `id` when the delivery with `token` holds it and it has not ended; else nil.
local function held_lease(id, token, now_ms)
  local score = redis.call('ZSCORE', ACTIVE, id)
  if not score or lease_deadline(score) <= now_ms then
    return nil
  end
  if not is_holder(redis.call('HGET', LEASES, id), token) then
    return nil
  end
  return score
end

-- The first of `count` fresh fencing tokens (the rest follow it by one), and the counter value
-- the caller must write to TOKEN_COUNTER with its leases. Tokens never fall behind the server
-- clock in microseconds, so they keep growing even if the counter is lost (a failover that
-- dropped the last writes, a deleted key): a token is never reused.
local function issue_tokens(count, now_us)
  -- why: a counter that is not a number (written by another program) is read as 0; the clock
  -- keeps the tokens fresh all the same
  local base = math.max(tonumber(redis.call('HGET', LEASES, TOKEN_COUNTER)) or 0, now_us)
  -- why: padded past hash-max-listpack-value (64 bytes), so Redis keeps this hash as a hash
  -- table. A hash of up to 128 short entries is otherwise a listpack, searched linearly: writing
  -- and reading a batch of 100 leases cost about five times as much.
  return base + 1, string.format('%65d', base + count)
end
