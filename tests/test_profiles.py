"""Machine profiles (claims.profiles): detection, resolution and differences."""

from __future__ import annotations

import platform

import pytest

from claims import profiles


def _names(*names: str):
    calls = []

    def ask() -> list[str]:
        calls.append(1)
        return list(names)

    return ask, calls


@pytest.mark.parametrize("arch, gpus, expected", [
    ("aarch64", ["NVIDIA GB10"], "dgx-spark"),
    ("aarch64", ["NVIDIA GH200 480GB"], "generic"),
    ("aarch64", [], "generic"),
    ("x86_64", ["NVIDIA GB10"], "generic"),
])
def test_detect_profile(arch, gpus, expected):
    ask, _ = _names(*gpus)
    assert profiles.detect_profile(arch, ask) == expected


def test_detection_asks_nvidia_smi_only_on_aarch64():
    ask, calls = _names("NVIDIA GB10")
    profiles.detect_profile("x86_64", ask)
    assert calls == []


def test_resolve_profile():
    assert profiles.resolve_profile("generic") == "generic"
    assert profiles.resolve_profile("dgx-spark") == "dgx-spark"
    if platform.machine() != "aarch64":
        assert profiles.resolve_profile("auto") == "generic"
    with pytest.raises(ValueError, match="unknown profile"):
        profiles.resolve_profile("laptop")


def test_the_spark_profile_holds_week_1s_values():
    spark = profiles.DGX_SPARK
    assert spark.hardware["arch"] == "aarch64"
    assert spark.hardware["cpu_models"] == {"Cortex-X925": 10, "Cortex-A725": 10}
    assert spark.hardware["capability"] == (12, 1)
    assert spark.versions == {"driver": "580.159.03", "cuda_ceiling": "13.0", "nvcc": "13.0.88",
                              "torch": "2.13.0+cu130", "torch_cuda": "13.0",
                              "memory_free_h": "121Gi"}
    assert set(profiles.PROFILES) == {"dgx-spark", "generic"}


def test_compare_sorts_differences_into_hardware_and_versions():
    same = {**profiles.DGX_SPARK.hardware, **profiles.DGX_SPARK.versions}
    assert profiles.compare(profiles.DGX_SPARK, same) == []
    newer = {**same, "driver": "580.95.05", "capability": [12, 1], "memory_free_h": "119Gi"}
    diffs = {d.key: d for d in profiles.compare(profiles.DGX_SPARK, newer)}
    assert set(diffs) == {"driver", "memory_free_h"}  # a list equals the tuple it came from
    # A Spark on another DGX OS image prints 119Gi: a version-like difference, not another machine.
    assert diffs["driver"].kind == "version" and diffs["memory_free_h"].kind == "version"
    assert diffs["driver"].to_json() == {"key": "driver", "kind": "version",
                                         "expected": "580.159.03", "measured": "580.95.05"}


def test_unmeasured_facts_are_not_differences():
    assert profiles.compare(profiles.DGX_SPARK, {"arch": "aarch64", "driver": None}) == []
    assert profiles.compare(profiles.GENERIC, {"arch": "x86_64"}) == []


def _failing() -> list[str]:
    raise profiles.DetectionFailed("nvidia-smi --query-gpu=index,name: no answer within 30 s")


def test_choose_profile_says_why():
    ask, _ = _names("NVIDIA GB10")
    spark = profiles.choose_profile("auto", arch="aarch64", gpu_names=ask)
    assert spark.name == "dgx-spark" and "names NVIDIA GB10" in spark.reason
    other = profiles.choose_profile("auto", arch="aarch64", gpu_names=_names("NVIDIA GH200")[0])
    assert other.name == "generic" and "NVIDIA GH200, not NVIDIA GB10" in other.reason
    x86 = profiles.choose_profile("auto", arch="x86_64")
    assert x86.name == "generic" and "x86_64" in x86.reason and not x86.detection_failed
    named = profiles.choose_profile("generic")
    assert named.reason == "named with --claims-profile generic" and named.option == "generic"


def test_a_failed_detection_is_generic_but_says_it_failed():
    choice = profiles.choose_profile("auto", arch="aarch64", gpu_names=_failing)
    assert choice.name == "generic" and choice.detection_failed is True
    assert "no answer within 30 s" in choice.reason
    assert choice.to_json()["detection_failed"] is True


def test_detection_reports_a_failing_nvidia_smi(monkeypatch):
    from claims.probes.machine import nvidia
    from claims.probes.machine.tools import ToolFailed

    def fails(fields, timeout=0.0):
        raise ToolFailed("nvidia-smi exited with status 9: Failed to initialize NVML")

    monkeypatch.setattr(nvidia, "nvidia_smi_rows_and_run", fails)
    choice = profiles.choose_profile("auto", arch="aarch64")
    assert choice.detection_failed and "Failed to initialize NVML" in choice.reason
