-- Shared helper: the loader expands it where a script includes "lease".
-- A lease is one score in the active zset: deadline_ms * 1024 + attempt, so claims and expiry
-- read the attempt with the deadline. Exact in a double while deadlines stay below 2^53 / 1024 ms
-- (the year 2248); attempts are capped at 1000. Which delivery holds the lease is in the leases
-- hash: the number of the claim that leased it, unique on the partition and never reused, so a
-- former holder is refused even when the job was handed back uncounted and delivered again on the
-- same attempt. The fencing token a caller holds is that claim number times 1000 plus the job's
-- place in the claim's reply (a claim takes at most 1000 jobs): unique per delivery; the place is
-- stored after the claim number only for JobInfo, and the scripts compare claim numbers. Callers pass the claim number, which scripts compare. Why one number per claim:
-- formatting a number per job cost a claim of 100 jobs a tenth of its time. The stored value of a
-- job scheduled with KEEP ends in 'k', so that its ack knows to remember the id (see _done.lua)
-- without reading the record.
local LEASE_SCALE = 1024
-- The highest attempt a lease can carry; records written by others with more are capped here.
local MAX_ATTEMPT = 1000
-- The leases hash field that holds the last claim number: no job id is empty.
local CLAIM_COUNTER = ''
-- Claim numbers stay below this: exact in a double (2^53 is 9.007e15), and times 1000 within a
-- signed 64-bit token. The server clock in microseconds reaches it in the year 2255.
local MAX_CLAIM = 9000000000000000

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

-- A leases hash value is "<claim>[k][@<place>@<holder>]": the claim number; 'k' for a job scheduled
-- with KEEP; then the job's place in the claim's reply (its fencing token is claim * 1000 + place)
-- and the process id of the client that claimed it, for JobInfo. Values without the tail were
-- written before 0.4.0 and are read the same.

-- True when `stored` (a leases hash value, or false) is the lease of the claim numbered `claim` (text).
local function is_holder(stored, claim)
  if not stored then
    return false
  end
  local n = #claim
  if string.sub(stored, 1, n) ~= claim then
    return false
  end
  local after = string.sub(stored, n + 1, n + 1)
  return after == '' or after == 'k' or after == '@'
end

-- True when `stored` (a leases hash value) marks a job scheduled with KEEP.
local function lease_keeps(stored)
  return string.find(stored, '^%d+k') ~= nil
end

-- The lease score of `id` when the claim numbered `claim` holds it and it has not ended; else nil.
local function held_lease(id, claim, now_ms)
  local score = redis.call('ZSCORE', ACTIVE, id)
  if not score or lease_deadline(score) <= now_ms then
    return nil
  end
  if not is_holder(redis.call('HGET', LEASES, id), claim) then
    return nil
  end
  return score
end

-- A fresh claim number (as text), and the counter value the caller must write to CLAIM_COUNTER
-- with its leases. Claim numbers never fall behind the server clock in microseconds, so they keep
-- growing even if the counter is lost (a failover that dropped the last writes, a deleted key):
-- one is never reused.
local function next_claim(now_us)
  local counter = tonumber(redis.call('HGET', LEASES, CLAIM_COUNTER))
  -- why: a counter no claim could have written (another program's: not a number, a fraction,
  -- negative, infinite, not-a-number, past MAX_CLAIM, where adding one may change nothing) is
  -- read as 0; the clock keeps the numbers fresh all the same
  if not counter or not (counter >= 0 and counter < MAX_CLAIM) or counter % 1 ~= 0 then
    counter = 0
  end
  local claim = math.max(counter, now_us) + 1
  if claim >= MAX_CLAIM then
    error(redis.error_reply('DQ_CLOCK the server clock (' .. string.format('%d', now_us)
      .. ' us) is past the range of fencing tokens; check the Redis host\'s time'))
  end
  -- why: padded past hash-max-listpack-value (64 bytes), so Redis keeps this hash as a hash
  -- table. A hash of up to 128 short entries is otherwise a listpack, searched linearly: writing
  -- and reading a batch of 100 leases cost about five times as much.
  return string.format('%d', claim), string.format('%65d', claim)
end
