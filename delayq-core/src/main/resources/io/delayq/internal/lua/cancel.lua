-- cancel: removes a scheduled job and its record. A job a worker holds is not touched.
--
-- KEYS[1] scheduled zset  KEYS[2] active zset  KEYS[3] jobs hash  KEYS[4] attempts hash  KEYS[5] errors hash
-- ARGV[1] id
--
-- Returns 1 cancelled, 0 no such scheduled job. Error replies: "DQ_ACTIVE" when a worker holds it.
local id = ARGV[1]
if redis.call('ZREM', KEYS[1], id) == 1 then
  redis.call('HDEL', KEYS[3], id)
  redis.call('HDEL', KEYS[4], id)
  redis.call('HDEL', KEYS[5], id)
  return 1
end
if redis.call('ZSCORE', KEYS[2], id) then
  return redis.error_reply('DQ_ACTIVE a worker holds this job now; it can no longer be cancelled')
end
return 0
