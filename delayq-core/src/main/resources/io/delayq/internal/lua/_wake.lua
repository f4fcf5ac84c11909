-- Shared helper: the loader expands it where a script includes "wake".
-- Publishes "<partition>:<dueMs>" on the queue's wake channel when `id` has become the earliest
-- scheduled job of its partition: only then can a sleeping worker be sleeping too long. Jobs appended
-- behind the head publish nothing, so a steady stream costs no extra messages.
local function wake_if_head(id, due_ms)
  local head = redis.call('ZRANGE', SCHEDULED, 0, 0)
  if head[1] == id then
    redis.call('PUBLISH', WAKE_CHANNEL, PARTITION .. ':' .. string.format('%d', due_ms))
  end
end

-- Publishes when one of the jobs in `placed` (a set of ids this call scheduled) is now the earliest
-- of its partition. Scripts that place many jobs call it once at the end: a steady stream of jobs
-- behind the head publishes nothing.
local function wake_if_placed_at_head(placed)
  local head = redis.call('ZRANGE', SCHEDULED, 0, 0, 'WITHSCORES')
  if head[1] and placed[head[1]] then
    redis.call('PUBLISH', WAKE_CHANNEL, PARTITION .. ':' .. head[2])
  end
end
