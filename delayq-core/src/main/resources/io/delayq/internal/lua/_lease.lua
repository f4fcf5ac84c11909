-- Shared helper: the loader expands it where a script includes "lease".
-- A lease is one score in the active zset: deadline_ms * 1024 + attempt. Claims and acks then read
-- and write the attempt with the deadline, with no per-job hash access. Exact in a double while
-- deadlines stay below 2^53 / 1024 ms (the year 2248); attempts are capped at 1000.
local LEASE_SCALE = 1024

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
