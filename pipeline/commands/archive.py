"""CLI commands: the association's archive — event bundles synced into its history."""

from __future__ import annotations

import click

from pipeline.base.progress import progress
from pipeline.cli_support import common, database, err, out


@click.group("history", help="协会档案：同步各地赛事包 the association's archive: sync event "
                             "bundles")
def history() -> None:
    pass


@history.command("sync", help="导入档案中尚未导入的每个赛事包（各一次，任意顺序） import every bundle "
                              "not yet imported (each once, in any order)")
@click.option("--from", "source", required=True, metavar="DIR_OR_URL",
              help="档案文件夹或 s3://存储桶/前缀（一个赛季） the archive's folder or "
                   "s3://bucket/prefix (a season)")
@click.option("--endpoint-url", metavar="URL",
              help="兼容 S3 的对象存储地址 the endpoint of an S3-compatible store")
@common
def sync(source: str, endpoint_url: str | None) -> int:
    from pipeline.publishing.sync import sync as run_sync
    from pipeline.publishing.targets import place_of

    with progress("同步 syncing", total=None) as step:
        done = run_sync(database(), place_of(source, endpoint_url), on_bundle=step)
    from pipeline.base import oplog

    for line in done.refused:
        err(f"拒收 refused: {line}")
        oplog.write(database(), None, "bundle refused", line)
    for where in done.waiting:
        err(f"稍后再同步 later: {where} 还没有 manifest.json（正在上传？）has no manifest.json yet "
            "(an upload going on?): passed over this time")
    if done.imported:
        oplog.write(database(), None, "bundles synced",
                    f"{len(done.imported)} from {source}: {', '.join(done.imported)}")
    out(f"已导入 imported {len(done.imported)} 个赛事包 bundle(s)"
        + (f": {', '.join(done.imported)}" if done.imported else "")
        + f"; 已有 already held {len(done.known)}; 拒收 refused {len(done.refused)}"
        + (f"; 稍后 later {len(done.waiting)}" if done.waiting else "") + "\n")
    return 2 if done.refused else 0


COMMANDS = [history]
