"""The one table of torch 2.13's CUDA builds, and the choice it makes per machine.

Each case is a machine users have (a GPU's compute capability, a driver branch, a CPU
architecture) and what a reviewer expects: a build whose kernels run on that GPU under
that driver, or a refusal naming what would work.
"""

from __future__ import annotations

import pytest

from claims.probes.machine import torch_wheels as tw


@pytest.mark.parametrize("kernels, capability, runs", [
    (("12.0+PTX",), (12, 1), True),  # sm_120 machine code runs on a 12.1 GB10
    (("9.0",), (10, 0), False),  # another major: no
    (("8.0", "9.0"), (8, 9), True),  # 8.0 code runs on an 8.9 L4
    (("7.5", "12.0+PTX"), (13, 0), True),  # PTX is compiled for newer GPUs by the driver
    (("7.5", "12.0"), (13, 0), False),  # without PTX, no
    (("7.5",), (7, 0), False),  # a V100 cannot run Turing's code
    (("6.0",), (6, 1), True),  # a P4 runs Pascal 6.0 code
])
def test_covers(kernels, capability, runs):
    assert tw.covers(kernels, capability) is runs


@pytest.mark.parametrize("gpu, driver, cap, arch, tag", [
    ("GB10 on R580", "580.95.05", (12, 1), "aarch64", "cu130"),
    ("GB10 on R610", "610.43.02", (12, 1), "aarch64", "cu130"),
    ("H200 on R570", "570.124.06", (9, 0), "x86_64", "cu126"),
    ("H200 on R610", "610.43.02", (9, 0), "x86_64", "cu130"),
    ("P4 on R580", "580.65.06", (6, 1), "x86_64", "cu126"),  # cu130 dropped Pascal
    ("V100 on R580", "580.65.06", (7, 0), "x86_64", "cu126"),  # ... and Volta
    ("RTX 5090 on R580", "580.82.09", (12, 0), "x86_64", "cu130"),
    ("B200 on R610", "610.43.02", (10, 0), "x86_64", "cu130"),
])
def test_a_build_with_the_gpus_architecture_is_chosen(gpu, driver, cap, arch, tag):
    choice = tw.choose(driver, [cap], arch)
    assert choice.build is not None and choice.build.tag == tag, (gpu, choice.why)
    assert tw.covers(choice.build.kernels_for(arch), cap)
    assert int(driver.split(".")[0]) >= choice.build.min_driver
    assert choice.why[-1].startswith("source: pytorch/pytorch#187075")


@pytest.mark.parametrize("gpu, cap", [("B200", (10, 0)), ("RTX 5090", (12, 0))])
def test_blackwell_on_r575_has_no_torch_213_build_and_says_what_would_work(gpu, cap):
    choice = tw.choose("575.57.08", [cap], "x86_64")
    assert choice.build is None and choice.index == "none", gpu
    text = "\n".join(choice.why)
    assert "cu130: needs driver R580 or later (this one: 575.57.08)" in text
    assert f"cu126: has no kernels for compute capability {cap[0]}.{cap[1]}" in text
    assert "a driver of R580 or later, then torch 2.13 cu130 from PyPI" in text
    assert "torch 2.11 from https://download.pytorch.org/whl/cu128" in text


def test_every_gpu_of_a_mixed_machine_must_be_covered():
    # An RTX 5090 beside a V100: cu130 lacks Volta, cu126 lacks Blackwell.
    choice = tw.choose("580.82.09", [(12, 0), (7, 0)], "x86_64")
    assert choice.build is None
    assert "no torch 2.13 build has kernels for compute capability 7.0, 12.0" in "\n".join(
        choice.why)


def test_a_driver_below_every_build_is_refused_by_name():
    choice = tw.choose("470.256.02", [(7, 5)], "x86_64")
    assert choice.build is None
    assert "no CUDA build of torch 2.13 runs here (driver 470.256.02" in choice.why[0]
    assert "a driver of R580 or later" in "\n".join(choice.why)


def test_an_unreported_capability_leaves_the_choice_to_the_driver_and_says_so():
    choice = tw.choose("580.65.06", [None], "x86_64")
    assert choice.build is not None and choice.build.tag == "cu130"
    assert any("smoke test" in line for line in choice.why)


def test_pascal_on_aarch64_has_no_build():
    # The aarch64 wheels ship Ampere and later only.
    assert tw.choose("580.65.06", [(6, 1)], "aarch64").build is None


@pytest.mark.parametrize("text, cap", [("9.0", (9, 0)), ("12.1", (12, 1)), ("[N/A]", None),
                                       ("", None), ("nine", None)])
def test_parse_capability(text, cap):
    assert tw.parse_capability(text) == cap


def test_the_cli_prints_the_index_then_why(capsys):
    assert tw.main(["choose", "--driver", "570.124.06", "--capability", "9.0",
                    "--arch", "x86_64"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "https://download.pytorch.org/whl/cu126"
    assert lines[1].startswith("cu126 from the cu126 index")
    assert tw.main(["choose", "--driver", "575.57.08", "--capability", "10.0",
                    "--arch", "x86_64"]) == 3
    assert capsys.readouterr().out.splitlines()[0] == "none"
