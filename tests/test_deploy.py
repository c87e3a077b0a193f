"""The deploy recipes name commands, options and paths that exist (issue 23)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import click
import pytest

from pipeline.cli import build

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"


def _parses(words: list[str]) -> None:
    """The words after `paisai` are a command Click accepts (nothing is run)."""
    root = build()
    command = root.commands[words[0]]
    context = command.make_context(words[0], list(words[1:]), parent=click.Context(root))
    assert context.params


def test_the_systemd_unit():
    unit = (DEPLOY / "paisai-dashboard.service").read_text(encoding="utf-8")
    start = re.search(r"^ExecStart=(.+)$", unit, re.M).group(1)
    words = shlex.split(start)
    assert words[0].endswith("/.venv/bin/paisai")  # what `make install` builds
    _parses(words[1:])
    assert "Restart=on-failure" in unit and "/_stcore/health" in unit
    env_file = re.search(r"^EnvironmentFile=(.+)$", unit, re.M).group(1)
    example = (DEPLOY / "paisai.env.example").read_text(encoding="utf-8")
    assert env_file in example and "PAISAI_DB=" in example and "PAISAI_ADMIN_PASSWORD=" in example


def test_the_container_recipe():
    recipe = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    assert recipe.startswith("#") and "FROM python:3.11-slim" in recipe
    for line in re.findall(r"^COPY (.+)$", recipe, re.M):
        *sources, _ = line.split()
        for source in sources:
            assert (ROOT / source).exists(), source
    command = json.loads(re.search(r"^CMD (\[.+\])$", recipe, re.M).group(1))
    assert command[0] == "paisai"
    _parses(command[1:])
    assert "HEALTHCHECK" in recipe and "/_stcore/health" in recipe
    assert "fonts-noto-cjk" in recipe and "VOLUME /data" in recipe


def test_a_wrong_option_would_be_caught():
    with pytest.raises(click.UsageError):
        _parses(["dashboard", "--portt", "1"])


def test_the_proxy_example_caches_the_phones_and_passes_the_console_through():
    conf = (DEPLOY / "nginx-paisai.conf").read_text(encoding="utf-8")
    cached = re.search(r"location ~ \^/\(m\|api/v1\)/ \{(.+?)\n    \}", conf, re.S).group(1)
    assert "proxy_cache paisai;" in cached and "proxy_cache_valid 200 304 5s" in cached
    live = re.search(r"location / \{(.+?)\n    \}", conf, re.S).group(1)
    assert "proxy_cache" not in live and "Upgrade $http_upgrade" in live
    from dashboard.hall.respond import MAX_AGE

    assert MAX_AGE <= 5  # what paisai itself allows a cache to keep
