-- inspect: one job by id, read atomically across the partition's sets. O(log N).
--
-- KEYS[1] scheduled zset  KEYS[2] active zset  KEYS[3] dead zset
-- KEYS[4] jobs hash       KEYS[5] attempts hash KEYS[6] errors hash
-- ARGV[1] id
--
-- Returns {state, time, attempts, record, lastError or false} with state 's' scheduled (time:
-- due ms), 'a' active (time: lease deadline ms), 'd' dead (time: burial ms); or {} when unknown.
-- @include lease
local id = ARGV[1]
local record = redis.call('HGET', KEYS[4], id)
if not record then
  return {}
end
local error = redis.call('HGET', KEYS[6], id)
local score = redis.call('ZSCORE', KEYS[2], id)
if score then
  return {'a', lease_deadline(score), lease_attempt(score), record, error}
end
local attempts = tonumber(redis.call('HGET', KEYS[5], id) or '0')
score = redis.call('ZSCORE', KEYS[1], id)
if score then
  return {'s', tonumber(score), attempts, record, error}
end
score = redis.call('ZSCORE', KEYS[3], id)
if score then
  return {'d', tonumber(score), attempts, record, error}
end
return {}
