-- Shared helper: the loader expands it where a script includes "wake".
-- Publishes "<partition>:<dueMs>" on the queue's wake channel when `id` has become the earliest
-- scheduled job of its partition: only then can a sleeping worker be sleeping too long. Jobs appended
-- behind the head publish nothing, so a steady stream costs no extra messages.
local function wake_if_head(scheduled_key, id, due_ms, channel, partition)
  local head = redis.call('ZRANGE', scheduled_key, 0, 0)
  if head[1] == id then
    redis.call('PUBLISH', channel, partition .. ':' .. string.format('%d', due_ms))
  end
end
