-- purge: one bounded step of deleting a queue, on one partition. Removes at most ARGV[8] jobs
-- (scheduled first, then held, then dead) with their records, attempt counts, errors and leases.
-- Once no job is left, drops the partition's other keys with UNLINK (O(1) here; Redis frees them
-- off the main thread): ids remembered for the idempotency window, the claim counter (claim
-- numbers stay fresh without it, see _lease.lua), and anything no job points to. Keeps the
-- partition paused while it runs, so no claim leases a job it is about to remove.
--
-- KEYS and ARGV[1..7]: see _keys.lua.
-- ARGV[8] most jobs to remove   ARGV[9] '1' to remove jobs under running leases too (force)
-- ARGV[10] '1' on the last pass: once the partition is empty, lift its pause
--
-- Returns {jobs removed, 1 when the partition is now empty (else 0)}; or, when not forced and a
-- lease still runs (a resume let workers claim again), {-1, leases running} with nothing removed.
-- @include keys
-- @include clock
-- @include lease
local budget = tonumber(ARGV[FIRST_ARG])
local force, last_pass = ARGV[FIRST_ARG + 1] == '1', ARGV[FIRST_ARG + 2] == '1'
redis.call('SET', PAUSED, '1')
if not force then
  local now_ms = math.floor(redis_now_us() / 1000)
  local running = redis.call('ZCOUNT', ACTIVE, '(' .. string.format('%d', lease_expired_max(now_ms)), '+inf')
  if running > 0 then
    return {-1, running}
  end
end

local removed = 0
local function remove_jobs(set)
  if budget <= 0 then
    return
  end
  local ids = redis.call('ZRANGE', set, 0, budget - 1)
  if #ids == 0 then
    return
  end
  redis.call('ZREM', set, unpack(ids))
  redis.call('HDEL', JOBS, unpack(ids))
  redis.call('HDEL', ATTEMPTS, unpack(ids))
  redis.call('HDEL', ERRORS, unpack(ids))
  redis.call('HDEL', LEASES, unpack(ids))
  removed = removed + #ids
  budget = budget - #ids
end
remove_jobs(SCHEDULED)
remove_jobs(ACTIVE)
remove_jobs(DEAD)

if redis.call('ZCARD', SCHEDULED) + redis.call('ZCARD', ACTIVE) + redis.call('ZCARD', DEAD) > 0 then
  return {removed, 0}
end
redis.call('UNLINK', JOBS, ATTEMPTS, ERRORS, LEASES, DONE_A, DONE_B, DONE_GENS)
if last_pass then
  redis.call('DEL', PAUSED)
end
return {removed, 1}
