-- release: a holder hands back a job it will not run (it is closing, it never started it, or it
-- could not pass it on). The job is due again after ARGV[8] ms (0: at once) and the attempt is
-- not counted, since the job did not fail. The next delivery gets a new token, so this holder's
-- calls are refused after.
--
-- KEYS and ARGV[1..7]: see _keys.lua.
-- ARGV[8] delay ms before the jobs are due again, the same for every pair
-- ARGV[9 + 2i] id  ARGV[10 + 2i] claim number of the delivery (its fencing token / 1000)
--
-- Returns one integer per pair: 1 released, 0 when that delivery no longer held the job (its
-- lease ended, or another delivery holds it).
-- @include keys
-- @include clock
-- @include wake
-- @include lease
local now_ms = math.floor(redis_now_us() / 1000)
local due_ms = now_ms + tonumber(ARGV[FIRST_ARG])
local result = {}
for i = FIRST_ARG + 1, #ARGV, 2 do
  local id = ARGV[i]
  local ok = 0
  if held_lease(id, ARGV[i + 1], now_ms) then
    redis.call('ZREM', ACTIVE, id)
    redis.call('HDEL', LEASES, id)
    redis.call('ZADD', SCHEDULED, due_ms, id)
    wake_if_head(id, due_ms)
    ok = 1
  end
  result[#result + 1] = ok
end
return result
