-- claim: leases up to ARGV[1] due jobs of one partition, after returning at most ARGV[3] expired
-- leases to the schedule (or to the dead set when their attempts are spent).
--
-- KEYS[1] scheduled zset  KEYS[2] active zset (scores are leases)  KEYS[3] jobs hash  KEYS[4] attempts hash
-- KEYS[5] dead zset       KEYS[6] errors hash  KEYS[7] paused flag
-- ARGV[1] max jobs   ARGV[2] lease ms   ARGV[3] max expired leases to recover
-- ARGV[4] dead-letter cap (count)   ARGV[5] dead-letter retention ms
--
-- Returns {nowMicros, nextWakeMs, paused, id1, dueMs1 (as text), attempt1, record1, id2, ...}.
-- nextWakeMs is the earliest of the next due time and the next lease deadline, or -1 when the
-- partition holds neither: the worker sleeps until then.
-- @include clock
-- @include bury
-- @include lease
local now_us = redis_now_us()
local now_ms = math.floor(now_us / 1000)

-- Expired leases go back to the schedule first, so that a dead worker's jobs are claimed in turn.
-- The earliest lease is read anyway for the next wake-up, so the common case costs one call.
local first_lease = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
if first_lease[2] and lease_deadline(first_lease[2]) <= now_ms then
  local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', lease_expired_max(now_ms), 'WITHSCORES',
                            'LIMIT', 0, tonumber(ARGV[3]))
  for i = 1, #expired, 2 do
    local id = expired[i]
    local attempts = lease_attempt(expired[i + 1])
    redis.call('ZREM', KEYS[2], id)
    local record = redis.call('HGET', KEYS[3], id)
    if record then
      redis.call('HSET', KEYS[4], id, attempts)
      if attempts >= max_attempts_of(record) then
        bury(KEYS[5], KEYS[3], KEYS[4], KEYS[6], id, now_ms,
             'lease expired on attempt ' .. attempts .. ' of ' .. max_attempts_of(record),
             tonumber(ARGV[4]), tonumber(ARGV[5]))
      else
        redis.call('ZADD', KEYS[1], now_ms, id)
      end
    else
      redis.call('HDEL', KEYS[4], id)
    end
  end
  first_lease = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
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

local max = tonumber(ARGV[1])
if redis.call('EXISTS', KEYS[7]) == 1 then
  max = 0
end
-- One more than asked for: the first job that is not taken tells when to look again.
local head = redis.call('ZRANGE', KEYS[1], 0, max, 'WITHSCORES')
local count = 0
while count < max and head[2 * count + 2] and tonumber(head[2 * count + 2]) <= now_ms do
  count = count + 1
end
if head[2 * count + 2] then
  wake_at(tonumber(head[2 * count + 2]))
end

local out = {now_us, 0, max == 0 and tonumber(ARGV[1]) > 0 and 1 or 0}
if count > 0 then
  local ids = {}
  for i = 1, count do
    ids[i] = head[2 * i - 1]
  end
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, count - 1)
  local records = redis.call('HMGET', KEYS[3], unpack(ids))
  -- Only jobs tried before have an attempts entry; most partitions most of the time have none.
  local attempts = {}
  if redis.call('EXISTS', KEYS[4]) == 1 then
    attempts = redis.call('HMGET', KEYS[4], unpack(ids))
  end
  local deadline = now_ms + tonumber(ARGV[2])
  -- why: a number argument costs Redis a float-to-text conversion per job; the batch shares a
  -- deadline, so each distinct attempt's score is formatted once
  local score_text = {}
  local zadd, nz, no = {}, 0, 3
  for i, id in ipairs(ids) do
    local record = records[i]
    if record then
      local attempt = tonumber(attempts[i] or '0') + 1
      local score = score_text[attempt]
      if not score then
        score = string.format('%d', lease_score(deadline, attempt))
        score_text[attempt] = score
      end
      zadd[nz + 1] = score
      zadd[nz + 2] = id
      nz = nz + 2
      out[no + 1] = id
      out[no + 2] = head[2 * i]
      out[no + 3] = attempt
      out[no + 4] = record
      no = no + 4
    end
  end
  if nz > 0 then
    redis.call('ZADD', KEYS[2], unpack(zadd))
    wake_at(deadline)
  end
end
out[2] = wake
return out
