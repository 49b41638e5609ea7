-- job_submit.lua: Helios' QSSF priority from a Primo Workload Estimate Model, for Slurm's job_submit/lua.
--
-- Written by `primo casestudy scheduler --slurm-setup DIR` (adapters/scheduler/slurm/plugin.py) next to
-- two generated files: primo_workload_model.lua (the model, `primo export --format lua`) and
-- primo_context.lua (the model's features, how it reads each id, vocabularies of ordinal ids, the input it
-- corrects, lambda, the clip of the log1p estimate, the rolling history known when the plugin was written,
-- the time scale).
--
-- For every submission: priority = gpus * (lambda * P_R + (1 - lambda) * P_M), in GPU-seconds, where P_M
-- is the model's duration estimate and P_R the rolling estimate of the user's earlier jobs (Helios SC'21,
-- Algorithm 1); the job's nice becomes floor(nice_scale * log1p(priority)), so a shorter expected GPU time
-- runs first (priority/multifactor: priority = base - nice). Through Lua, nice carries Slurm's 2^31 offset
-- (slurm.NICE_OFFSET + nice); `squeue -o %y` shows the nice without it. The rolling history learns only from jobs
-- Slurm recorded as COMPLETED in its jobcomp/filetxt file, read incrementally at each submission, with their
-- requested run times (TimeLimit=, or in a replay the trace's request in job_runtimes.txt).
-- Nothing here can block a submission: any error is logged and the job keeps the default priority.
-- The comment (t=, vc=, cpus=, req=) is read only in a replay, where the replayer writes it: on a live
-- cluster it is whatever the submitting user typed, so the clock, queue and CPUs come from Slurm.

local HERE = (debug.getinfo(1, "S").source:match("^@(.*/)[^/]*$")) or "./"
local NAN = 0 / 0
local NO_VAL = 4294967294  -- Slurm's unset time limit (minutes); INFINITE (unlimited) is NO_VAL + 1
local state, load_error = nil, nil

local function log1p(x)  -- accurate for small x (Lua 5.1 has no log1p)
  local u = 1 + x
  if u == 1 then return x end
  return math.log(u) * x / (u - 1)
end

local function expm1(y)
  local u = math.exp(y)
  if u == 1 then return y end
  if u - 1 == -1 then return -1 end
  return (u - 1) * y / math.log(u)
end

-- A requested run time in seconds, or nil for none (as workload.RollingEstimator reads req_time).
local function positive(x)
  if x ~= nil and x == x and x > 0 and x < math.huge then return x end
  return nil
end

local function path_of(name)
  if name:sub(1, 1) == "/" then return name end
  return HERE .. name
end

-- ---------------------------------------------------------------- rolling estimate (Helios Alg. 1)
local function counter(tbl, key)
  local m = tbl[key]
  if m == nil then m = {total = 0, count = 0}; tbl[key] = m end
  return m
end

local function add(m, value) m.total = m.total + value; m.count = m.count + 1 end

local function mean(m)
  if m == nil or m.count == 0 then return NAN end
  return m.total / m.count
end

local function new_rolling(settings)
  return {settings = settings, all = {total = 0, count = 0}, by_gpu = {}, by_user = {}, by_user_gpu = {},
          log_by_user = {}, last_by_user = {}, request_by_user = {}, history = {}}
end

-- request: the job's requested run time in seconds, or nil
local function rolling_update(r, user, name, gpus, duration, request)
  add(r.all, duration)
  add(counter(r.by_gpu, gpus), duration)
  add(counter(r.by_user, user), duration)
  add(counter(r.by_user_gpu, user .. "\0" .. gpus), duration)
  add(counter(r.log_by_user, user), log1p(duration))  -- the user's typical job, not the mean
  r.last_by_user[user] = duration
  if request ~= nil then add(counter(r.request_by_user, user), log1p(duration) - log1p(request)) end
  if name ~= "" then
    local names = r.history[user]
    if names == nil then names = {}; r.history[user] = names end
    local h = names[name]
    if h == nil then h = {}; names[name] = h end
    h[#h + 1] = duration
    if #h > r.settings.max_history then table.remove(h, 1) end
  end
end

-- The rolling features of adapters.scheduler.workload.RollingEstimator (exact-name matching); request: the
-- job's requested run time in seconds, or nil.
local function rolling_features(r, user, name, gpus, request)
  local by_user = r.by_user[user]
  local matched = {}
  local estimate, case
  if by_user == nil then
    case = 0  -- new user
    if r.by_gpu[gpus] ~= nil then estimate = mean(r.by_gpu[gpus]) else estimate = mean(r.all) end
  else
    local names = r.history[user]
    local h = (name ~= "" and names ~= nil) and names[name] or nil
    if h ~= nil then for i = #h, 1, -1 do matched[#matched + 1] = h[i] end end  -- newest first
    if #matched == 0 then
      case = 1  -- known user, new name
      local ug = r.by_user_gpu[user .. "\0" .. gpus]
      if ug ~= nil then estimate = mean(ug) else estimate = mean(by_user) end
    else
      case = 2  -- similar (here: identical) name
      local weight, total, weights = 1, 0, 0
      for _, d in ipairs(matched) do
        total = total + weight * d; weights = weights + weight; weight = weight * r.settings.decay
      end
      estimate = total / weights
    end
  end
  if estimate ~= estimate then estimate = r.settings.default_duration end
  local ratio = r.request_by_user[user]
  return {
    rolling_estimate = estimate, rolling_case = case,
    user_finished = by_user and by_user.count or 0,
    user_mean_duration = mean(by_user),
    user_gpu_mean_duration = mean(r.by_user_gpu[user .. "\0" .. gpus]),
    name_finished = #matched,
    name_last_duration = matched[1] or NAN,
    gpu_mean_duration = mean(r.by_gpu[gpus]),
    user_log_mean_duration = mean(r.log_by_user[user]),
    user_last_duration = r.last_by_user[user] or NAN,
    user_request_ratio = mean(ratio),
    request_estimate = (ratio ~= nil and request ~= nil) and log1p(request) + mean(ratio) or NAN,
  }
end

-- ---------------------------------------------------------------- completion records
local function new_lines(path, offset)
  local f = io.open(path, "r")
  if f == nil then return {}, offset end
  f:seek("set", offset)
  local data = f:read("*a")
  f:close()
  local last = data:match(".*()\n")  -- only whole lines: a record may be half written
  if last == nil then return {}, offset end
  local lines = {}
  for line in data:sub(1, last):gmatch("([^\n]*)\n") do lines[#lines + 1] = line end
  return lines, offset + last
end

local function parse_time(text)
  local y, mo, d, h, mi, s = (text or ""):match("^(%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)$")
  if y == nil then return nil end
  return os.time({year = tonumber(y), month = tonumber(mo), day = tonumber(d), hour = tonumber(h),
                  min = tonumber(mi), sec = tonumber(s)})
end

-- Live cluster: a job submitted without --time runs under its partition's default limit, which its completion
-- record shows as TimeLimit= like a request. The plugin notes (owner, name, submit second) of such jobs and
-- reads the record of a noted job (SubmitTime= within a second) as one without a request. The record has no
-- other trace of it, and job_submit runs before the job has an id.
local function unrequested_key(user, name, t)
  return user .. "\0" .. name .. "\0" .. string.format("%d", t)
end

local function note_unrequested(user, name, t)
  local key = unrequested_key(user, name, t)
  state.unrequested[key] = (state.unrequested[key] or 0) + 1
end

local function claim_unrequested(user, name, t)  -- true (and forgotten) when the job was noted
  if t == nil then return false end
  for _, dt in ipairs({0, -1, 1}) do
    local key = unrequested_key(user, name, t + dt)
    local n = state.unrequested[key]
    if n ~= nil then
      state.unrequested[key] = (n > 1) and (n - 1) or nil
      return true
    end
  end
  return false
end

-- (user, name) of a job: in a replay every job is submitted by one account, so the trace's user
-- travels in the job name as "user:name"; on a real cluster they are the job's owner and name.
local function identity(job_name, owner)
  local ctx = state.ctx
  if ctx.replay then
    local user, name = (job_name or ""):match("^([^:]*):(.*)$")
    if user == nil then return owner or "", job_name or "" end
    return user, name
  end
  return owner or "", job_name or ""
end

-- Learn from the jobs Slurm finished since the last call (jobcomp/filetxt; COMPLETED jobs only).
local function learn_completed()
  local ctx = state.ctx
  if ctx.runtime_file then
    -- replay: each job's own sub-second run time (Slurm records whole seconds), the GPUs it asked for
    -- (when it ran on whole nodes, --exclusive, ProcCnt counts every CPU) and the trace's request ("-": none)
    local lines
    lines, state.runtime_offset = new_lines(path_of(ctx.runtime_file), state.runtime_offset)
    for _, line in ipairs(lines) do
      local id, t0, t1, gpus, request = line:match("^(%d+) ([%d%.]+) ([%d%.]+) ?(%d*) ?(%S*)")
      if id ~= nil then
        state.runtimes[id] = {tonumber(t1) - tonumber(t0), tonumber(gpus), positive(tonumber(request))}
      end
    end
  end
  local lines
  lines, state.jobcomp_offset = new_lines(path_of(ctx.jobcomp_file), state.jobcomp_offset)
  for _, line in ipairs(lines) do
    local owner = line:match(" UserId=([^%(]*)%(")
    local name = line:match(" Name=(.-) JobState=")
    -- every record forgets its job's note, whatever its state
    local unrequested = not ctx.replay and owner ~= nil and name ~= nil
      and claim_unrequested(owner, name, parse_time(line:match(" SubmitTime=(%S+) ")))
    if line:match(" JobState=COMPLETED ") then
      local id = line:match("^JobId=(%d+) ")
      local procs = tonumber(line:match(" ProcCnt=(%d+) "))
      local own = state.runtimes[id] or {}
      local runtime = own[1]
      if runtime == nil then
        local t0, t1 = parse_time(line:match(" StartTime=(%S+) ")), parse_time(line:match(" EndTime=(%S+) "))
        if t0 ~= nil and t1 ~= nil then runtime = t1 - t0 end
      end
      state.runtimes[id] = nil
      if id ~= nil and procs ~= nil and runtime ~= nil then
        local user, job_name = identity(name, owner)
        local gpus = own[2] or math.ceil(procs / ctx.cpus_per_gpu)
        local request = own[3]  -- replay: the trace's; a live cluster: TimeLimit= minutes (or UNLIMITED)
        if not ctx.replay and not unrequested then
          request = positive((tonumber(line:match(" TimeLimit=(%S+) ")) or 0) * 60)
        end
        rolling_update(state.rolling, user, job_name, gpus, runtime * ctx.time_scale, request)
      end
    end
  end
end

-- ---------------------------------------------------------------- loading
local function load()
  local model = dofile(path_of("primo_workload_model.lua"))
  local ctx = dofile(path_of("primo_context.lua"))
  if type(model) ~= "table" or type(model.predict) ~= "function" then
    error("primo_workload_model.lua does not return a model with predict()")
  end
  if type(ctx) ~= "table" or type(ctx.features) ~= "table" then
    error("primo_context.lua does not return the plugin context")
  end
  local rolling = new_rolling(ctx.rolling)
  for _, job in ipairs(ctx.seed) do rolling_update(rolling, job[1], job[2], job[3], job[4], positive(job[5])) end
  state = {model = model, ctx = ctx, rolling = rolling, recent = {}, runtimes = {}, unrequested = {},
           jobcomp_offset = 0, runtime_offset = 0}
end

do
  local ok, err = pcall(load)
  if not ok then
    load_error = tostring(err)
    slurm.log_error("primo: cannot load the QSSF model (%s); every job keeps the default priority", load_error)
  end
end

-- ---------------------------------------------------------------- priority
local function options(comment)
  local out = {}
  for key, value in (comment or ""):gmatch("(%w+)=([^;]*)") do out[key] = value end
  return out
end

local function count(value)  -- Slurm marks unset counts with NO_VAL/NO_VAL16
  if value == nil or value >= 65534 then return 1 end
  return value
end

-- The job's requested run time in seconds, or nil: in a replay the trace's (comment req=, in trace seconds),
-- on a live cluster its --time (minutes; NO_VAL: none given, INFINITE: unlimited).
local function requested(ctx, job_desc, opts)
  if ctx.replay then return positive(tonumber(opts.req)) end
  local limit = job_desc.time_limit
  if limit == nil or limit >= NO_VAL then return nil end
  return positive(limit * 60)
end

local function local_clock(ctx, t)
  if t == nil then  -- a live cluster: the wall clock
    local now = os.date("*t")
    return now.hour, (now.wday + 5) % 7
  end
  local offset = ctx.utc_offsets[1][2]
  for _, entry in ipairs(ctx.utc_offsets) do if entry[1] <= t then offset = entry[2] end end
  local seconds = ctx.epoch_unix + t + offset
  return math.floor(seconds / 3600) % 24, (math.floor(seconds / 86400) + 3) % 7  -- 1970-01-01 was a Thursday
end

local function qssf(job_desc)
  local ctx = state.ctx
  learn_completed()
  local opts = ctx.replay and options(job_desc.comment) or {}
  local user, name = identity(job_desc.name, job_desc.user_name or tostring(job_desc.user_id))
  local cpus = count(job_desc.num_tasks) * count(job_desc.cpus_per_task)
  local gpus = math.ceil(cpus / ctx.cpus_per_gpu)
  local t = tonumber(opts.t)  -- replay: the trace's submit time stands in for the wall clock
  local now = t or os.time()
  local window = state.recent[user]
  if window == nil then window = {}; state.recent[user] = window end
  while #window > 0 and window[1] < now - ctx.recent_window do table.remove(window, 1) end
  local recent = #window
  window[#window + 1] = now
  local request = requested(ctx, job_desc, opts)
  if request == nil and not ctx.replay then note_unrequested(user, name, now) end
  local values = rolling_features(state.rolling, user, name, gpus, request)
  local p_r = values.rolling_estimate
  for key in pairs(ctx.log_features) do values[key] = log1p(values[key]) end
  -- ids as the model reads them (embedded.id_inputs): a text category as the string (its export maps it,
  -- unseen ones too), a numeric category as the number (not a number: unseen), else the ordinal code of the
  -- training vocabulary (-1: unseen)
  local ids = {user = user, name = name, vc = opts.vc or job_desc.partition or "default"}
  for key, id in pairs(ids) do
    local kind = ctx.id_inputs[key]
    if kind == "text" then values[key] = id
    elseif kind == "number" then values[key] = tonumber(id) or math.huge
    else values[key] = ctx.codes[key][id] or -1 end
  end
  values.req_time = request or NAN
  values.gpu_num = gpus
  values.cpu_num = tonumber(opts.cpus) or cpus
  values.hour, values.day_of_week = local_clock(ctx, t)
  values.user_recent_submits = recent
  local row = {}
  for i, feature in ipairs(ctx.features) do
    local v = values[feature]
    if v == nil then error("no value for model feature " .. feature) end
    row[i] = v
  end
  local log_pred = state.model.predict(row)
  if ctx.offset ~= nil then log_pred = log_pred + row[ctx.offset] end  -- a model of the correction to that input
  log_pred = math.min(math.max(log_pred, ctx.log_range[1]), ctx.log_range[2])
  local p_m = expm1(log_pred)
  local priority = gpus * (ctx.lam * p_r + (1 - ctx.lam) * p_m)
  local nice = math.min(math.floor(ctx.nice_scale * log1p(math.max(priority, 0))), ctx.max_nice)
  return nice, priority, p_r, p_m, user, name, gpus
end

function slurm_job_submit(job_desc, part_list, submit_uid)
  if state == nil then
    slurm.log_error("primo: model not loaded (%s); job %s keeps the default priority", tostring(load_error),
                    tostring(job_desc.name))
    return slurm.SUCCESS
  end
  local started = os.clock()
  local ok, nice, priority, p_r, p_m, user, name, gpus = pcall(qssf, job_desc)
  if not ok then
    slurm.log_error("primo: %s; job %s keeps the default priority", tostring(nice), tostring(job_desc.name))
    return slurm.SUCCESS
  end
  job_desc.nice = slurm.NICE_OFFSET + nice
  slurm.log_info("primo: user=%s name=%s gpus=%d P_R=%.1f P_M=%.1f priority=%.1f nice=%d cpu_ms=%.3f",
                 user, name, gpus, p_r, p_m, priority, nice, (os.clock() - started) * 1000)
  return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
  return slurm.SUCCESS
end

return slurm.SUCCESS
