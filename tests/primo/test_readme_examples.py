"""Every ```python block of README.md runs as written, in a fresh namespace and an empty folder.

A block preceded by ``<!-- readme-test: slow (reason) -->`` (a long run) or
``<!-- readme-test: data (reason) -->`` (it needs the shared case-study data) runs with
``-m slow``; the default run lists it as skipped with its reason.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
MARKER = re.compile(r"^<!--\s*readme-test:\s*(?P<kind>slow|data)\s*\((?P<reason>.+)\)\s*-->$")


@dataclass(frozen=True)
class Block:
    line: int          # line of the opening fence, 1-based
    code: str
    marked: str | None  # "slow" or "data"
    reason: str | None


def python_blocks(text: str) -> list[Block]:
    """The ```python blocks of a Markdown text, with the readme-test marker on the line before each.

    Example
    -------
    >>> [b.code for b in python_blocks("<!-- readme-test: slow (long) -->\\n```python\\nx = 1\\n```\\n")]
    ['x = 1\\n']
    """
    blocks, lines = [], text.splitlines()
    number = 0
    while number < len(lines):
        if lines[number].strip() == "```python":
            start = number
            end = next((k for k in range(start + 1, len(lines)) if lines[k].strip() == "```"), None)
            if end is None:
                raise ValueError(f"README.md line {start + 1}: the ```python block is never closed")
            previous = next((lines[k].strip() for k in range(start - 1, -1, -1) if lines[k].strip()), "")
            marker = MARKER.match(previous)
            blocks.append(Block(start + 1, "\n".join(lines[start + 1:end]) + "\n",
                                marker["kind"] if marker else None, marker["reason"] if marker else None))
            number = end
        number += 1
    return blocks


def _cases():
    for block in python_blocks(README.read_text()):
        name = f"README.md:{block.line}"
        if block.marked is None:
            yield pytest.param(block, id=name)
        else:
            yield pytest.param(block, id=f"{name}-{block.marked}", marks=pytest.mark.slow)
            yield pytest.param(block, id=f"{name}-skipped", marks=pytest.mark.skip(
                reason=f"{name}: {block.reason}; runs with -m slow"))


@pytest.mark.parametrize("block", list(_cases()))
def test_readme_block_runs_as_written(block, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # blocks write model files and reports into the working directory
    exec(compile(block.code, f"README.md:{block.line}", "exec"), {"__name__": "__readme__"})  # noqa: S102 (the README's own code)


def test_the_readme_has_a_quick_example_run_by_default():
    blocks = python_blocks(README.read_text())
    assert any(b.marked is None and "primo.report.build" in b.code for b in blocks)


def test_markers_are_read_and_an_unclosed_block_is_an_error():
    text = "intro\n\n<!-- readme-test: data (the LinnOS traces) -->\n\n```python\nimport primo\n```\n```python\nx = 2\n```\n"
    first, second = python_blocks(text)
    assert (first.line, first.marked, first.reason, first.code) == (5, "data", "the LinnOS traces", "import primo\n")
    assert (second.line, second.marked, second.code) == (8, None, "x = 2\n")
    with pytest.raises(ValueError, match="line 1: the ```python block is never closed"):
        python_blocks("```python\nx = 1\n")


def _primo_modules() -> list[str]:
    import pkgutil

    import primo

    return sorted(m.name for m in pkgutil.walk_packages(primo.__path__, "primo."))


@pytest.mark.parametrize("module_name", _primo_modules())
def test_docstring_examples_run_as_written(module_name, tmp_path, monkeypatch):
    """Every docstring example of primo/ not marked ``# doctest: +SKIP`` gives the output it shows."""
    import doctest
    import importlib

    monkeypatch.chdir(tmp_path)
    module = importlib.import_module(module_name)
    failed, _ = doctest.testmod(module, report=False, optionflags=doctest.ELLIPSIS)
    assert failed == 0, f"{failed} docstring example(s) of {module_name} fail (see the captured output)"
