-- delete-dead: removes a dead job for good.
--
-- KEYS[1] dead zset  KEYS[2] jobs hash  KEYS[3] attempts hash  KEYS[4] errors hash
-- ARGV[1] id
--
-- Returns 1 deleted, 0 no dead job has this id.
local id = ARGV[1]
if redis.call('ZREM', KEYS[1], id) == 0 then
  return 0
end
redis.call('HDEL', KEYS[2], id)
redis.call('HDEL', KEYS[3], id)
redis.call('HDEL', KEYS[4], id)
return 1
