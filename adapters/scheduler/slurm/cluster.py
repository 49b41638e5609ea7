"""Start a private single-host Slurm (munge + slurmctld + one slurmd per emulated node) on loopback.

Every file lives in one temporary directory; every daemon listens on 127.0.0.1 only (checked from
``/proc/net/tcp`` after start) on ports chosen free at start; nothing touches ``/etc/slurm`` or
``/etc/munge``. :meth:`SlurmCluster.stop` cancels the jobs, stops the daemons it started by pid
(SIGTERM, then SIGKILL), then ends any job process left in its directory (``slurmstepd`` detaches
from ``slurmd``, so it is found by the files it holds open there, again by pid). Use it as a context
manager so that this also happens on errors and Ctrl-C.

GPUs are emulated by CPUs (``SlurmdParameters=config_overrides`` lets slurmd declare more than the
machine has): node ``nK`` has ``gpus_per_node`` CPUs, one per GPU, and a job asking for ``g`` GPUs asks
for ``g`` CPUs. The queue is ordered by ``priority/multifactor`` with every weight zero except the
partition's, so a job's priority is ``PRIORITY_BASE - nice``: the ``nice`` a plugin (or ``sbatch
--nice``) sets decides the order, and equal priorities run in submission order (FIFO).
``sched/builtin`` starts jobs strictly in priority order and never backfills (Helios' QSSF breaks at
the first job that does not fit too); ``batch_sched_delay=0`` and ``sched_interval=1`` make the
scheduler pass as often as Slurm allows (about once a second).

Example
-------
>>> with SlurmCluster(nodes=2, gpus_per_node=8) as cluster:  # doctest: +SKIP
...     job_id = cluster.submit(["-J", "demo", "-n", "1", "-c", "2", "--wrap", "sleep 1"])
"""
from __future__ import annotations

import logging
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

logger = logging.getLogger(__name__)

REQUIRED_TOOLS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "sinfo")
PRIORITY_BASE = 100_000_000
"""Priority of a job with nice 0 (the partition weight); nice values must stay below it."""


class SlurmUnavailable(RuntimeError):
    """Slurm or munge is not installed (or a daemon did not come up)."""


def missing_tools() -> list[str]:
    """The Slurm and munge programs that are not on PATH (empty when the replay can run).

    Example
    -------
    >>> isinstance(missing_tools(), list)
    True
    """
    return [tool for tool in REQUIRED_TOOLS if shutil.which(tool) is None]


def _free_ports(n: int) -> list[int]:
    sockets = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def slurm_conf(directory: Path, *, nodes: int, gpus_per_node: int, ctld_port: int, node_ports: list[int],
               job_submit: bool, user: str) -> str:
    """The ``slurm.conf`` of a private cluster in ``directory`` (see the module docstring).

    Example
    -------
    >>> "NodeName=n2" in slurm_conf(Path("/tmp/x"), nodes=2, gpus_per_node=8, ctld_port=6817,
    ...                             node_ports=[6818, 6819], job_submit=False, user="root")
    True
    """
    d = directory
    lines = [
        "ClusterName=primo",
        "SlurmctldHost=localhost(127.0.0.1)",
        f"SlurmctldPort={ctld_port}",
        f"SlurmdPort={node_ports[0]}",
        "AuthType=auth/munge",
        "CredType=cred/munge",
        f"AuthInfo=socket={d / 'munge' / 'munge.socket'}",
        # bind to the configured address (127.0.0.1), not to every interface
        "CommunicationParameters=NoInAddrAny,NoCtldInAddrAny",
        f"SlurmUser={user}",
        f"SlurmdUser={user}",
        f"StateSaveLocation={d / 'state'}",
        f"SlurmdSpoolDir={d / 'spool' / '%n'}",
        f"SlurmctldPidFile={d / 'slurmctld.pid'}",
        f"SlurmdPidFile={d / 'slurmd-%n.pid'}",
        f"SlurmctldLogFile={d / 'log' / 'slurmctld.log'}",
        f"SlurmdLogFile={d / 'log' / 'slurmd-%n.log'}",
        "SlurmctldDebug=debug2",  # debug2 logs each submission RPC's microseconds (the plugin's cost)
        "SlurmdDebug=info",
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none",
        "JobCompType=jobcomp/filetxt",
        f"JobCompLoc={d / 'jobcomp.txt'}",
        "MpiDefault=none",
        "ReturnToService=2",
        "SchedulerType=sched/builtin",
        "SchedulerParameters=batch_sched_delay=0,sched_min_interval=0,sched_interval=1",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_CPU",
        "PriorityType=priority/multifactor",
        f"PriorityWeightPartition={PRIORITY_BASE}",
        "PriorityWeightAge=0",
        "PriorityWeightFairshare=0",
        "PriorityWeightJobSize=0",
        "PriorityWeightQOS=0",
        "PriorityWeightAssoc=0",
        "SlurmdParameters=config_overrides",
        "KillWait=1",
        "MinJobAge=2",
        "InactiveLimit=0",
        "Waittime=0",
        "MaxJobCount=100000",
    ]
    if job_submit:
        lines.append("JobSubmitPlugins=lua")  # slurmctld reads job_submit.lua next to slurm.conf
    names = [f"n{i + 1}" for i in range(nodes)]
    for name, port in zip(names, node_ports):
        lines.append(f"NodeName={name} NodeHostname=localhost NodeAddr=127.0.0.1 Port={port} "
                     f"CPUs={gpus_per_node} RealMemory=1000 State=UNKNOWN")
    lines.append(f"PartitionName=gpu Nodes={','.join(names)} Default=YES MaxTime=INFINITE State=UP PriorityJobFactor=1")
    return "\n".join(lines) + "\n"


def _listening(ports: set[int]) -> list[tuple[str, int]]:
    """(address, port) of every listening TCP socket on one of ``ports`` (IPv4 and IPv6)."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            address, port_hex = fields[1].rsplit(":", 1)
            if fields[3] != "0A" or int(port_hex, 16) not in ports:  # 0A = LISTEN
                continue
            if len(address) == 8:
                text = socket.inet_ntop(socket.AF_INET, bytes.fromhex(address)[::-1])
            else:
                raw = bytes.fromhex(address)
                text = socket.inet_ntop(socket.AF_INET6, b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4)))
            found.append((text, int(port_hex, 16)))
    return found


def _processes_in(directory: Path, exclude: set[int]) -> list[int]:
    """Pids of processes whose working directory or open files lie in ``directory``."""
    root, pids = str(directory.resolve()), []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in exclude or int(entry.name) == os.getpid():
            continue
        try:
            links = [os.readlink(entry / "cwd")] + [os.readlink(fd) for fd in (entry / "fd").iterdir()]
        except OSError:  # gone, or not ours to inspect
            continue
        if any(link == root or link.startswith(root + "/") for link in links):
            pids.append(int(entry.name))
    return pids


def _end(process: subprocess.Popen, timeout: float = 10.0) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)


class SlurmCluster:
    """A private Slurm on 127.0.0.1: ``nodes`` slurmd daemons of ``gpus_per_node`` emulated GPUs each.

    Parameters
    ----------
    nodes, gpus_per_node : cluster shape (the simulator's nodes are 8 GPUs).
    job_submit_files : ``{file name: text}`` written next to ``slurm.conf`` before start; a
        ``job_submit.lua`` among them enables the ``job_submit/lua`` plugin.
    directory : where to put everything (a new temporary directory when omitted, removed by
        :meth:`stop` unless ``keep``).
    keep : keep the directory (logs, completion records) after :meth:`stop`.
    start_timeout : seconds to wait for the nodes to come up.

    Raises
    ------
    SlurmUnavailable
        When a program is missing (``apt-get install slurm-wlm munge``) or a daemon does not start.

    Example
    -------
    >>> with SlurmCluster(nodes=1, gpus_per_node=4) as c:  # doctest: +SKIP
    ...     c.submit(["-n", "1", "-c", "1", "--wrap", "true"])
    '1'
    """

    def __init__(self, *, nodes: int = 2, gpus_per_node: int = 8, job_submit_files: dict | None = None,
                 directory: str | os.PathLike | None = None, keep: bool = False, start_timeout: float = 60.0):
        if nodes < 1 or gpus_per_node < 1:
            raise ValueError(f"need at least one node and one GPU per node, got {nodes} x {gpus_per_node}")
        self.nodes, self.gpus_per_node = nodes, gpus_per_node
        self.job_submit_files = dict(job_submit_files or {})
        self._given_directory = directory
        self.keep = keep
        self.start_timeout = start_timeout
        self.directory: Path | None = None
        self._processes: list[subprocess.Popen] = []
        self._ports: set[int] = set()

    # ---- lifecycle -------------------------------------------------------------------------
    def __enter__(self) -> "SlurmCluster":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def env(self) -> dict:
        """Environment for Slurm client commands (``SLURM_CONF`` of this cluster)."""
        return {**os.environ, "SLURM_CONF": str(self.directory / "slurm.conf")}

    def start(self) -> None:
        """Write the configuration, start munged, slurmctld and the slurmd daemons, wait until idle."""
        missing = missing_tools()
        if missing:
            raise SlurmUnavailable(f"Slurm or munge is missing ({', '.join(missing)} not on PATH); "
                                   "install them with: apt-get install slurm-wlm munge")
        if self.directory is not None:
            raise RuntimeError("this SlurmCluster is already started")
        if self._given_directory is None:
            self.directory = Path(tempfile.mkdtemp(prefix="primo-slurm-"))
        else:
            self.directory = Path(self._given_directory).resolve()
            self.directory.mkdir(parents=True, exist_ok=True)
        try:
            self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self) -> None:
        d = self.directory
        d.chmod(0o755)  # munged needs every directory above its socket to be searchable
        for sub in ("munge", "state", "log", *(f"spool/n{i + 1}" for i in range(self.nodes))):
            (d / sub).mkdir(parents=True, exist_ok=True)
        (d / "munge").chmod(0o755)
        key = d / "munge" / "munge.key"
        key.write_bytes(os.urandom(128))  # a munge key is random bytes (mungekey does the same)
        key.chmod(0o600)
        ctld_port, *node_ports = _free_ports(1 + self.nodes)
        self._ports = {ctld_port, *node_ports}
        user = subprocess.run(["id", "-un"], capture_output=True, text=True, check=True).stdout.strip()
        conf = slurm_conf(d, nodes=self.nodes, gpus_per_node=self.gpus_per_node, ctld_port=ctld_port,
                          node_ports=node_ports, job_submit="job_submit.lua" in self.job_submit_files, user=user)
        (d / "slurm.conf").write_text(conf)
        for name, text in self.job_submit_files.items():
            (d / name).write_text(text)

        m = d / "munge"
        self._spawn("munged", ["munged", "-F", f"--key-file={key}", f"--socket={m / 'munge.socket'}",
                               f"--pid-file={m / 'munged.pid'}", f"--log-file={m / 'munged.log'}",
                               f"--seed-file={m / 'munged.seed'}"])
        self._wait(lambda: (m / "munge.socket").exists(), "munged to create its socket")
        self._spawn("slurmctld", ["slurmctld", "-D", "-i", "-f", str(d / "slurm.conf")])
        self._wait(lambda: self._client(["sinfo", "-h"]).returncode == 0, "slurmctld to answer")
        for i in range(self.nodes):
            self._spawn(f"slurmd-n{i + 1}", ["slurmd", "-D", "-N", f"n{i + 1}", "-f", str(d / "slurm.conf")])
        self._wait(self._nodes_idle, f"{self.nodes} nodes to become idle")
        exposed = [(a, p) for a, p in _listening(self._ports) if a not in ("127.0.0.1", "::1")]
        if exposed:
            raise SlurmUnavailable(f"a Slurm daemon listens beyond loopback: {exposed}; refusing to run")
        logger.info("slurm up in %s: %d nodes x %d GPUs, slurmctld port %d", d, self.nodes, self.gpus_per_node,
                    ctld_port)

    def _spawn(self, label: str, argv: list[str]) -> None:
        out = open(self.directory / "log" / f"{label}.out", "wb")
        try:
            # own session: a Ctrl-C in the terminal reaches only us, and stop() ends the daemons in order
            process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       env=self.env, start_new_session=True)
        finally:
            out.close()
        process.label = label
        self._processes.append(process)

    def _wait(self, ready, what: str) -> None:
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            for p in self._processes:
                if p.poll() is not None:
                    raise SlurmUnavailable(f"{p.label} exited with status {p.returncode} while waiting for {what}:\n"
                                           + self.log_tail(p.label))
            if ready():
                return
            time.sleep(0.1)
        raise SlurmUnavailable(f"timed out after {self.start_timeout:.0f} s waiting for {what}:\n"
                               + self.log_tail("slurmctld"))

    def _nodes_idle(self) -> bool:
        states = self._client(["sinfo", "-h", "-N", "-o", "%T"]).stdout.split()
        return len(states) == self.nodes and all(s == "idle" for s in states)

    def log_tail(self, label: str, lines: int = 20) -> str:
        """The last lines of a daemon's output and log file (for error messages)."""
        text = []
        for path in (self.directory / "log" / f"{label}.out", self.directory / "log" / f"{label}.log"):
            if path.exists():
                text += path.read_text(errors="replace").splitlines()[-lines:]
        return "\n".join(text)

    def stop(self) -> None:
        """Cancel jobs, stop every daemon this object started (by pid) and every job process left in
        its directory; remove the directory unless ``keep``. Safe to call twice."""
        if self.directory is None:
            return
        alive = [p for p in self._processes if p.poll() is None]
        if any(p.label == "slurmctld" for p in alive):
            jobs = self._client(["squeue", "-h", "-o", "%i"]).stdout.split()
            if jobs:
                self._client(["scancel", *jobs])
                deadline = time.monotonic() + 15
                while time.monotonic() < deadline and self._client(["squeue", "-h", "-o", "%i"]).stdout.strip():
                    time.sleep(0.2)
        # nodes first, then the controller, then munge (the others authenticate through it)
        for process in sorted(self._processes, key=lambda p: (p.label.startswith("munged"), p.label == "slurmctld")):
            _end(process)
        for pid in _processes_in(self.directory, exclude={p.pid for p in self._processes}):
            try:
                os.kill(pid, signal.SIGKILL)
                logger.info("ended leftover job process %d", pid)
            except ProcessLookupError:
                pass
        self._processes = []
        if not self.keep and self._given_directory is None:
            shutil.rmtree(self.directory, ignore_errors=True)
        self.directory = None

    # ---- client commands -------------------------------------------------------------------
    def _client(self, argv: list[str]) -> subprocess.CompletedProcess:
        return subprocess.run(argv, capture_output=True, text=True, env=self.env, timeout=30)

    def submit(self, sbatch_args: list[str]) -> str:
        """Submit a batch job (``sbatch --parsable`` plus ``sbatch_args``); return its job id.

        Example
        -------
        >>> cluster.submit(["-J", "u1:app", "-n", "1", "-c", "4", "--wrap", "sleep 2"])  # doctest: +SKIP
        '17'
        """
        done = self._client(["sbatch", "--parsable", *sbatch_args])
        if done.returncode != 0:
            raise RuntimeError(f"sbatch {' '.join(sbatch_args)} failed: {done.stderr.strip()}")
        return done.stdout.strip().split(";")[0]

    def queue_length(self, *, pending_only: bool = False) -> int:
        """Jobs pending or running (``pending_only``: jobs still waiting for resources)."""
        states = ["-t", "PENDING"] if pending_only else []
        return len(self._client(["squeue", "-h", *states, "-o", "%i"]).stdout.split())

    def path(self, name: str) -> Path:
        """A file of this cluster's directory (``jobcomp.txt``, ``log/slurmctld.log``...)."""
        return self.directory / name
