-- schedule-remove: deletes a schedule and its pending occurrence. An occurrence a worker holds is
-- no longer pending and runs to its end; no claim can create the next one after this step.
--
-- KEYS and ARGV[1..7]: see _keys.lua. KEYS[12] the partition's schedules hash.
-- ARGV[8] name
--
-- Returns 1 when there was such a schedule, else 0.
-- @include keys
-- @include schedules
local SCHEDULES = KEYS[12]
local name = ARGV[FIRST_ARG]
local text = redis.call('HGET', SCHEDULES, 's:' .. name)
local existed = redis.call('HDEL', SCHEDULES, 'd:' .. name, 's:' .. name) > 0
local s = text and read_state(text)
if s then
  replace_pending(SCHEDULES, name, s[2], '', '', '')
end
return existed and 1 or 0
