-- claim: leases up to ARGV[8] due jobs of one partition under a fresh claim number, after
-- ending at most ARGV[10] expired leases (see recover) and trimming dead jobs past their age.
--
-- KEYS and ARGV[1..7]: see _keys.lua. KEYS[12] the partition's schedules hash (see _schedules.lua).
-- ARGV[8] max jobs   ARGV[9] lease ms   ARGV[10] max expired leases to recover
-- ARGV[11] the claiming client's process id (16 hex digits; empty: none is stored)
--
-- Returns {nowMicros, nextWakeMs, paused, claim number (text, or 0 when none was leased),
-- deadTrimMs, expired leases recovered, of those the ones buried (their last attempt), id1, dueMs1
-- (as text), attempt1, record1, id2, ...}; the n-th job's fencing token is the claim number times
-- 1000 plus n - 1 (see _lease.lua). When the claim handed out (or skipped) occurrences of
-- recurring schedules, one more element follows the jobs: the list of those schedules' names, for
-- the caller to tend (see _schedules.lua). A job's lateness is nowMicros minus its dueMs, both by this
-- server's clock.
-- nextWakeMs is the earliest of the next due time and the next lease deadline, or -1 when the
-- partition holds neither: the worker sleeps until then. paused is 1 when a job was due and the
-- partition is paused (a claim that finds nothing due does not look at the pause).
-- deadTrimMs is when the oldest dead job passes its retention, -1 when there is no dead job, or -2
-- when this call leased jobs and did not look: a worker that found the partition empty need not
-- run this script again before then, unless a key of the partition comes or goes.
-- @include keys
-- @include clock
-- @include bury
-- @include lease
-- @include recover
-- @include schedules
local SCHEDULES = KEYS[12]
local now_us = redis_now_us()
local now_ms = math.floor(now_us / 1000)
local max_jobs, lease_ms, max_recover = tonumber(ARGV[FIRST_ARG]), tonumber(ARGV[FIRST_ARG + 1]), tonumber(ARGV[FIRST_ARG + 2])
local holder = ARGV[FIRST_ARG + 3] or ''

-- Expired leases go back to the schedule first, so that a dead worker's jobs are claimed in turn.
-- The earliest lease is read anyway for the next wake-up, so the common case costs one call.
local first_lease = redis.call('ZRANGE', ACTIVE, 0, 0, 'WITHSCORES')
local recovered, buried = 0, 0
if first_lease[2] and lease_deadline(first_lease[2]) <= now_ms then
  local expired = redis.call('ZRANGEBYSCORE', ACTIVE, '-inf', lease_expired_max(now_ms), 'WITHSCORES',
                            'LIMIT', 0, max_recover)
  for i = 1, #expired, 2 do
    recovered = recovered + 1
    if recover(expired[i], expired[i + 1], now_ms) then
      buried = buried + 1
    end
  end
  first_lease = redis.call('ZRANGE', ACTIVE, 0, 0, 'WITHSCORES')
end

local wake = -1
local function wake_at(ms)
  if ms and (wake == -1 or ms < wake) then
    wake = ms
  end
end
if first_lease[2] then
  wake_at(lease_deadline(first_lease[2]))
end

-- One more than asked for: the first job that is not taken tells when to look again.
local head = redis.call('ZRANGE', SCHEDULED, 0, max_jobs, 'WITHSCORES')
local max = max_jobs
-- why: only a due job makes the pause matter, so a sweep that finds nothing due does not ask
if max > 0 and head[2] and tonumber(head[2]) <= now_ms and redis.call('EXISTS', PAUSED) == 1 then
  max = 0
end
local count = 0
while count < max and head[2 * count + 2] and tonumber(head[2 * count + 2]) <= now_ms do
  count = count + 1
end
if head[2 * count + 2] then
  wake_at(tonumber(head[2 * count + 2]))
end

local tend, created_due
local out = {now_us, 0, max == 0 and max_jobs > 0 and 1 or 0, 0, -2, recovered, buried}
if count > 0 then
  local ids = {}
  for i = 1, count do
    ids[i] = head[2 * i - 1]
  end
  -- why: every read and every check comes first, the writes after them. Redis does not undo a
  -- script that fails halfway, so a value another program wrote (a non-number where a count
  -- belongs) must never make a claim remove jobs from the schedule and then stop.
  local records = redis.call('HMGET', JOBS, unpack(ids))
  -- Only jobs tried before have an attempts entry; most partitions most of the time have none.
  local attempts = {}
  if redis.call('EXISTS', ATTEMPTS) == 1 then
    attempts = redis.call('HMGET', ATTEMPTS, unpack(ids))
  end
  local plan = plan_schedule_claims(SCHEDULES, ids, head, records, now_ms)
  local skip = plan and plan.skip or {}
  local taken = 0
  for i = 1, count do
    if records[i] and not skip[i] then
      taken = taken + 1
    end
  end
  local claim, counter
  if taken > 0 then
    claim, counter = next_claim(now_us)
  end
  redis.call('ZREMRANGEBYRANK', SCHEDULED, 0, count - 1)
  if plan then
    tend, created_due = apply_schedule_claims(SCHEDULES, plan, ids, records, now_ms)
    wake_at(created_due)
  end
  if taken > 0 then
    local deadline = now_ms + lease_ms
    -- why: a number argument costs Redis a float-to-text conversion per job; the batch shares a
    -- deadline, so each distinct attempt's score is formatted once
    local score_text = {}
    local zadd, nz, leases, nl, no = {}, 0, {CLAIM_COUNTER, counter}, 2, #out
    local claim_keep = claim .. 'k'
    -- why: the holder and place ride in the value the claim writes anyway (no command per job);
    -- the place is the only number formatted per job, a small one
    local holder_tail = holder ~= '' and ('@' .. holder) or nil
    local claim_at, claim_keep_at = claim .. '@', claim_keep .. '@'
    local place = 0
    out[4] = claim
    for i, id in ipairs(ids) do
      local record = records[i]
      if record and not skip[i] then
        local attempt = math.min(MAX_ATTEMPT, (tonumber(attempts[i]) or 0) + 1)
        local score = score_text[attempt]
        if not score then
          score = string.format('%d', lease_score(deadline, attempt))
          score_text[attempt] = score
        end
        zadd[nz + 1] = score
        zadd[nz + 2] = id
        nz = nz + 2
        leases[nl + 1] = id
        if holder_tail then
          leases[nl + 2] = (scheduled_with_keep(record) and claim_keep_at or claim_at) .. place .. holder_tail
        else
          leases[nl + 2] = scheduled_with_keep(record) and claim_keep or claim
        end
        place = place + 1
        nl = nl + 2
        out[no + 1] = id
        out[no + 2] = head[2 * i]
        out[no + 3] = attempt
        out[no + 4] = record
        no = no + 4
      end
    end
    redis.call('ZADD', ACTIVE, unpack(zadd))
    redis.call('HSET', LEASES, unpack(leases))
    wake_at(deadline)
  end
end
-- why: age retention must not wait for the next burial. A claim that found nothing due (every
-- idle sweep) trims, so a busy drain pays nothing for it; the oldest dead job tells the worker
-- when an idle partition needs trimming next.
if count == 0 then
  local oldest = redis.call('ZRANGE', DEAD, 0, 0, 'WITHSCORES')
  if oldest[2] and tonumber(oldest[2]) < now_ms - DEAD_AGE_MS then
    trim_dead(now_ms, max_recover)
    oldest = redis.call('ZRANGE', DEAD, 0, 0, 'WITHSCORES')
  end
  out[5] = oldest[2] and tonumber(oldest[2]) + DEAD_AGE_MS + 1 or -1
end
out[2] = wake
if tend and #tend > 0 then
  out[#out + 1] = tend
end
return out
