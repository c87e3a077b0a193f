"""CLI commands: the dashboard, the demo, the static site and synthetic events."""

from __future__ import annotations

import os
from pathlib import Path

import click

from pipeline.base.errors import UsageError
from pipeline.cli_support import common, database, err, event_option, out


@click.command("publish", help="发布静态网站（文件夹或对象存储） publish a static site (a folder or "
                                "object storage)")
@event_option()
@click.option("--out", "--to", "out_dir", required=True,
              help="输出文件夹，或对象存储地址 s3://存储桶/前缀 output folder, or s3://bucket/prefix")
@click.option("--endpoint-url", metavar="URL",
              help="兼容 S3 的对象存储地址（MinIO、阿里云 OSS、腾讯云 COS） the endpoint of an "
                   "S3-compatible store; 凭据只从环境变量或配置文件读取 credentials only from "
                   "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE")
@click.option("--base-url", help="网站地址（二维码）；省略时沿用上次记住的 the site's address, for "
                                 "the QR; left out, the remembered one is kept")
@click.option("--full", is_flag=True,
              help="全部重新上传（补回在存储桶里被手工删除的页面） send every file again (restores "
                   "pages deleted from the bucket by hand)")
@common
def publish(event: str, out_dir: str, endpoint_url: str | None, base_url: str | None,
            full: bool) -> int:
    from pipeline.base.progress import progress
    from pipeline.operations.serve import checked_base_url
    from pipeline.publishing.objectstore import Location
    from pipeline.publishing.publish import publish as write_site
    from pipeline.publishing.remote import publish_to_store
    from pipeline.publishing.targets import place_of, remember, target

    base_url = checked_base_url(base_url) if base_url is not None else None
    place = place_of(out_dir, endpoint_url)
    kept = ""
    if base_url is None:  # left out: the address remembered by an earlier publish is kept
        earlier = target(database(), event)
        base_url = earlier.base_url if earlier is not None else None
        kept = f"；网站地址沿用 site address kept: {base_url}" if base_url else ""
    with progress("发布 publishing", total=None) as step:
        if isinstance(place, Location):
            done = publish_to_store(database(), event, place, base_url, on_page=step,
                                    full=full)
            said = (f"{len(done.uploaded)} 个文件上传 uploaded, {len(done.deleted)} 个删除 "
                    f"deleted, {done.unchanged} 个未变 unchanged")
        else:
            said = f"{len(write_site(database(), event, place, base_url, on_page=step))} " \
                   "个文件更新或删除 files changed or removed"
    remember(database(), event, place, base_url)
    out(f"已发布 published {out_dir}: {said}{kept} "
        "（之后 watch、控制台上传与编排会自动更新 watch and the console re-publish it）\n")
    return 0


@click.command("simulate", help="生成模拟赛事的表格 write a synthetic event")
@click.option("--teams", type=int, required=True, help="队数 teams")
@click.option("--rounds", "rounds_count", type=int, required=True,
              help="轮数（规则轮数不足时随之提高） rounds (the preset's count is raised to it)")
@click.option("--out", "out_dir", required=True, help="输出文件夹 output folder")
@click.option("--seed", type=int, default=1, show_default=True, help="随机种子 seed")
@click.option("--ruleset", default="suzhou-2025", show_default=True, help="规则 ruleset")
@common
def simulate(teams: int, rounds_count: int, out_dir: str, seed: int, ruleset: str) -> int:
    from pipeline.base.progress import progress
    from pipeline.operations.simulate import simulate as run_simulation

    if teams < 2 or rounds_count < 1:
        raise UsageError("至少 2 队 1 轮 at least 2 teams and 1 round")
    with progress("模拟 simulating", total=rounds_count) as step:
        made = run_simulation(teams, rounds_count, Path(out_dir), seed, ruleset, on_round=step)
    out(f"已生成 wrote {made.entries} 与 and {len(made.rounds)} 轮成绩 round sheets in "
        f"{made.folder}\n")
    return 0


@click.command("dashboard", help="启动看板 start the dashboard（--hall：让场内手机能连上 phones "
                                  "in the hall can reach it）")
@click.option("--host", default="127.0.0.1", show_default=True, help="地址 address")
@click.option("--hall", is_flag=True,
              help="在局域网上开放（监听所有网卡），打印手机要打开的地址与二维码；须先设置自己的控制台密码 "
                   "listen on the LAN (all interfaces), print the address phones open and its QR "
                   "code; needs your own console password")
@click.option("--port", type=int, default=8501, show_default=True, help="端口 port")
@click.option("--forwarded-allow-ips", default="", metavar="IPS",
              help="只信任这些代理转发的客户地址（如 nginx 在本机：127.0.0.1）；默认不信任 trust "
                   "X-Forwarded-For only from these proxies (nginx on this machine: "
                   "127.0.0.1); none by default")
@click.option("--phones-port", type=int, default=None, metavar="PORT",
              help="手机页由另一个进程在此端口提供（默认不用：手机页与控制台同一端口） the phones' "
                   "pages served by a process of their own on this port (default: none, the "
                   "phones on --port)")
@common
def dashboard(host: str, port: int, hall: bool, forwarded_allow_ips: str,
              phones_port: int | None) -> int:
    from pipeline.operations.serve import (
        hall_greeting,
        is_loopback,
        phones_port_for,
        run_dashboard,
    )

    host = "0.0.0.0" if hall else host
    phones = phones_port_for(host, port, phones_port)
    if not is_loopback(f"http://{host}") or host == "0.0.0.0":
        password = os.environ.get("PAISAI_ADMIN_PASSWORD", "")
        if not password or password == "demo":
            raise UsageError("对局域网开放前请先设置自己的控制台密码（不能是 demo） set your own console "
                             "password before listening beyond this machine (not `demo`): "
                             "PAISAI_ADMIN_PASSWORD=你的密码 paisai dashboard --hall")
        out(hall_greeting(port, phones))
    return run_dashboard(database(), host, port, forwarded_allow_ips, phones or 0)


@click.command("demo", help="载入演示比赛日（进行中的掼蛋赛、拖拉机淘汰赛、三场往届赛事） load the "
                           "demo tournament day")
@common
def demo() -> int:
    from pipeline.operations.demo import DEMO_ID, build_demo, demo_ids

    given = click.get_current_context().meta.get("paisai.db") or os.environ.get("PAISAI_DB")
    target = Path(given) if given else DEMO_DB  # never the real database by default
    if build_demo(target) is None:
        err(f"{target} 里已有正式赛事，未载入演示（虚构选手会混进历史与评分）；演示请用另一个"
            f"文件：make run DB=data/demo-2.duckdb  the database holds other events: the demo is "
            f"not loaded (its invented players would join the history and ratings); use "
            f"another file: make run DB=data/demo-2.duckdb")
        return 0
    listed = ", ".join(demo_ids())
    out(f"演示赛事已载入 demo event loaded: {DEMO_ID} → {target}\n"
        f"演示比赛日 the demo day: {listed}；本轮计时已开始 the demo round's clock is running\n"
        f"打开看板 open it: PAISAI_ADMIN_PASSWORD=demo paisai dashboard --db {target}\n")
    return 0


DEMO_DB = Path("data/demo.duckdb")  # the demo's own file: a first real event starts clean


COMMANDS = [publish, simulate, dashboard, demo]
