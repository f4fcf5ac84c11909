-- Shared helper: the loader expands it where a script includes "done".
-- The idempotency window: ids of finished jobs (acked or cancelled) are remembered for at least
-- the window and at most twice it, so that scheduling such an id again follows the duplicate
-- policy as if the job still existed. Two sets take turns: new ids go to the current one; when it
-- is a window old (or holds the cap), the other is dropped with UNLINK (freed off the main
-- thread, so the trim costs O(1) however many ids it held) and becomes current. Every id in a set
-- was added within one window of the set's start.
local function done_generations()
  local starts = redis.call('HMGET', DONE_GENS, 'a', 'b')
  return tonumber(starts[1] or '-1'), tonumber(starts[2] or '-1')
end

local function remember_done(ids, n, now_ms)
  if DONE_WINDOW_MS <= 0 or n == 0 then
    return
  end
  local a, b = done_generations()
  local current, field, other, other_field = DONE_A, 'a', DONE_B, 'b'
  local started = a
  if b > a then
    current, field, other, other_field, started = DONE_B, 'b', DONE_A, 'a', b
  end
  if started < 0 or now_ms - started >= DONE_WINDOW_MS or redis.call('SCARD', current) >= DONE_CAP then
    redis.call('UNLINK', other)
    redis.call('HSET', DONE_GENS, other_field, string.format('%d', now_ms))
    current = other
  end
  redis.call('SADD', current, unpack(ids, 1, n))
end

-- For each of `ids`, 1 when it finished within the window (as far as the sets know), else 0.
local function recently_done(ids, now_ms)
  local found = {}
  if DONE_WINDOW_MS <= 0 then
    return found
  end
  local a, b = done_generations()
  for _, gen in ipairs({{DONE_A, a}, {DONE_B, b}}) do
    if gen[2] >= 0 and gen[2] > now_ms - 2 * DONE_WINDOW_MS then
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
