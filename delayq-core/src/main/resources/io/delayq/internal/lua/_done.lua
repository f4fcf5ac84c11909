-- Shared helper: the loader expands it where a script includes "done".
-- The idempotency window: ids of finished jobs (acked or cancelled) are remembered for at least
-- the window and at most twice it, so that scheduling such an id again follows the duplicate
-- policy as if the job still existed. Two sets take turns: new ids go to the current one; when it
-- is a window old (or holds the cap), the other is dropped with UNLINK (freed off the main
-- thread, so the trim costs O(1) however many ids it held) and becomes current. Every id in a set
-- was added within one window of the set's start.
--
-- The window is each client's setting, but the sets are shared. The window in force is the
-- longest one any client of the partition uses: a client with a shorter window never drops ids
-- that one with a longer window relies on. A longer window that no client has used for two of
-- its lengths gives way. DONE_GENS holds 'a' and 'b' (each set's start, ms), 'w' (the window in
-- force, ms) and 'wseen' (when a client using it last called, ms).

-- Returns the window in force, and each generation's start (-1 when it has none).
local function done_state(now_ms)
  local s = redis.call('HMGET', DONE_GENS, 'a', 'b', 'w', 'wseen')
  local a, b = tonumber(s[1]) or -1, tonumber(s[2]) or -1
  local w, seen = tonumber(s[3]) or 0, tonumber(s[4]) or 0
  if DONE_WINDOW_MS >= w or now_ms - seen > 2 * w then
    -- why: refreshed at most once a second, so busy clients do not write it on every call
    if DONE_WINDOW_MS ~= w or now_ms - seen > 1000 then
      redis.call('HSET', DONE_GENS, 'w', DONE_WINDOW_MS, 'wseen', string.format('%d', now_ms))
    end
    w = DONE_WINDOW_MS
  end
  return w, a, b
end

local function remember_done(ids, n, now_ms)
  if n == 0 then
    return
  end
  local window, a, b = done_state(now_ms)
  if window <= 0 then
    return
  end
  local current, other, other_field = DONE_A, DONE_B, 'b'
  local started = a
  if b > a then
    current, other, other_field, started = DONE_B, DONE_A, 'a', b
  end
  if started < 0 or now_ms - started >= window or redis.call('SCARD', current) >= DONE_CAP then
    redis.call('UNLINK', other)
    redis.call('HSET', DONE_GENS, other_field, string.format('%d', now_ms))
    current = other
  end
  redis.call('SADD', current, unpack(ids, 1, n))
end

-- For each of `ids`, true when it finished within the window (as far as the sets know).
local function recently_done(ids, now_ms)
  local found = {}
  local window, a, b = done_state(now_ms)
  if window <= 0 then
    return found
  end
  for _, gen in ipairs({{DONE_A, a}, {DONE_B, b}}) do
    if gen[2] >= 0 and gen[2] > now_ms - 2 * window then
      local member = redis.call('SMISMEMBER', gen[1], unpack(ids))
      for i = 1, #ids do
        if member[i] == 1 then
          found[i] = true
        end
      end
    end
  end
  return found
end
