-- inspect: one job by id, read atomically across the partition's sets. O(log N); writes nothing.
--
-- KEYS and ARGV[1..7]: see _keys.lua.
-- ARGV[8] id
--
-- Returns {state, time, attempts, record, lastError or false[, lease]} with state
-- 's' scheduled (time: due ms), 'a' active (time: lease deadline ms), 'x' expired (an active lease
-- that ended and is not yet recovered; time: its deadline), 'd' dead (time: burial ms); or {}.
-- lease, for 'a' and 'x' only: the leases hash value (see _lease.lua), or false when absent.
-- @include keys
-- @include clock
-- @include lease
local id = ARGV[FIRST_ARG]
local record = redis.call('HGET', JOBS, id)
if not record then
  return {}
end
local error = redis.call('HGET', ERRORS, id)
local score = redis.call('ZSCORE', ACTIVE, id)
if score then
  local now_ms = math.floor(redis_now_us() / 1000)
  local state = lease_deadline(score) > now_ms and 'a' or 'x'
  return {state, lease_deadline(score), lease_attempt(score), record, error, redis.call('HGET', LEASES, id)}
end
local attempts = tonumber(redis.call('HGET', ATTEMPTS, id)) or 0
score = redis.call('ZSCORE', SCHEDULED, id)
if score then
  return {'s', tonumber(score), attempts, record, error}
end
score = redis.call('ZSCORE', DEAD, id)
if score then
  return {'d', tonumber(score), attempts, record, error}
end
return {}
