-- forward-list: moves up to ARGV[8] due jobs (and about MAX_CALL_BYTES of records, at least one job)
-- of one partition onto a Redis list in one step: each
-- job is pushed and removed as an ack removes it, in the same script, so there is no moment at
-- which a job is in neither place. Expired leases (of workers or two-step forwarders that died)
-- are ended first, at most ARGV[9], as claim does; an idle call trims dead jobs past their age.
--
-- KEYS and ARGV[1..7]: see _keys.lua. KEYS[12] the target list, which must be in this partition's
-- slot on a Redis Cluster (the Java side only runs this script when it is). KEYS[13] the
-- partition's schedules hash: occurrences of recurring schedules are forwarded (or skipped) as a
-- claim hands them out, and the next occurrence created in the same step (see _schedules.lua).
-- ARGV[8] max jobs   ARGV[9] max expired leases to recover
-- ARGV[10] format: 'r' the payload bytes as scheduled, 'e' the JSON envelope (docs/LIST-FORWARDING.md)
-- ARGV[11] end to push at: 'l' (LPUSH, for RPOP/BRPOP consumers) or 'r' (RPUSH, for LPOP)
--
-- Returns {nowMicros, nextWakeMs, paused, moved, deadTrimMs, expired leases recovered, of those
-- the ones buried, problem, unreadable}: the first seven as claim.lua's header (moved instead of
-- the claim number); problem is '' or 'WRONGTYPE <type>' when the list key holds another type, in
-- which case nothing was moved; unreadable counts due jobs whose record does not parse, which went
-- to the dead-letter set instead of the list. When occurrences of recurring schedules were moved or
-- skipped, one more element follows: the list of those schedules' names, for the caller to tend.
-- Jobs of one call are pushed in due order, so a consumer popping at the other end takes the
-- earliest due first, within a call and across calls.
-- @include keys
-- @include clock
-- @include bury
-- @include lease
-- @include recover
-- @include done
-- @include schedules
local LIST = KEYS[12]
local SCHEDULES = KEYS[13]
local tend
local MAX_CALL_BYTES = 1048576
local now_us = redis_now_us()
local now_ms = math.floor(now_us / 1000)
local max_jobs, max_recover = tonumber(ARGV[FIRST_ARG]), tonumber(ARGV[FIRST_ARG + 1])
local envelope, push = ARGV[FIRST_ARG + 2] == 'e', ARGV[FIRST_ARG + 3] == 'r' and 'RPUSH' or 'LPUSH'

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

local head = redis.call('ZRANGE', SCHEDULED, 0, max_jobs, 'WITHSCORES')
local max = max_jobs
if max > 0 and head[2] and tonumber(head[2]) <= now_ms and redis.call('EXISTS', PAUSED) == 1 then
  max = 0
end
local count = 0
while count < max and head[2 * count + 2] and tonumber(head[2 * count + 2]) <= now_ms do
  count = count + 1
end

local out = {now_us, 0, max == 0 and max_jobs > 0 and 1 or 0, 0, -2, recovered, buried, '', 0}
if count > 0 then
  -- why: a key of another type must cost nothing: checked before any write, and reported rather
  -- than raised, so that the caller keeps this reply's clock and backs off
  local kind = redis.call('TYPE', LIST)['ok']
  if kind ~= 'list' and kind ~= 'none' then
    out[8] = 'WRONGTYPE ' .. kind
    wake_at(tonumber(head[2]))
    out[2] = wake
    return out
  end
end

-- The payload of a record (see _bury.lua for its versions) and whether it was scheduled as JSON;
-- nil for a record that does not parse.
local function payload_of(record)
  local version = string.sub(record, 1, 2)
  local from
  if version == '1|' then
    from = 3
  elseif (version == '2|' or version == '3|') and string.find(record, '^[kr]|', 3) then
    from = 5
  else
    return nil
  end
  local second = string.find(record, '|', from, true)
  local third = second and string.find(record, '|', second + 1, true)
  if not third then
    return nil
  end
  local json = version ~= '1|' and string.byte(record, third - 1) == 106
  if version == '3|' then
    third = string.find(record, '|', third + 1, true)
    if not third then
      return nil
    end
  end
  return string.sub(record, third + 1), json
end

local function json_escape(ch)
  if ch == '"' then
    return '\\"'
  elseif ch == '\\' then
    return '\\\\'
  end
  return string.format('\\u%04x', string.byte(ch))
end

local function json_string(s)
  return '"' .. (string.gsub(s, '[%c"\\]', json_escape)) .. '"'
end

-- Strict UTF-8, as Java's decoder reads it: no overlong forms, no surrogates, nothing past U+10FFFF.
local function is_utf8(s)
  local i, n = string.find(s, '[\128-\255]'), #s
  while i do
    local c = string.byte(s, i)
    local len, lo, hi = 0, 0x80, 0xBF
    if c >= 0xC2 and c <= 0xDF then
      len = 2
    elseif c >= 0xE0 and c <= 0xEF then
      len = 3
      if c == 0xE0 then lo = 0xA0 elseif c == 0xED then hi = 0x9F end
    elseif c >= 0xF0 and c <= 0xF4 then
      len = 4
      if c == 0xF0 then lo = 0x90 elseif c == 0xF4 then hi = 0x8F end
    else
      return false
    end
    if i + len - 1 > n then
      return false
    end
    local c2 = string.byte(s, i + 1)
    if c2 < lo or c2 > hi then
      return false
    end
    for k = 2, len - 1 do
      local ck = string.byte(s, i + k)
      if ck < 0x80 or ck > 0xBF then
        return false
      end
    end
    i = string.find(s, '[\128-\255]', i + len)
  end
  return true
end

local B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
-- The two Base64 characters of every 12-bit value, built on first use.
local PAIRS
local function base64(s)
  if not PAIRS then
    PAIRS = {}
    for v = 0, 4095 do
      local hi, lo = math.floor(v / 64) + 1, v % 64 + 1
      PAIRS[v] = string.sub(B64, hi, hi) .. string.sub(B64, lo, lo)
    end
  end
  -- why: three bytes become two strings that already exist, so a large payload creates no string
  -- per byte for Lua to intern and collect (that made a batch of binary envelopes block Redis for
  -- minutes); table.concat then joins them in C
  local parts, n, len = {}, 0, #s
  local full = len - len % 3
  local byte, floor = string.byte, math.floor
  for i = 1, full, 3 do
    local a, b, c = byte(s, i, i + 2)
    local v = a * 65536 + b * 256 + c
    local hi = floor(v / 4096)
    parts[n + 1], parts[n + 2] = PAIRS[hi], PAIRS[v - hi * 4096]
    n = n + 2
  end
  if len > full then
    local a, b = byte(s, full + 1, len)
    local v = a * 65536 + (b or 0) * 256
    local hi = floor(v / 4096)
    parts[n + 1] = PAIRS[hi]
    parts[n + 2] = b and string.sub(PAIRS[v - hi * 4096], 1, 1) .. '=' or '=='
  end
  return table.concat(parts)
end

local function envelope_of(id, attempt, due_ms, payload, json)
  local body
  if json and #payload > 0 then
    body = '"payload":' .. payload
  elseif is_utf8(payload) then
    body = '"payload":' .. json_string(payload)
  else
    body = '"payloadBase64":"' .. base64(payload) .. '"'
  end
  return '{"id":' .. json_string(id) .. ',"attempt":' .. string.format('%d', attempt) .. ',"dueAt":'
    .. string.format('%d', due_ms) .. ',' .. body .. '}'
end

if count > 0 then
  local ids = {}
  for i = 1, count do
    ids[i] = head[2 * i - 1]
  end
  -- why: every read and check first, then the push, then the removals: Redis does not undo a
  -- script that stops halfway, and a stop before the push changes nothing
  local records = redis.call('HMGET', JOBS, unpack(ids))
  -- why: the batch bounds the count, this the bytes: a call copies, checks and encodes every
  -- payload it moves, so it stops after about MAX_CALL_BYTES (always taking one job); the next
  -- due job is the wake time, in the past, so the caller calls again at once
  local bytes = 0
  for i = 1, count do
    bytes = bytes + (records[i] and #records[i] or 0)
    if i > 1 and bytes > MAX_CALL_BYTES then
      count = i - 1
      for k = #ids, count + 1, -1 do
        ids[k] = nil
      end
      break
    end
  end
  local attempts = {}
  if redis.call('EXISTS', ATTEMPTS) == 1 then
    attempts = redis.call('HMGET', ATTEMPTS, unpack(ids))
  end
  local plan = plan_schedule_claims(SCHEDULES, ids, head, records, now_ms)
  local skip = plan and plan.skip or {}
  local values, nv, done, nd, kept, nk, bad = {}, 0, {}, 0, {}, 0, {}
  for i, id in ipairs(ids) do
    local record = records[i]
    if record and not skip[i] then
      local payload, json = payload_of(record)
      if payload == nil then
        bad[#bad + 1] = id
      else
        nv = nv + 1
        if envelope then
          local attempt = math.min(MAX_ATTEMPT, (tonumber(attempts[i]) or 0) + 1)
          values[nv] = envelope_of(id, attempt, tonumber(head[2 * i]), payload, json)
        else
          values[nv] = payload
        end
        nd = nd + 1
        done[nd] = id
        if scheduled_with_keep(record) then
          nk = nk + 1
          kept[nk] = id
        end
      end
    end
  end
  if nv > 0 then
    redis.call(push, LIST, unpack(values, 1, nv))
  end
  redis.call('ZREMRANGEBYRANK', SCHEDULED, 0, count - 1)
  if plan then
    local created_due
    tend, created_due = apply_schedule_claims(SCHEDULES, plan, ids, records, now_ms)
    wake_at(created_due)
  end
  if nd > 0 then
    redis.call('HDEL', JOBS, unpack(done, 1, nd))
    if redis.call('EXISTS', ATTEMPTS) == 1 then
      redis.call('HDEL', ATTEMPTS, unpack(done, 1, nd))
    end
    if redis.call('EXISTS', ERRORS) == 1 then
      redis.call('HDEL', ERRORS, unpack(done, 1, nd))
    end
    remember_done(kept, nk, now_ms)
  end
  for _, id in ipairs(bad) do
    -- why: a record nobody can read goes dead with the reason, as a claim does with it
    bury(id, now_ms, 'record cannot be decoded; not forwarded to the list')
  end
  out[4] = nd
  out[9] = #bad
end
if head[2 * count + 2] then
  wake_at(tonumber(head[2 * count + 2]))
end
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
