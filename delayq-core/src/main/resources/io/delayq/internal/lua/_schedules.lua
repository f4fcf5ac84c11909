-- Shared helper: the loader expands it where a script includes "schedules".
-- Recurring schedules (see Schedules.java and docs/SCHEDULES.md). A schedule lives on one
-- partition, in its schedules hash SCHEDULES: field 'd:<name>' the definition (Java's encoding,
-- never read here), 's:<name>' where its sequence stands, 'o:<job id>' the name of the schedule
-- whose pending occurrence that job is. Each occurrence is an ordinary job of the partition.
--
-- The state is one '|'-separated text (ids of occurrences and names cannot hold '|'):
--   1 ver       times the definition was stored
--   2 pend      id of the pending occurrence's job ('' while paused, ended, or before Java names it)
--   3 pendDue   its due time, ms
--   4 nextId    id of the occurrence after it, computed by Java ahead of time ('' until then)
--   5 nextDue   its due time, ms
--   6 prev      id of the last occurrence handed to a worker   7 prevDue its due time, ms
--   8 miss      missed occurrences run in the current run of misses
--   9 grace ms  10 misfire policy: 's' skip, 'o' run once, 'n' run up to maxRuns
--   11 maxRuns  12 overlap: 'a' allow, 's' skip while the one before is held or retried
--   13 fired    14 skipped (counts since the schedule was first stored)
--   15 anchor   an interval schedule's first due time, ms (its occurrences are anchor + k * every)
--   16 paused   '1' or '0'
local STATE_FIELDS = 16

local function read_state(text)
  local s = {}
  for field in string.gmatch(text .. '|', '([^|]*)|') do
    s[#s + 1] = field
  end
  if #s ~= STATE_FIELDS then
    return nil
  end
  return s
end

-- A finite number, or nil: text another program wrote where a number belongs must not stop a claim
-- halfway (Redis does not undo a script that fails after a write).
local function finite(text)
  local n = tonumber(text)
  if n and n == n and n > -math.huge and n < math.huge then
    return n
  end
  return nil
end

-- Whether every field the scripts compute with or write into a sorted set holds what delayq writes.
local function usable_state(s)
  return finite(s[1]) and (s[2] == '' or finite(s[3])) and (s[4] == '' or finite(s[5]))
    and finite(s[8]) and finite(s[9]) and finite(s[11]) and finite(s[13]) and finite(s[14])
    and (s[3] == '' or s[2] ~= '') and (s[5] == '' or s[4] ~= '')
end

local function write_state(sched_key, name, s)
  redis.call('HSET', sched_key, 's:' .. name, table.concat(s, '|'))
end

-- Removes the pending occurrence `old` of schedule `name` (when it is still waiting: one a worker
-- holds runs on) and, unless `pend` is '', makes `pend` (due `pend_due`, job record `record`) the
-- pending one. Returns the set of ids placed in the schedule, for wake_if_placed_at_head.
local function replace_pending(sched_key, name, old, pend, pend_due, record)
  if old ~= '' and old ~= pend then
    if redis.call('ZREM', SCHEDULED, old) == 1 then
      redis.call('HDEL', JOBS, old)
    end
    redis.call('HDEL', sched_key, 'o:' .. old)
  end
  local placed = {}
  if pend ~= '' then
    if old == pend then
      redis.call('HSET', JOBS, pend, record)
      redis.call('ZADD', SCHEDULED, pend_due, pend)
      placed[pend] = true
    elseif redis.call('HSETNX', JOBS, pend, record) == 1 then
      redis.call('ZADD', SCHEDULED, pend_due, pend)
      placed[pend] = true
    end
    redis.call('HSET', sched_key, 'o:' .. pend, name)
  end
  return placed
end

-- The record of the occurrence after `record`: the same header and payload, created now. Its
-- policy stays 'r' and its attempts start afresh: it is a new job.
local function next_record(record, now_ms)
  local out, n = string.gsub(record, '^([23]|[kr]|%d+|)%d+', '%1' .. string.format('%d', now_ms), 1)
  if n == 1 then
    return out
  end
  return record
end

-- Decides, for jobs a claim is about to lease, which are occurrences of a schedule and whether each
-- runs; reads only. head is what the claim read from the schedule: id, due time (ms), id, ... Returns nil when none is, else a plan for apply_schedule_claims: skip[i] is
-- true for an occurrence that is not to run (missed, overlapping, or no longer wanted).
local function plan_schedule_claims(sched_key, ids, head, records, now_ms)
  if redis.call('EXISTS', sched_key) == 0 then
    return nil
  end
  local fields = {}
  for i, id in ipairs(ids) do
    fields[i] = 'o:' .. id
  end
  local owners = redis.call('HMGET', sched_key, unpack(fields))
  local plan = nil
  for i, name in ipairs(owners) do
    if name and records[i] then
      plan = plan or {skip = {}, steps = {}}
      local text = redis.call('HGET', sched_key, 's:' .. name)
      local s = text and read_state(text)
      if s and not usable_state(s) then
        -- why: a state delayq did not write is left alone, and its occurrence runs as an ordinary
        -- job: nothing is lost, and the schedule waits for someone to store it again
        plan.steps[#plan.steps + 1] = {i = i, name = name, unusable = true}
      elseif not s or s[2] ~= ids[i] or s[16] == '1' then
        -- why: an occurrence its schedule no longer points at (removed, replaced, paused) must not
        -- run; the step that replaced it should have removed it, so this is a leftover
        plan.skip[i] = true
        plan.steps[#plan.steps + 1] = {i = i, name = name, stale = true}
      else
        -- why: the job's own due time, which is the occurrence's unless someone rescheduled that job
        local due = tonumber(head[2 * i]) or tonumber(s[3]) or now_ms
        local late = now_ms - due > (tonumber(s[9]) or 0)
          or (s[5] ~= '' and tonumber(s[5]) <= now_ms)
        local run, missed = true, tonumber(s[8]) or 0
        if late then
          if s[10] == 's' or missed >= (tonumber(s[11]) or 0) then
            run = false
          end
          missed = missed + 1
        else
          missed = 0
        end
        -- why: a dead predecessor is not at work; it must not hold the schedule back forever
        if run and s[12] == 's' and s[6] ~= '' and redis.call('HEXISTS', JOBS, s[6]) == 1
            and not redis.call('ZSCORE', DEAD, s[6]) then
          run = false
        end
        s[8] = tostring(missed)
        plan.skip[i] = not run
        plan.steps[#plan.steps + 1] = {i = i, name = name, s = s, run = run}
      end
    end
  end
  return plan
end

-- The writes of a plan, done after the claim removed the due jobs from the schedule (an occurrence
-- created here may be due already and must not be removed with them). Each schedule's next
-- occurrence is created here, in the step that hands out the one before it. Returns the names of
-- the schedules Java must tend: compute the occurrence after the new pending one, or re-sync a
-- sequence that fell behind or ran out of computed occurrences; and the earliest due time of the
-- occurrences created (nil when none), for the claimer's next wake-up.
local function apply_schedule_claims(sched_key, plan, ids, records, now_ms)
  local tend, earliest = {}, nil
  for _, step in ipairs(plan.steps) do
    local id = ids[step.i]
    redis.call('HDEL', sched_key, 'o:' .. id)
    if step.unusable then
      -- handed out as it is
    elseif step.stale then
      redis.call('HDEL', JOBS, id)
    else
      local s = step.s
      if step.run then
        s[6], s[7] = id, s[3]
        s[13] = tostring((tonumber(s[13]) or 0) + 1)
      else
        s[14] = tostring((tonumber(s[14]) or 0) + 1)
        redis.call('HDEL', JOBS, id)
      end
      if s[4] ~= '' then
        local record = next_record(records[step.i], now_ms)
        if redis.call('HSETNX', JOBS, s[4], record) == 1 then
          redis.call('ZADD', SCHEDULED, s[5], s[4])
        end
        redis.call('HSET', sched_key, 'o:' .. s[4], step.name)
        local due = tonumber(s[5])
        if not earliest or due < earliest then
          earliest = due
        end
        s[2], s[3] = s[4], s[5]
      else
        s[2], s[3] = '', ''
      end
      s[4], s[5] = '', ''
      write_state(sched_key, step.name, s)
      tend[#tend + 1] = step.name
    end
  end
  return tend, earliest
end
