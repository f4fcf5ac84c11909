-- inspect: one job by id, read atomically across the partition's sets. O(log N).
--
-- KEYS[1] scheduled zset  KEYS[2] active zset  KEYS[3] dead zset
-- KEYS[4] jobs hash       KEYS[5] attempts hash KEYS[6] errors hash
-- ARGV[1] id
--
-- Returns {state, score, attempts, record, lastError or false} with state 's' scheduled (score:
-- due ms), 'a' active (score: lease deadline ms), 'd' dead (score: burial ms); or {} when unknown.
local id = ARGV[1]
local record = redis.call('HGET', KEYS[4], id)
if not record then
  return {}
end
local state, score = 's', redis.call('ZSCORE', KEYS[1], id)
if not score then
  state, score = 'a', redis.call('ZSCORE', KEYS[2], id)
end
if not score then
  state, score = 'd', redis.call('ZSCORE', KEYS[3], id)
end
if not score then
  return {}
end
return {state, tonumber(score), tonumber(redis.call('HGET', KEYS[5], id) or '0'), record,
        redis.call('HGET', KEYS[6], id)}
