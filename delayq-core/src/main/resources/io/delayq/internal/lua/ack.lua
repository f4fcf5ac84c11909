-- ack: finishes jobs whose lease is still held by the delivery that acks them. Takes many
-- (id, claim number) pairs so that a busy worker acks a whole batch in one call. The ids of finished jobs
-- that were scheduled with KEEP are remembered for the idempotency window.
--
-- KEYS and ARGV[1..7]: see _keys.lua.
-- ARGV[8 + 2i] id   ARGV[9 + 2i] claim number of its delivery (its fencing token / 1000, see _lease.lua)
--
-- Returns one integer per pair: 1 done, 0 refused (the lease ended, or belongs to another delivery).
-- @include keys
-- @include clock
-- @include lease
-- @include done
local now_ms = math.floor(redis_now_us() / 1000)
local ids, claims = {}, {}
for i = FIRST_ARG, #ARGV, 2 do
  ids[#ids + 1] = ARGV[i]
  claims[#claims + 1] = ARGV[i + 1]
end
-- Whole-batch reads and writes (ZMSCORE needs Redis 6.2): a few calls however many jobs are acked.
local leases = redis.call('ZMSCORE', ACTIVE, unpack(ids))
local holders = redis.call('HMGET', LEASES, unpack(ids))
local result, done, nd, kept, nk = {}, {}, 0, {}, 0
for i, id in ipairs(ids) do
  local ok = 0
  local lease = leases[i]
  if lease and lease_deadline(lease) > now_ms and is_holder(holders[i], claims[i]) then
    nd = nd + 1
    done[nd] = id
    if lease_keeps(holders[i]) then
      nk = nk + 1
      kept[nk] = id
    end
    ok = 1
  end
  result[i] = ok
end
if nd > 0 then
  redis.call('ZREM', ACTIVE, unpack(done, 1, nd))
  redis.call('HDEL', LEASES, unpack(done, 1, nd))
  redis.call('HDEL', JOBS, unpack(done, 1, nd))
  -- Retried jobs only have entries here; skip the calls when the partition has none.
  if redis.call('EXISTS', ATTEMPTS) == 1 then
    redis.call('HDEL', ATTEMPTS, unpack(done, 1, nd))
  end
  if redis.call('EXISTS', ERRORS) == 1 then
    redis.call('HDEL', ERRORS, unpack(done, 1, nd))
  end
  remember_done(kept, nk, now_ms)
end
return result
