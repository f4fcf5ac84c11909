-- list-jobs: the next jobs of one partition in one listing, in Redis's (score, id) order, after a
-- position: at most ARGV[9] jobs and about ARGV[10] bytes of records (always at least one job when
-- any is left). Finding the position costs O(log N) (plus a binary search among equal scores when
-- the job at the position has gone or moved), the page O(log N + limit). Writes nothing.
--
-- KEYS and ARGV[1..7]: see _keys.lua.
-- ARGV[8] listing: 's' scheduled, 'd' due now, 'a' active (lease running), 'x' expired (lease
--         ended, not recovered), 'D' dead
-- ARGV[9] most jobs   ARGV[10] record bytes budget
-- ARGV[11] score of the position ('' to start at the beginning)   ARGV[12] id at the position
-- ARGV[13] '1': summaries, each record sent without its payload (its header only; the budget then
--          counts headers), '' or absent: whole records
--
-- Returns {more, id1, score1 (as Redis formats it), time1 ms (due, lease deadline or burial),
-- attempts1, record1 ('' when missing; its size, as a number, when it alone is over the budget),
-- lastError1 ('' when none), lease1, payloadSize1, id2, ...}; more is 1 when the listing holds jobs
-- after the last one returned. lease: for 'a' and 'x', the leases hash value as inspect gives it
-- (see _lease.lua: stored_lease), '' when there is none; '' for the other listings. payloadSize:
-- for summaries, the payload's length in bytes (a record that does not parse: its whole length,
-- sent as its first 64 bytes); -1 for whole records.
-- @include keys
-- @include clock
-- @include lease
local listing = ARGV[FIRST_ARG]
local limit, budget = tonumber(ARGV[FIRST_ARG + 1]), tonumber(ARGV[FIRST_ARG + 2])
local after_score, after_id = ARGV[FIRST_ARG + 3], ARGV[FIRST_ARG + 4]
local held = listing == 'a' or listing == 'x'
local summaries = ARGV[FIRST_ARG + 5] == '1'
local key = held and ACTIVE or (listing == 'D' and DEAD or SCHEDULED)

-- The listing is the rank range [first, last) of its set.
local first, last = 0, nil
if listing == 'd' then
  last = redis.call('ZCOUNT', key, '-inf', math.floor(redis_now_us() / 1000))
elseif held then
  local ended = redis.call('ZCOUNT', key, '-inf', lease_expired_max(math.floor(redis_now_us() / 1000)))
  if listing == 'x' then
    last = ended
  else
    first, last = ended, redis.call('ZCARD', key)
  end
else
  last = redis.call('ZCARD', key)
end

-- why: Lua compares strings with strcoll, which follows the server's locale; Redis orders members
-- by their bytes
local function bytes_after(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then
      return x > y
    end
  end
  return #a > #b
end

-- The length of a record's header (up to and with the separator before the payload: see
-- JobRecord), or nil when it does not parse.
local function header_length(record)
  local version = string.byte(record, 1)
  local separators = (version == 49 and 3) or (version == 50 and 4) or (version == 51 and 5) or 0
  if separators == 0 or string.byte(record, 2) ~= 124 then
    return nil
  end
  local at = 0
  for _ = 1, separators do
    at = string.find(record, '|', at + 1, true)
    if not at then
      return nil
    end
  end
  return at
end

local start = first
if after_score ~= '' then
  local score = tonumber(after_score)
  local own = redis.call('ZSCORE', key, after_id)
  local rank
  if own and tonumber(own) == score then
    rank = redis.call('ZRANK', key, after_id) + 1
  else
    -- The job at the position has gone or moved: among the members with its score, the first
    -- whose id sorts after it.
    local lo = redis.call('ZCOUNT', key, '-inf', '(' .. after_score)
    local hi = redis.call('ZCOUNT', key, '-inf', after_score)
    while lo < hi do
      local mid = math.floor((lo + hi) / 2)
      if bytes_after(redis.call('ZRANGE', key, mid, mid)[1], after_id) then
        hi = mid
      else
        lo = mid + 1
      end
    end
    rank = lo
  end
  if rank > start then
    start = rank
  end
end

local out = {0}
if start >= last then
  return out
end
local members = redis.call('ZRANGE', key, start, math.min(last, start + limit) - 1, 'WITHSCORES')
local used, taken = 0, 0
for i = 1, #members, 2 do
  local id, score = members[i], members[i + 1]
  local size = redis.call('HSTRLEN', JOBS, id)
  local record, payload_size = nil, -1
  if summaries then
    record, payload_size = '', 0
    if size > 0 then
      local whole = redis.call('HGET', JOBS, id)
      local header = header_length(whole)
      record = header and string.sub(whole, 1, header) or string.sub(whole, 1, 64)
      payload_size = header and (size - header) or size
    end
    size = #record
  end
  if taken > 0 and used + size > budget then
    break
  end
  if not summaries then
    -- why: a first record beyond the budget is sent as its size only; the client fetches it if it
    -- makes the page, so that a page of a wide queue of large jobs does not read one from each partition
    record = size > budget and size or (size > 0 and redis.call('HGET', JOBS, id) or '')
  end
  used, taken = used + math.min(size, budget), taken + 1
  local time, attempts
  if held then
    time, attempts = lease_deadline(score), lease_attempt(score)
  else
    time, attempts = tonumber(score), tonumber(redis.call('HGET', ATTEMPTS, id)) or 0
  end
  out[#out + 1] = id
  out[#out + 1] = score
  out[#out + 1] = time
  out[#out + 1] = attempts
  out[#out + 1] = record
  out[#out + 1] = redis.call('HGET', ERRORS, id) or ''
  -- why: sent with the job, so a dashboard sees each job's holder without a call per job; at most
  -- MAX_LEASE_VALUE bytes each, outside the record budget
  out[#out + 1] = held and stored_lease(id) or ''
  out[#out + 1] = payload_size
end
if start + taken < last then
  out[1] = 1
end
return out
