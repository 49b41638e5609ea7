"""Job-trace loaders: schema, mapping rules, filtering, time split; fixtures and the real logs."""
import gzip
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from adapters.scheduler.jobs import (JOB_COLUMNS, detect_format, last_month_start, load_alibaba_pods, load_helios,
                                     load_jobs, load_swf, read_swf, submit_timestamps, time_split)

FIXTURES = Path(__file__).parent / "fixtures"


def check_schema(jobs: pd.DataFrame) -> None:
    assert list(jobs.columns[: len(JOB_COLUMNS)]) == list(JOB_COLUMNS)
    assert (jobs["gpu_num"] >= 1).all() and jobs["gpu_num"].dtype == np.int64
    assert jobs["cpu_num"].dtype == np.int64
    assert (jobs["duration"] > 0).all()
    assert jobs["submit_time"].is_monotonic_increasing
    assert isinstance(jobs.attrs["epoch"], pd.Timestamp) and jobs.attrs["source"]
    for col in ("job_id", "user", "name", "vc", "state"):
        assert pd.api.types.is_string_dtype(jobs[col]), col


def test_helios_fixture_maps_columns_and_filters():
    jobs = load_helios(FIXTURES / "helios_cluster_log.csv", source="venus")
    check_schema(jobs)
    # 8 rows: one CPU-only job and one zero-duration job are dropped
    assert len(jobs) == 6
    assert jobs.attrs["epoch"] == pd.Timestamp("2020-04-01") and jobs.attrs["source"] == "venus"
    # sorted by submit time: the 07:59 job comes first
    assert jobs["job_id"].tolist()[:2] == ["3d1b7e7", "3d1b7e0"]
    assert jobs["submit_time"].iloc[0] == 7 * 3600 + 59 * 60
    first = jobs.set_index("job_id").loc["3d1b7e4"]
    assert (first["gpu_num"], first["cpu_num"], first["vc"], first["state"]) == (16, 96, "vcHvQ", "CANCELLED")
    assert first["queue_delay"] == 601 and first["duration"] == 7200
    assert (jobs["name"] == "").all()
    assert submit_timestamps(jobs).iloc[0] == pd.Timestamp("2020-04-01 07:59:00")


def test_helios_optional_jobname_and_bad_time(tmp_path):
    raw = pd.read_csv(FIXTURES / "helios_cluster_log.csv")
    raw.insert(3, "jobname", [f"train_{i}" for i in range(len(raw))])
    raw.to_csv(tmp_path / "cluster_log.csv", index=False)
    jobs = load_helios(tmp_path / "cluster_log.csv")
    assert jobs.set_index("job_id").loc["3d1b7e2", "name"] == "train_2"
    with pytest.raises(ValueError, match="unparseable submit_time"):
        load_helios(FIXTURES / "helios_cluster_log_bad_time.csv")
    raw.drop(columns=["duration"]).to_csv(tmp_path / "broken.csv", index=False)
    with pytest.raises(ValueError, match="missing columns"):
        load_helios(tmp_path / "broken.csv")


def test_swf_fixture_rules(tmp_path):
    records, header = read_swf(FIXTURES / "tiny.swf")
    assert header["UnixStartTime"] == "1585699200" and header["TimeZoneString"] == "Asia/Shanghai"
    assert len(records) == 5
    jobs = load_swf(FIXTURES / "tiny.swf", procs_per_gpu=4)
    check_schema(jobs)
    # runtime 0 and -1 are dropped; procs -1 falls back to the 16 requested
    assert jobs["job_id"].tolist() == ["1", "2", "5"]
    assert jobs["gpu_num"].tolist() == [2, 1, 4]  # ceil(8/4), ceil(3/4), ceil(16/4)
    assert jobs["cpu_num"].tolist() == [8, 3, 16]
    assert jobs["name"].tolist() == ["7", "7", "9"]
    assert jobs["vc"].tolist() == ["0", "1", "1"]
    assert jobs["state"].tolist() == ["COMPLETED", "FAILED", "COMPLETED"]
    assert jobs["queue_delay"].iloc[0] == 5 and np.isnan(jobs["queue_delay"].iloc[1])
    assert jobs.attrs["epoch"] == pd.Timestamp("2020-04-01 08:00", tz="Asia/Shanghai")
    # the same file gzipped reads identically
    with open(FIXTURES / "tiny.swf", "rb") as src, gzip.open(tmp_path / "tiny.swf.gz", "wb") as dst:
        shutil.copyfileobj(src, dst)
    pd.testing.assert_frame_equal(load_swf(tmp_path / "tiny.swf.gz", procs_per_gpu=4), jobs)
    with pytest.raises(ValueError, match="procs_per_gpu"):
        load_swf(FIXTURES / "tiny.swf", procs_per_gpu=0)


def test_swf_rejects_short_lines(tmp_path):
    (tmp_path / "short.swf").write_text("; UnixStartTime: 0\n1 0 -1 10 1\n")
    with pytest.raises(ValueError, match="needs 18"):
        read_swf(tmp_path / "short.swf")
    (tmp_path / "text.swf").write_text("1 0 -1 10 1 -1 -1 1 -1 -1 1 abc 1 1 -1 -1 -1 -1\n")
    with pytest.raises(ValueError, match="non-numeric"):
        read_swf(tmp_path / "text.swf")


def test_time_split_by_date_and_seconds():
    jobs = load_helios(FIXTURES / "helios_cluster_log.csv")
    train, test = time_split(jobs, "2020-04-02")
    assert train["submit_time"].max() < 86400 <= test["submit_time"].min()
    assert len(train) + len(test) == len(jobs) and train.attrs["epoch"] == jobs.attrs["epoch"]
    train_s, _ = time_split(jobs, 86400.0)
    assert train_s.index.equals(train.index)


def test_real_nasa_log(data_dir):
    path = data_dir / "scheduler" / "jobs" / "NASA-iPSC-1993-3.1-cln.swf.gz"
    records, header = read_swf(path)
    assert len(records) == 18239  # README: 18,239 jobs before filtering
    assert records["user"].nunique() == 69 and records["executable"].nunique() == 494
    jobs = load_swf(path)
    check_schema(jobs)
    assert len(jobs) == 18239 - int((records["runtime"] <= 0).sum())
    assert jobs.attrs["epoch"] == pd.Timestamp("1993-10-01 00:00:03", tz="US/Pacific")
    assert last_month_start(jobs) == pd.Timestamp("1993-12-01")


def test_real_wagap_log(data_dir):
    path = data_dir / "scheduler" / "jobs" / "wagap-2013.swf"
    records, header = read_swf(path)
    assert len(records) == 17900 and header == {}
    jobs = load_swf(path, timezone="Europe/Prague")
    check_schema(jobs)
    assert jobs["user"].nunique() == 75
    assert (jobs["name"] == "").all()  # one executable id for every job: no application id
    assert {"q_1d", "q_2h", "q_1w"} <= set(jobs["vc"])  # queue names appended after the 18 fields
    assert jobs["req_time"].notna().all()
    assert submit_timestamps(jobs).iloc[0].year == 2013


def test_real_alibaba_pods(data_dir):
    path = data_dir / "scheduler" / "jobs" / "alibaba-gpu-2023-openb_pod_list_default.csv"
    raw = pd.read_csv(path)
    assert len(raw) == 8152  # README: 8,152 pods
    pods = load_alibaba_pods(path)
    check_schema(pods)
    expected = raw[(raw["num_gpu"] >= 1) & raw["scheduled_time"].notna()]
    assert len(pods) == len(expected)
    row = pods.set_index("job_id").loc["openb-pod-0001"]
    assert row["gpu_num"] == 1 and row["gpu_milli"] == 460 and row["vc"] == "LS"
    assert row["duration"] == 12902960 - 427061
    assert (pods["user"] == "").all() and (pods["queue_delay"] >= 0).all()


def test_format_is_detected_from_the_content_not_the_name(tmp_path):
    swf_copy = tmp_path / "log.csv"  # a misleading suffix
    shutil.copy(FIXTURES / "tiny.swf", swf_copy)
    assert detect_format(swf_copy) == "swf"
    gz = tmp_path / "log.swf.gz"
    with open(FIXTURES / "tiny.swf", "rb") as src, gzip.open(gz, "wb") as dst:
        dst.write(src.read())
    assert detect_format(gz) == "swf" and load_jobs(gz).attrs["format"] == "swf"
    assert detect_format(FIXTURES / "helios_cluster_log.csv") == "helios"
    helios = load_jobs(FIXTURES / "helios_cluster_log.csv")
    check_schema(helios)
    assert helios.attrs["format"] == "helios"
    alibaba = tmp_path / "pods.csv"
    alibaba.write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli,qos,pod_phase,creation_time,deletion_time,"
                       "scheduled_time\np1,1000,100,1,1000,LS,Running,0,100,10\np2,1000,100,1,500,BE,Running,5,60,6\n")
    assert detect_format(alibaba) == "alibaba"
    assert load_jobs(alibaba)["duration"].tolist() == [90.0, 54.0]
    other = tmp_path / "nodes.csv"
    other.write_text("sn,cpu_milli,memory_mib,gpu\nn1,1000,100,8\n")
    with pytest.raises(ValueError, match="not a job log.*starts 'sn,cpu_milli"):
        detect_format(other)
    with pytest.raises(ValueError, match="format must be one of"):
        load_jobs(alibaba, "slurm")
