-- delete-dead: removes a dead job for good.
--
-- KEYS and ARGV[1..7]: see _keys.lua.
-- ARGV[8] id
-- ARGV[9] optional: the latest burial time in epoch ms the job may have ('' or absent: any); a job
--         buried later (requeued and dead again since the caller looked) is left as it is
--
-- Returns 1 deleted, 0 no dead job has this id, -1 it died after ARGV[9].
-- @include keys
local id = ARGV[FIRST_ARG]
local died_by = ARGV[FIRST_ARG + 1]
if died_by and died_by ~= '' then
  local died = redis.call('ZSCORE', DEAD, id)
  if not died then
    return 0
  end
  if tonumber(died) > tonumber(died_by) then
    return -1
  end
end
if redis.call('ZREM', DEAD, id) == 0 then
  return 0
end
redis.call('HDEL', JOBS, id)
redis.call('HDEL', ATTEMPTS, id)
redis.call('HDEL', ERRORS, id)
return 1
