-- schedule: adds jobs to one partition, or applies the duplicate policy to ids already known.
-- A KEEP request also keeps an id that finished within the idempotency window (as if the job still
-- existed); a REPLACE request schedules it again either way, so it does not look. Takes
-- many jobs per call so that bulk scheduling pays one round trip and one script start per batch.
--
-- KEYS and ARGV[1..7]: see _keys.lua.
-- ARGV[8..] five values per job: id, record, 'd' (the next value is a delay in ms) or 'a' (epoch
-- ms), that value, and 'r' (replace) or 'k' (keep)
--
-- Returns {outcome1, dueMs1, outcome2, dueMs2, ...} in the order of the jobs. Outcome 1 created,
-- 2 replaced, 0 kept (dueMs: the existing job's due time, or -1 when it is active, dead or
-- finished), -1 refused because a delivery holds that job right now (dueMs -1).
-- @include keys
-- @include clock
-- @include bury
-- @include lease
-- @include recover
-- @include done
-- @include wake
local now_ms
local function now()
  now_ms = now_ms or math.floor(redis_now_us() / 1000)
  return now_ms
end
local out = {}
local placed = {}

-- A KEEP request for a job that exists makes its id one to remember once it finishes, as if that
-- request had created it: retrying the request after the job ran must not schedule it again.
local function mark_keep(id)
  local record = redis.call('HGET', JOBS, id)
  if not scheduled_with_keep(record) then
    local marked, n = string.gsub(record, '^([23])|r|', '%1|k|', 1)
    if n == 0 then
      marked, n = string.gsub(record, '^1|(%d+)|(%d+)|', '2|k|%1|%2|', 1)
    end
    if n == 1 then
      redis.call('HSET', JOBS, id, marked)
    end
  end
  local lease = redis.call('HGET', LEASES, id)
  if lease and not lease_keeps(lease) then
    redis.call('HSET', LEASES, id, (string.gsub(lease, '^(%d+)', '%1k', 1)))
  end
end

-- why: asked even by a client whose own window is off: the window in force is the longest any
-- client of the partition uses (see _done.lua)
local keep_ids, keep_at = {}, {}
for i = FIRST_ARG, #ARGV, 5 do
  if ARGV[i + 4] == 'k' then
    keep_ids[#keep_ids + 1] = ARGV[i]
    keep_at[#keep_ids] = (i - FIRST_ARG) / 5 + 1
  end
end
local finished = {}
if #keep_ids > 0 then
  for j, found in pairs(recently_done(keep_ids, now())) do
    finished[keep_at[j]] = found
  end
end

local n = 0
for i = FIRST_ARG, #ARGV, 5 do
  n = n + 1
  local id = ARGV[i]
  -- why: an absolute time stays text, sparing Redis a float-to-text conversion per job
  local due_ms = ARGV[i + 3]
  if ARGV[i + 2] == 'd' then
    -- why: TIME only when a delay needs it; absolute times are scheduled without it
    due_ms = string.format('%d', now() + tonumber(due_ms))
  end
  local keep = ARGV[i + 4] == 'k'
  local outcome = 1
  if finished[n] and keep then
    outcome = 0
  -- why: HSETNX both tests and writes, so a new id (the common case) costs one call, not two
  elseif redis.call('HSETNX', JOBS, id, ARGV[i + 1]) == 0 then
    if keep then
      outcome = 0
      mark_keep(id)
    elseif recover_if_expired(id, now()) then
      outcome = -1
    else
      redis.call('ZREM', DEAD, id)
      redis.call('HDEL', ATTEMPTS, id)
      redis.call('HDEL', ERRORS, id)
      redis.call('HSET', JOBS, id, ARGV[i + 1])
      outcome = 2
    end
  end
  if outcome > 0 then
    redis.call('ZADD', SCHEDULED, due_ms, id)
    placed[id] = true
    out[#out + 1] = outcome
    out[#out + 1] = tonumber(due_ms)
  elseif outcome == 0 then
    local score = redis.call('ZSCORE', SCHEDULED, id)
    out[#out + 1] = 0
    out[#out + 1] = score and tonumber(score) or -1
  else
    out[#out + 1] = -1
    out[#out + 1] = -1
  end
end

wake_if_placed_at_head(placed)
return out
