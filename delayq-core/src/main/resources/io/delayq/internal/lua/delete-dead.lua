-- delete-dead: removes a dead job for good.
--
-- KEYS and ARGV[1..7]: see _keys.lua.
-- ARGV[8] id
--
-- Returns 1 deleted, 0 no dead job has this id.
-- @include keys
local id = ARGV[FIRST_ARG]
if redis.call('ZREM', DEAD, id) == 0 then
  return 0
end
redis.call('HDEL', JOBS, id)
redis.call('HDEL', ATTEMPTS, id)
redis.call('HDEL', ERRORS, id)
return 1
