"""Real NASA iPSC and KTH windows with small Workload Estimate Models, and a lua5.1 stand-in for slurmctld."""
import shutil
import subprocess
import warnings

import pytest

from adapters.scheduler import primo_models
from adapters.scheduler.slurm import replay

LUA = shutil.which("lua5.1")

# slurmctld's side of job_submit/lua, enough for the plugin: the slurm table and one call per job.
FAKE_SLURMCTLD = """\
slurm = {SUCCESS = 0, ERROR = -1, NICE_OFFSET = 2147483648}
function slurm.log_info(fmt, ...) io.write("INFO ", string.format(fmt, ...), "\\n") end
function slurm.log_error(fmt, ...) io.write("ERROR ", string.format(fmt, ...), "\\n") end
-- a {clock = unix seconds, hour = h, wday = 1..7 (Sunday = 1)} event sets the wall clock the plugin reads
local wall, real_time, real_date = nil, os.time, os.date
os.time = function(t) if t == nil and wall then return wall.clock end return real_time(t) end
os.date = function(fmt, t)
  if fmt == "*t" and t == nil and wall then return {hour = wall.hour, wday = wall.wday} end
  return real_date(fmt, t)
end
local dir = arg[1]
dofile(dir .. "/job_submit.lua")
for _, event in ipairs(dofile(dir .. "/events.lua")) do
  if event.clock then
    wall = event
  elseif event.complete then
    local f = io.open(dir .. "/" .. event.file, "a"); f:write(event.complete, "\\n"); f:close()
  else
    local rc = slurm_job_submit(event, {}, 0)
    io.write("RESULT ", tostring(rc), " ", tostring(event.nice), "\\n")
  end
end
"""


def run_fake_slurmctld(directory) -> list[str]:
    """Run the plugin in ``directory`` over ``events.lua`` with lua5.1; the printed lines."""
    (directory / "fake_slurmctld.lua").write_text(FAKE_SLURMCTLD)
    done = subprocess.run([LUA, str(directory / "fake_slurmctld.lua"), str(directory)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


SETTINGS = replay.ReplaySettings(n_jobs=120, replay_seconds=15.0, duration_trials=2, max_train_jobs=3000,
                                 budget=primo_models.Budget(n_trials=2, max_rounds=60, outer_bags=1))
"""Tiny budgets: the tests check what the plugin computes, not how good the model is."""


def _prepare(data_dir, log):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return replay.prepare(replay.load_log(data_dir, log), log, SETTINGS), SETTINGS


@pytest.fixture(scope="session")
def nasa_window(data_dir):
    """The replay's NASA window (120 jobs; application ids as names, no requests) with a quickly trained model."""
    return _prepare(data_dir, "nasa")


@pytest.fixture(scope="session")
def kth_window(data_dir):
    """The replay's KTH window (120 jobs; requested run times, no job names, users the model never saw)."""
    return _prepare(data_dir, "kth")
